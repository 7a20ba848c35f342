import Foundation
import GRDB
import PassStore

extension PassLibrary {
    /// Stages a pass the delivery filter found, for the user to accept or decline later.
    /// One offer per pass id: the same bytes again return the existing offer (nothing logged);
    /// different content replaces the offer unless it was signed earlier than the staged one.
    /// Invalid passes are refused.
    @discardableResult
    package func stageOffer(_ record: PassRecord) throws -> Offer {
        let r = try validated(record, allowUntrusted: true, operation: "offer")
        return try write("offer") { db in
            switch LibraryRules.stageOffer(r, existing: try LibraryRows.fetchOffer(db, passID: r.id, path: path), now: options.now) {
            case .keep(let existing):
                return existing
            case .update(let offerID, let row, let releasing, let log):
                try LibraryRows.insertBlob(db, r)
                try db.execute(sql: "UPDATE offer SET (\(LibraryRows.offerRowColumns)) = (\(LibraryRows.offerRowPlaceholders)) WHERE id = ?",
                               arguments: LibraryRows.arguments(row.values) + [offerID])
                try LibraryRows.deleteBlobIfUnused(db, releasing)
                try LibraryRows.log(db, log)
            case .insert(let row, let log):
                try LibraryRows.insertBlob(db, r)
                try db.execute(sql: "INSERT INTO offer (\(LibraryRows.offerRowColumns)) VALUES (\(LibraryRows.offerRowPlaceholders))",
                               arguments: LibraryRows.arguments(row.values))
                try LibraryRows.log(db, log)
            }
            guard let offer = try LibraryRows.fetchOffer(db, passID: r.id, path: path) else {
                throw LibraryRules.vanished("offer: \(r.id)", location: path)
            }
            return offer
        }
    }

    /// Pending offers, oldest first.
    package func offers() throws -> [Offer] {
        try read("offers") { db in
            try Row.fetchAll(db, sql: "SELECT \(LibraryRows.offerColumns) FROM offer ORDER BY createdAt, id")
                .map { try LibraryRows.offer($0, path: path) }
        }
    }

    package func offer(_ offerID: Int64) throws -> Offer? {
        try read("offer") { db in try LibraryRows.fetchOffer(db, offerID: offerID, path: path) }
    }

    /// The staged .pkpass bytes, for the conduit to open and verify again before accepting.
    package func offerBytes(_ offerID: Int64) throws -> [UInt8] {
        let stored = try read("offer bytes") { db -> (sha256: String, bytes: [UInt8])? in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT o.sha256, b.bytes FROM offer o JOIN pass_blob b ON b.sha256 = o.sha256 WHERE o.id = ?
                """, arguments: [offerID]) else { return nil }
            let data: Data = row["bytes"]
            return (row["sha256"], [UInt8](data))
        }
        return try LibraryRules.offerBytes(offerID, stored: stored, location: path)
    }

    /// The user accepted an offer: `record` is the offered pass opened again (its bytes must be
    /// the offer's). Adds it, or replaces the stored version when it is an update; the offer is
    /// settled in the same transaction. A stale offer is refused and stays pending.
    @discardableResult
    package func acceptOffer(_ offerID: Int64, record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "accept")
        return try write("accept") { db in
            let offer = try LibraryRows.fetchOffer(db, offerID: offerID, path: path)
            let existing = try offer == nil ? nil : LibraryRows.fetchPass(db, r.id, path: path)
            switch try LibraryRules.accept(r, offerID: offerID, offer: offer, existing: existing, keptVersions: options.keptVersions,
                                           now: options.now, location: path) {
            case .replace(let plan):
                if let plan { _ = try execute(db, plan, r) }
            case .insert(let row, let log):
                try insertPass(db, row)
                try LibraryRows.log(db, log)
            }
            try db.execute(sql: "DELETE FROM offer WHERE id = ?", arguments: [offerID])
            return try storedAfterWrite(db, r.id)
        }
    }

    /// The user declined an offer: it and (unless something else uses them) its bytes go.
    package func declineOffer(_ offerID: Int64) throws {
        try write("decline") { db in
            let plan = try LibraryRules.decline(offerID, offer: try LibraryRows.fetchOffer(db, offerID: offerID, path: path),
                                                now: options.now, location: path)
            try db.execute(sql: "DELETE FROM offer WHERE id = ?", arguments: [offerID])
            try LibraryRows.deleteBlobIfUnused(db, plan.releasing)
            try LibraryRows.log(db, plan.log)
        }
    }
}
