import Foundation
import GRDB
import Support

extension PassLibrary {
    /// PassKit's `containsPass`, refined: new, contained (same bytes), update (different content
    /// signed later, or without signing times to compare), stale (signed earlier).
    package func contains(_ record: PassRecord) throws -> LibraryState {
        let sha256 = record.sha256.lowercased()
        return try read("contains") { db in
            guard let stored = try LibraryRows.fetchIdentity(db, record.id) else { return .new }
            return LibraryState.of(incomingSHA256: sha256, incomingSigningTime: record.signingTime,
                                   storedSHA256: stored.sha256, storedSigningTime: stored.signingTime)
        }
    }

    /// Adds a pass the user agreed to add. Refuses invalid passes, and untrusted ones unless
    /// `allowUntrusted`. Adding the same bytes again returns the stored pass and logs nothing;
    /// the same id with different content is `LibraryError.Kind.exists` (use `replace`).
    /// A pending offer of these exact bytes is settled by the add.
    @discardableResult
    package func add(_ record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass {
        try adding(record, allowUntrusted: allowUntrusted).stored
    }

    /// `add` that says whether it added: nil when these bytes were already stored.
    package func addIfNew(_ record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass? {
        let outcome = try adding(record, allowUntrusted: allowUntrusted)
        return outcome.added ? outcome.stored : nil
    }

    private func adding(_ record: PassRecord, allowUntrusted: Bool) throws -> (stored: StoredPass, added: Bool) {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "add")
        return try write("add") { db in
            var added = false
            if let existing = try LibraryRows.fetchIdentity(db, r.id) {
                guard existing.sha256 == r.sha256 else {
                    throw LibraryError(.exists, "add: \(r.id) is already in the library with different content; replace it instead",
                                       path: path)
                }
            } else {
                let now = options.now()
                try LibraryRows.insertBlob(db, r)
                try db.cachedStatement(sql: "INSERT INTO pass (\(LibraryRows.passColumns)) VALUES (\(LibraryRows.passPlaceholders))")
                    .execute(arguments: try LibraryRows.passArguments(r, addedAt: now, updatedAt: now))
                try db.execute(sql: "DELETE FROM offer WHERE passTypeIdentifier = ? AND serialNumber = ? AND sha256 = ?",
                               arguments: [r.id.passTypeIdentifier, r.id.serialNumber, r.sha256])
                try LibraryRows.log(db, .add, r.id, sha256: r.sha256, at: now)
                added = true
            }
            return (try storedAfterWrite(db, r.id), added)
        }
    }

    /// PassKit's `replacePassWithPass`: only for an id already present. Keeps the replaced
    /// version (the newest `keptVersions`) for `revert` and returns what changed per field.
    /// Same bytes: no change, nothing logged. Refuses a stale pass (signed earlier than the stored
    /// one), another team's pass under the same id, invalid passes, and untrusted ones unless
    /// `allowUntrusted`.
    @discardableResult
    package func replace(with record: PassRecord, allowUntrusted: Bool = false) throws -> [FieldChange] {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "replace")
        return try write("replace") { db in
            guard let existing = try LibraryRows.fetchPass(db, r.id, path: path) else {
                throw LibraryError(.notFound, "replace: \(r.id) is not in the library", path: path)
            }
            return try replaceRow(db, existing: existing, with: r, operation: "replace") ?? []
        }
    }

