import Foundation
import Support

/// Each library write as a pure plan: a backend reads what the write depends on inside its
/// transaction, hands it here, and executes the plan with its own SQL. So the decisions (state,
/// team, versions kept, the change-log entry) and the sentences of the errors exist once, and
/// SQLite and PostgreSQL cannot answer differently.
extension LibraryRules {
    /// The stored identity of a pass: the only columns `contains`, `add`, `remove` and `revert` read.
    package struct StoredIdentity: Sendable {
        package let rowID: Int64
        package let sha256: String
        package let signingTime: Date?

        package init(rowID: Int64, sha256: String, signingTime: Date?) {
            self.rowID = rowID
            self.sha256 = sha256
            self.signingTime = signingTime
        }
    }

    /// A change-log entry, as a write appends it.
    package struct LogEntry: Sendable {
        package let kind: ChangeKind
        package let id: PassID
        package let sha256: String?
        package let at: Date
        package let changes: [FieldChange]

        init(_ kind: ChangeKind, _ id: PassID, sha256: String?, at: Date, changes: [FieldChange] = []) {
            self.kind = kind
            self.id = id
            self.sha256 = sha256
            self.at = at
            self.changes = changes
        }
    }

    // MARK: - Passes

    /// PassKit's `containsPass`, refined (`LibraryState`), from the identity stored under the record's id.
    package static func state(of record: PassRecord, stored: StoredIdentity?) -> LibraryState {
        guard let stored else { return .new }
        return LibraryState.of(incomingSHA256: record.sha256.lowercased(), incomingSigningTime: record.signingTime,
                               storedSHA256: stored.sha256, storedSigningTime: stored.signingTime)
    }

    package enum AddPlan: Sendable {
        /// These bytes are stored already: nothing is written or logged.
        case stored
        /// Store the blob, insert `row`, settle a pending offer of these exact bytes, append `log`.
        case insert(PassRow, log: LogEntry)
    }

    /// `add`: a new id is inserted; the same bytes again change nothing; other content under the
    /// id is refused (the caller should replace).
    package static func add(_ r: PassRecord, stored: StoredIdentity?, now: () -> Date, location: String) throws -> AddPlan {
        if let stored {
            guard stored.sha256 == r.sha256 else {
                throw LibraryError(.exists, "add: \(r.id) is already in the library with different content; replace it instead",
                                   path: location)
            }
            return .stored
        }
        let at = now()
        return .insert(try PassRow(r, addedAt: at, updatedAt: at), log: LogEntry(.add, r.id, sha256: r.sha256, at: at))
    }

    /// Replaces the current row of a pass: the backend stores the blob, copies the current row
    /// into `pass_version` (replaced at `at`), writes `row`, prunes the versions to the newest
    /// `keptVersions` (releasing the blobs of those pruned) and appends `log`.
    package struct ReplacePlan: Sendable {
        package let row: PassRow
        package let at: Date
        package let keptVersions: Int
        package let changes: [FieldChange]
        package let log: LogEntry
    }

    /// `replace`, `update` (`replaceIfChanged`) and the accept of an update. nil: these bytes are
    /// the stored ones, nothing to do. Refuses a pass that is not stored, one signed before the
    /// stored version, and another team's pass under the same id.
    package static func replace(_ r: PassRecord, existing: StoredPass?, operation: String, keptVersions: Int,
                                now: () -> Date, location: String) throws -> ReplacePlan? {
        guard let existing else { throw notInLibrary(operation, r.id, location: location) }
        switch LibraryState.of(incomingSHA256: r.sha256, incomingSigningTime: r.signingTime,
                               storedSHA256: existing.sha256, storedSigningTime: existing.signingTime) {
        case .contained:
            return nil
        case .stale:
            throw LibraryError(.refused, "\(operation): \(r.id) was signed before the version in the library; keeping the newer one",
                               path: location)
        case .new, .update:
            break
        }
        guard existing.teamIdentifier == r.teamIdentifier else {
            throw LibraryError(.refused, "\(operation): \(r.id) belongs to team \(existing.teamIdentifier), not \(r.teamIdentifier)",
                               path: location)
        }
        let at = now()
        let changes = FieldChange.between(old: existing.fields, new: r.fields, voids: r.voided && !existing.voided)
        return ReplacePlan(row: try PassRow(r, addedAt: existing.addedAt, updatedAt: at), at: at,
                           keptVersions: max(0, keptVersions), changes: changes,
                           log: LogEntry(.replace, r.id, sha256: r.sha256, at: at, changes: changes))
    }

