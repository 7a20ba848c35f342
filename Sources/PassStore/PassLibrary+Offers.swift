import Foundation
import GRDB
import Support

extension PassLibrary {
    /// Stages a pass the delivery filter found, for the user to accept or decline later.
    /// One offer per pass id: the same bytes again return the existing offer (nothing logged);
    /// different content replaces the offer unless it was signed earlier than the staged one.
    /// Invalid passes are refused.
    @discardableResult
    package func stageOffer(_ record: PassRecord) throws -> Offer {
        let r = try validated(record, allowUntrusted: true, operation: "offer")
        return try write("offer") { db in
            let now = options.now()
            if let existing = try LibraryRows.fetchOffer(db, passID: r.id) {
                let state = LibraryState.of(incomingSHA256: r.sha256, incomingSigningTime: r.signingTime,
                                            storedSHA256: existing.sha256, storedSigningTime: existing.signingTime)
                guard state == .update else { return existing }
                try LibraryRows.insertBlob(db, r)
                try db.execute(sql: """
                    UPDATE offer SET teamIdentifier = ?, status = ?, sha256 = ?, byteCount = ?, organizationName = ?,
                        description = ?, kind = ?, signingTime = ?, sourceMessageID = ?, sourceSubject = ?,
                        sourceFile = ?, sourceReceivedAt = ?, createdAt = ?
                    WHERE id = ?
                    """, arguments: offerArguments(r, createdAt: now) + [existing.offerID])
                try LibraryRows.deleteBlobIfUnused(db, existing.sha256)
            } else {
                try LibraryRows.insertBlob(db, r)
                try db.execute(sql: """
                    INSERT INTO offer (teamIdentifier, status, sha256, byteCount, organizationName, description, kind,
                        signingTime, sourceMessageID, sourceSubject, sourceFile, sourceReceivedAt, createdAt,
                        passTypeIdentifier, serialNumber)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: offerArguments(r, createdAt: now) + [r.id.passTypeIdentifier, r.id.serialNumber])
            }
            try LibraryRows.log(db, .offer, r.id, sha256: r.sha256, at: now)
            guard let offer = try LibraryRows.fetchOffer(db, passID: r.id) else {
                throw LibraryError(.io, "offer: \(r.id) vanished inside its own transaction", path: path)
            }
            return offer
        }
    }

    /// Pending offers, oldest first.
    package func offers() throws -> [Offer] {
        try read("offers") { db in
            try Row.fetchAll(db, sql: "SELECT \(LibraryRows.offerColumns) FROM offer ORDER BY createdAt, id")
                .map(LibraryRows.offer)
        }
    }

    package func offer(_ offerID: Int64) throws -> Offer? {
        try read("offer") { db in try LibraryRows.fetchOffer(db, offerID: offerID) }
    }

    /// The staged .pkpass bytes, for the conduit to open and verify again before accepting.
    package func offerBytes(_ offerID: Int64) throws -> [UInt8] {
        let (digest, bytes) = try read("offer bytes") { db -> (String, [UInt8]) in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT o.sha256, b.bytes FROM offer o JOIN pass_blob b ON b.sha256 = o.sha256 WHERE o.id = ?
                """, arguments: [offerID]) else {
                throw LibraryError(.notFound, "there is no pending offer \(offerID)", path: path)
            }
            let data: Data = row["bytes"]
            return (row["sha256"], [UInt8](data))
        }
        guard Digest.sha256Hex(bytes) == digest else {
            throw LibraryError(.notALibrary, "the stored bytes of offer \(offerID) are damaged (SHA-256 differs)", path: path)
        }
        return bytes
    }

    /// The user accepted an offer: `record` is the offered pass opened again (its bytes must be
    /// the offer's). Adds it, or replaces the stored version when it is an update; the offer is
    /// settled in the same transaction. A stale offer is refused and stays pending.
    @discardableResult
    package func acceptOffer(_ offerID: Int64, record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "accept")
        return try write("accept") { db in
            guard let offer = try LibraryRows.fetchOffer(db, offerID: offerID) else {
                throw LibraryError(.notFound, "accept: there is no pending offer \(offerID)", path: path)
            }
            guard offer.passID == r.id, offer.sha256 == r.sha256 else {
                throw LibraryError(.refused, "accept: the pass given is not the one offer \(offerID) holds", path: path)
            }
            let now = options.now()
            if let existing = try LibraryRows.fetchPass(db, r.id, path: path) {
                _ = try replaceRow(db, existing: existing, with: r, operation: "accept")
            } else {
                try db.cachedStatement(sql: "INSERT INTO pass (\(LibraryRows.passColumns)) VALUES (\(LibraryRows.passPlaceholders))")
                    .execute(arguments: try LibraryRows.passArguments(r, addedAt: now, updatedAt: now))
                try LibraryRows.log(db, .add, r.id, sha256: r.sha256, at: now)
            }
            try db.execute(sql: "DELETE FROM offer WHERE id = ?", arguments: [offerID])
            return try storedAfterWrite(db, r.id)
        }
    }

    /// The user declined an offer: it and (unless something else uses them) its bytes go.
    package func declineOffer(_ offerID: Int64) throws {
        try write("decline") { db in
            guard let offer = try LibraryRows.fetchOffer(db, offerID: offerID) else {
                throw LibraryError(.notFound, "decline: there is no pending offer \(offerID)", path: path)
            }
            try db.execute(sql: "DELETE FROM offer WHERE id = ?", arguments: [offerID])
            try LibraryRows.deleteBlobIfUnused(db, offer.sha256)
            try LibraryRows.log(db, .decline, offer.passID, sha256: offer.sha256, at: options.now())
        }
    }

    private func offerArguments(_ r: PassRecord, createdAt: Date) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            r.teamIdentifier, r.status.rawValue, r.sha256, r.bytes.count, r.organizationName, r.description, r.kind,
            LibraryRows.time(r.signingTime), r.source?.messageID, r.source?.subject, r.source?.file,
            LibraryRows.time(r.source?.receivedAt), createdAt.timeIntervalSince1970,
        ]
        return StatementArguments(values)
    }
}