    /// `replace` that says whether it replaced: nil when the library already holds these bytes
    /// (another process applied the same update first), else the field changes it logged.
    package func replaceIfChanged(with record: PassRecord, allowUntrusted: Bool = false) throws -> [FieldChange]? {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "update")
        return try write("update") { db in
            guard let existing = try LibraryRows.fetchPass(db, r.id, path: path) else {
                throw LibraryError(.notFound, "update: \(r.id) is not in the library", path: path)
            }
            return try replaceRow(db, existing: existing, with: r, operation: "update")
        }
    }

    /// Removes a pass and its earlier versions (only on the user's explicit command).
    package func remove(_ id: PassID) throws {
        try write("remove") { db in
            guard let existing = try LibraryRows.fetchIdentity(db, id) else {
                throw LibraryError(.notFound, "remove: \(id) is not in the library", path: path)
            }
            let keys: StatementArguments = [id.passTypeIdentifier, id.serialNumber]
            let versionDigests = try String.fetchAll(
                db, sql: "DELETE FROM pass_version WHERE passTypeIdentifier = ? AND serialNumber = ? RETURNING sha256",
                arguments: keys)
            try db.execute(sql: "DELETE FROM pass WHERE id = ?", arguments: [existing.rowID])
            // Validators belong to the removed version; a registration stays until `update`
            // has told the issuer (PassLibrary+WebService).
            try db.execute(sql: "DELETE FROM web_service_state WHERE passTypeIdentifier = ? AND serialNumber = ?", arguments: keys)
            for digest in Set(versionDigests + [existing.sha256]) {
                try LibraryRows.deleteBlobIfUnused(db, digest)
            }
            try LibraryRows.log(db, .remove, id, sha256: existing.sha256, at: options.now())
        }
    }

    package func pass(_ id: PassID) throws -> StoredPass? {
        try read("pass") { db in try LibraryRows.fetchPass(db, id, path: path) }
    }

    /// PassKit's `passWithPassTypeIdentifier:serialNumber:`.
    package func pass(typeIdentifier: String, serial: String) throws -> StoredPass? {
        try pass(PassID(passTypeIdentifier: typeIdentifier, serialNumber: serial))
    }

    /// Every pass, by relevant date (passes without one last), then by the time it was added.
    package func passes() throws -> [StoredPass] {
        try read("passes") { db in
            let decoder = JSONDecoder()
            let path = self.path
            // A cursor reads each row straight from the statement instead of copying it first.
            return try Array(Row.fetchCursor(db, sql: LibraryRows.selectPass + " ORDER BY relevantDate IS NULL, relevantDate, addedAt, id")
                .map { try LibraryRows.storedPass($0, decoder: decoder, path: path) })
        }
    }

    /// How many passes the library holds.
    package func count() throws -> Int {
        try read("count") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pass") ?? 0 }
    }

    /// The original .pkpass bytes, byte-identical (checked against the stored SHA-256).
    package func export(_ id: PassID) throws -> [UInt8] {
        let (digest, bytes) = try read("export") { db -> (String, [UInt8]) in
            guard !id.containsNUL, let row = try Row.fetchOne(db, sql: """
                SELECT p.sha256, b.bytes FROM pass p JOIN pass_blob b ON b.sha256 = p.sha256
                WHERE p.passTypeIdentifier = ? AND p.serialNumber = ?
                """, arguments: [id.passTypeIdentifier, id.serialNumber]) else {
                throw LibraryError(.notFound, "export: \(id) is not in the library", path: path)
            }
            let data: Data = row["bytes"]
            return (row["sha256"], [UInt8](data))
        }
        guard Digest.sha256Hex(bytes) == digest else {
            throw LibraryError(.notALibrary, "export: the stored bytes of \(id) are damaged (SHA-256 differs)", path: path)
        }
        return bytes
    }

    /// Undoes the last replace: the newest earlier version becomes current again and leaves the
    /// version list (so repeated reverts walk back through at most `keptVersions` versions).
    @discardableResult
    package func revert(_ id: PassID) throws -> StoredPass {
        try write("revert") { db in
            guard let existing = try LibraryRows.fetchIdentity(db, id) else {
                throw LibraryError(.notFound, "revert: \(id) is not in the library", path: path)
            }
            guard let version = try Row.fetchOne(db, sql: """
                SELECT id, sha256 FROM pass_version WHERE passTypeIdentifier = ? AND serialNumber = ?
                ORDER BY id DESC LIMIT 1
                """, arguments: [id.passTypeIdentifier, id.serialNumber]) else {
                throw LibraryError(.notFound, "revert: \(id) has no earlier version to go back to", path: path)
            }
            let versionID: Int64 = version["id"]
            let restored: String = version["sha256"]
            let now = options.now()
            let restoredColumns = """
                teamIdentifier, status, sha256, byteCount, organizationName, description, kind, relevantDate, \
                expirationDate, voided, signerSubject, signingTime, fields, sourceMessageID, sourceSubject, \
                sourceFile, sourceReceivedAt
                """
            try db.execute(sql: """
                UPDATE pass SET (\(restoredColumns)) = (SELECT \(restoredColumns) FROM pass_version WHERE id = ?),
                    updatedAt = ?
                WHERE id = ?
                """, arguments: [versionID, now.timeIntervalSince1970, existing.rowID])
            try db.execute(sql: "DELETE FROM pass_version WHERE id = ?", arguments: [versionID])
            try LibraryRows.deleteBlobIfUnused(db, existing.sha256)
            try LibraryRows.log(db, .revert, id, sha256: restored, at: now)
            return try storedAfterWrite(db, id)
        }
    }

    /// Turns what a person typed into a pass id: "passTypeIdentifier/serialNumber" (split at the
    /// first "/", as type identifiers have none), or a prefix of at least 4 hex digits of a stored
    /// pass's SHA-256, unique like git's short ids (`LibraryError.Kind.ambiguousID` otherwise).
    package func resolve(_ text: String) throws -> PassID {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let slash = trimmed.firstIndex(of: "/") {
            let id = PassID(passTypeIdentifier: String(trimmed[..<slash]),
                            serialNumber: String(trimmed[trimmed.index(after: slash)...]))
            let found = try read("resolve") { db in try LibraryRows.fetchIdentity(db, id) != nil }
            guard found else { throw LibraryError(.notFound, "no pass \(id) in the library", path: path) }
            return id
        }
        let prefix = trimmed.lowercased()
        guard prefix.utf8.count >= Self.minimumDigestPrefix, prefix.utf8.count <= 64,
              prefix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw LibraryError(.notFound,
                               "“\(trimmed)” is neither passTypeIdentifier/serialNumber nor a SHA-256 prefix of at least \(Self.minimumDigestPrefix) hex digits",
                               path: path)
        }
        // Every stored digest is lowercase hex, so those starting with `prefix` sort in
        // [prefix, prefix + "g"): the range uses the index.
        let matches = try read("resolve") { db in
            try Row.fetchAll(db, sql: """
                SELECT passTypeIdentifier, serialNumber, sha256 FROM pass
                WHERE sha256 >= ? AND sha256 < ? ORDER BY sha256 LIMIT 11
                """, arguments: [prefix, prefix + "g"])
        }
        switch matches.count {
        case 0:
            throw LibraryError(.notFound, "no pass in the library has a SHA-256 starting with \(prefix)", path: path)
        case 1:
            return PassID(passTypeIdentifier: matches[0]["passTypeIdentifier"], serialNumber: matches[0]["serialNumber"])
        default:
            let names = matches.prefix(10).map { row -> String in
                let digest: String = row["sha256"]
                return "\(row["passTypeIdentifier"] as String)/\(row["serialNumber"] as String) (\(digest.prefix(12)))"
            }
            throw LibraryError(.ambiguousID,
                               "SHA-256 prefix \(prefix) is ambiguous; it matches \(matches.count > 10 ? "more than 10 passes" : "\(matches.count) passes"): \(names.joined(separator: ", "))",
                               path: path)
        }
    }

    /// Git's shortest abbreviation.
    static var minimumDigestPrefix: Int { LibraryRules.minimumDigestPrefix }

    // MARK: - Shared steps

    /// Checks a record before any write (`LibraryRules.validated`).
    func validated(_ record: PassRecord, allowUntrusted: Bool, operation: String) throws -> PassRecord {
        try LibraryRules.validated(record, allowUntrusted: allowUntrusted, operation: operation,
                                   maxPassBytes: options.maxPassBytes, location: path)
    }

    /// Replaces the current row of `existing.id` with `r` inside the caller's transaction:
    /// keeps the replaced version, prunes to `keptVersions`, logs `.replace`.
    func replaceRow(_ db: Database, existing: StoredPass, with r: PassRecord, operation: String) throws -> [FieldChange]? {
        switch LibraryState.of(incomingSHA256: r.sha256, incomingSigningTime: r.signingTime,
                               storedSHA256: existing.sha256, storedSigningTime: existing.signingTime) {
        case .contained:
            return nil
        case .stale:
            throw LibraryError(.refused, "\(operation): \(r.id) was signed before the version in the library; keeping the newer one",
                               path: path)
        case .new, .update:
            break
        }
        guard existing.teamIdentifier == r.teamIdentifier else {
            throw LibraryError(.refused, "\(operation): \(r.id) belongs to team \(existing.teamIdentifier), not \(r.teamIdentifier)",
                               path: path)
        }
        let now = options.now()
        let keys: StatementArguments = [r.id.passTypeIdentifier, r.id.serialNumber]
        try LibraryRows.insertBlob(db, r)
        try db.execute(sql: """
            INSERT INTO pass_version (\(LibraryRows.passColumns), replacedAt)
            SELECT \(LibraryRows.passColumns), ? FROM pass WHERE passTypeIdentifier = ? AND serialNumber = ?
            """, arguments: [now.timeIntervalSince1970] + keys)
        var arguments = try LibraryRows.passArguments(r, addedAt: existing.addedAt, updatedAt: now)
        arguments += keys
        try db.execute(sql: """
            UPDATE pass SET (\(LibraryRows.passColumns)) = (\(LibraryRows.passPlaceholders))
            WHERE passTypeIdentifier = ? AND serialNumber = ?
            """, arguments: arguments)
        let pruned = try String.fetchAll(db, sql: """
            DELETE FROM pass_version WHERE passTypeIdentifier = ?1 AND serialNumber = ?2 AND id NOT IN
              (SELECT id FROM pass_version WHERE passTypeIdentifier = ?1 AND serialNumber = ?2 ORDER BY id DESC LIMIT ?3)
            RETURNING sha256
            """, arguments: keys + [max(0, options.keptVersions)])
        for digest in Set(pruned) {
            try LibraryRows.deleteBlobIfUnused(db, digest)
        }
        let changes = FieldChange.between(old: existing.fields, new: r.fields, voids: r.voided && !existing.voided)
        try LibraryRows.log(db, .replace, r.id, sha256: r.sha256, at: now, changes: changes)
        return changes
    }

    func storedAfterWrite(_ db: Database, _ id: PassID) throws -> StoredPass {
        guard let stored = try LibraryRows.fetchPass(db, id, path: path) else {
            throw LibraryError(.io, "\(id) vanished inside its own transaction", path: path)
        }
        return stored
    }
}