    /// Removes a pass with its earlier versions (and its validators); the blobs of the current row
    /// and of the versions deleted are released.
    package struct RemovePlan: Sendable {
        package let rowID: Int64
        package let log: LogEntry

        /// The blobs to delete once unused, in one order on every backend.
        package func blobs(versionDigests: [String]) -> [String] {
            Set(versionDigests + [log.sha256].compactMap { $0 }).sorted()
        }
    }

    package static func remove(_ id: PassID, stored: StoredIdentity?, now: () -> Date, location: String) throws -> RemovePlan {
        guard let stored else { throw notInLibrary("remove", id, location: location) }
        return RemovePlan(rowID: stored.rowID, log: LogEntry(.remove, id, sha256: stored.sha256, at: now()))
    }

    /// Undoes the last replace: the backend copies version `versionID` over row `rowID` (updated
    /// at `log.at`), deletes that version, releases the blob of the row it overwrote, appends `log`.
    package struct RevertPlan: Sendable {
        package let rowID: Int64
        package let versionID: Int64
        package let releasing: String
        package let log: LogEntry
    }

    /// `newestVersion`: the newest row of `pass_version` for the id, read only when `stored` is not nil.
    package static func revert(_ id: PassID, stored: StoredIdentity?, newestVersion: (id: Int64, sha256: String)?,
                               now: () -> Date, location: String) throws -> RevertPlan {
        guard let stored else { throw notInLibrary("revert", id, location: location) }
        guard let version = newestVersion else {
            throw LibraryError(.notFound, "revert: \(id) has no earlier version to go back to", path: location)
        }
        return RevertPlan(rowID: stored.rowID, versionID: version.id, releasing: stored.sha256,
                          log: LogEntry(.revert, id, sha256: version.sha256, at: now()))
    }

    /// `export`: the stored bytes, byte-identical, or an error if they are missing or no longer
    /// hash to the stored SHA-256.
    package static func exported(_ id: PassID, stored: (sha256: String, bytes: [UInt8])?, location: String) throws -> [UInt8] {
        guard let stored else { throw notInLibrary("export", id, location: location) }
        guard Digest.sha256Hex(stored.bytes) == stored.sha256 else {
            throw LibraryError(.notALibrary, "export: the stored bytes of \(id) are damaged (SHA-256 differs)", path: location)
        }
        return stored.bytes
    }

    // MARK: - Offers

    package enum OfferPlan: Sendable {
        /// The offer stays as it is (these bytes, or content signed after them, are staged already);
        /// nothing is logged.
        case keep(Offer)
        /// Store the blob, overwrite offer `offerID` with `row`, release the blob of the bytes it
        /// held, append `log`.
        case update(offerID: Int64, row: OfferRow, releasing: String, log: LogEntry)
        /// Store the blob, insert `row` under a new offer id, append `log`.
        case insert(OfferRow, log: LogEntry)
    }

    /// `stageOffer`: one offer per pass id; other content replaces it unless signed earlier.
    package static func stageOffer(_ r: PassRecord, existing: Offer?, now: () -> Date) -> OfferPlan {
        let at = now()
        let log = LogEntry(.offer, r.id, sha256: r.sha256, at: at)
        guard let existing else { return .insert(OfferRow(r, createdAt: at), log: log) }
        let state = LibraryState.of(incomingSHA256: r.sha256, incomingSigningTime: r.signingTime,
                                    storedSHA256: existing.sha256, storedSigningTime: existing.signingTime)
        guard state == .update else { return .keep(existing) }
        return .update(offerID: existing.offerID, row: OfferRow(r, createdAt: at), releasing: existing.sha256, log: log)
    }

    package enum AcceptPlan: Sendable {
        /// Replace the stored version (nil: it holds these bytes already), then delete the offer.
        case replace(ReplacePlan?)
        /// Insert `row` (the offer's blob is there), append `log`, then delete the offer.
        case insert(PassRow, log: LogEntry)
    }

    /// `acceptOffer`: `r` is the offered pass opened again; it must be the offer's bytes. A stale
    /// offer is refused and stays pending. `existing` is read only when `offer` is found.
    package static func accept(_ r: PassRecord, offerID: Int64, offer: Offer?, existing: StoredPass?, keptVersions: Int,
                               now: () -> Date, location: String) throws -> AcceptPlan {
        guard let offer else { throw noOffer(offerID, operation: "accept", location: location) }
        guard offer.passID == r.id, offer.sha256 == r.sha256 else {
            throw LibraryError(.refused, "accept: the pass given is not the one offer \(offerID) holds", path: location)
        }
        if existing != nil {
            return .replace(try replace(r, existing: existing, operation: "accept", keptVersions: keptVersions,
                                        now: now, location: location))
        }
        let at = now()
        return .insert(try PassRow(r, addedAt: at, updatedAt: at), log: LogEntry(.add, r.id, sha256: r.sha256, at: at))
    }

    /// `declineOffer`: the backend deletes the offer, releases `releasing`, appends `log`.
    package struct DeclinePlan: Sendable {
        package let releasing: String
        package let log: LogEntry
    }

    package static func decline(_ offerID: Int64, offer: Offer?, now: () -> Date, location: String) throws -> DeclinePlan {
        guard let offer else { throw noOffer(offerID, operation: "decline", location: location) }
        return DeclinePlan(releasing: offer.sha256, log: LogEntry(.decline, offer.passID, sha256: offer.sha256, at: now()))
    }

    /// `offerBytes`: the staged bytes, checked against the offer's SHA-256.
    package static func offerBytes(_ offerID: Int64, stored: (sha256: String, bytes: [UInt8])?, location: String) throws -> [UInt8] {
        guard let stored else { throw noOffer(offerID, operation: nil, location: location) }
        guard Digest.sha256Hex(stored.bytes) == stored.sha256 else {
            throw LibraryError(.notALibrary, "the stored bytes of offer \(offerID) are damaged (SHA-256 differs)", path: location)
        }
        return stored.bytes
    }

    // MARK: - Resolving what a person typed

    package enum ResolveQuery: Sendable, Equatable {
        /// "passTypeIdentifier/serialNumber".
        case id(PassID)
        /// A lowercase hex SHA-256 prefix: every stored digest starting with it sorts in
        /// [`prefix`, `prefix + "g"`), so the range uses the index.
        case digestPrefix(String)
    }

    /// "passTypeIdentifier/serialNumber" (split at the first "/", as type identifiers have none),
    /// or a prefix of at least `minimumDigestPrefix` hex digits of a SHA-256.
    package static func resolveQuery(_ text: String, location: String) throws -> ResolveQuery {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let slash = trimmed.firstIndex(of: "/") {
            return .id(PassID(passTypeIdentifier: String(trimmed[..<slash]),
                              serialNumber: String(trimmed[trimmed.index(after: slash)...])))
        }
        let prefix = trimmed.lowercased()
        guard prefix.utf8.count >= minimumDigestPrefix, prefix.utf8.count <= 64,
              prefix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw LibraryError(.notFound,
                               "“\(trimmed)” is neither passTypeIdentifier/serialNumber nor a SHA-256 prefix of at least \(minimumDigestPrefix) hex digits",
                               path: location)
        }
        return .digestPrefix(prefix)
    }

    package static func resolved(_ id: PassID, found: Bool, location: String) throws -> PassID {
        guard found else { throw LibraryError(.notFound, "no pass \(id) in the library", path: location) }
        return id
    }

    /// `matches`: the passes whose digest starts with `prefix`, in digest order, at most 11.
    package static func resolved(prefix: String, matches: [(id: PassID, sha256: String)], location: String) throws -> PassID {
        switch matches.count {
        case 0:
            throw LibraryError(.notFound, "no pass in the library has a SHA-256 starting with \(prefix)", path: location)
        case 1:
            return matches[0].id
        default:
            let names = matches.prefix(10).map { "\($0.id) (\($0.sha256.prefix(12)))" }
            throw LibraryError(.ambiguousID,
                               "SHA-256 prefix \(prefix) is ambiguous; it matches \(matches.count > 10 ? "more than 10 passes" : "\(matches.count) passes"): \(names.joined(separator: ", "))",
                               path: location)
        }
    }

    // MARK: - Sentences several writes share

    package static func notInLibrary(_ operation: String, _ id: PassID, location: String) -> LibraryError {
        LibraryError(.notFound, "\(operation): \(id) is not in the library", path: location)
    }

    static func noOffer(_ offerID: Int64, operation: String?, location: String) -> LibraryError {
        LibraryError(.notFound, "\(operation.map { "\($0): " } ?? "")there is no pending offer \(offerID)", path: location)
    }

    /// A row the write itself made or kept is not there when read back.
    package static func vanished(_ what: String, location: String) -> LibraryError {
        LibraryError(.io, "\(what) vanished inside its own transaction", path: location)
    }
}
