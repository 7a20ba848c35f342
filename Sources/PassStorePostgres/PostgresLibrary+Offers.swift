import Foundation
import Support
import PassStore
import PostgresNIO

extension PostgresLibrary {
    @discardableResult
    package func stageOffer(_ record: PassRecord) async throws -> Offer {
        let r = try validated(record, allowUntrusted: true, operation: "offer")
        let location = self.location, now = options.now
        return try await write("offer") { tx in
            let at = now()
            if let existing = try await PostgresRows.fetchOffer(tx, passID: r.id) {
                let state = LibraryState.of(incomingSHA256: r.sha256, incomingSigningTime: r.signingTime,
                                            storedSHA256: existing.sha256, storedSigningTime: existing.signingTime)
                guard state == .update else { return existing }
                try await PostgresRows.insertBlob(tx, r)
                try await tx.run("""
                    UPDATE passconduit.offer SET team_identifier = $3, status = $4, sha256 = $5, byte_count = $6,
                        organization_name = $7, description = $8, kind = $9, signing_time = $10, source_message_id = $11,
                        source_subject = $12, source_file = $13, source_received_at = $14, created_at = $15
                    WHERE "user" = $1 AND id = $2
                    """, [tx.user, existing.offerID] + Self.offerValues(r, createdAt: at))
                try await PostgresRows.deleteBlobIfUnused(tx, existing.sha256)
            } else {
                try await PostgresRows.insertBlob(tx, r)
                let offerID = try await tx.rows("""
                    UPDATE passconduit.library_user SET last_offer = last_offer + 1 WHERE name = $1 RETURNING last_offer
                    """, [tx.user])[0].decode(Int64.self)
                try await tx.run("""
                    INSERT INTO passconduit.offer ("user", id, team_identifier, status, sha256, byte_count, organization_name,
                        description, kind, signing_time, source_message_id, source_subject, source_file, source_received_at,
                        created_at, pass_type_identifier, serial_number)
                    VALUES (\(PostgresRows.placeholders(17)))
                    """, [tx.user, offerID] + Self.offerValues(r, createdAt: at) + [r.id.passTypeIdentifier, r.id.serialNumber])
            }
            try await PostgresRows.log(tx, .offer, r.id, sha256: r.sha256, at: at)
            guard let offer = try await PostgresRows.fetchOffer(tx, passID: r.id) else {
                throw LibraryError(.io, "offer: \(r.id) vanished inside its own transaction", path: location)
            }
            return offer
        }
    }

    package func offers() async throws -> [Offer] {
        try await read("offers") { tx in
            try await tx.rows(#"SELECT \#(PostgresRows.offerColumns) FROM passconduit.offer WHERE "user" = $1 ORDER BY created_at, id"#,
                              [tx.user]).map(PostgresRows.offer)
        }
    }

    package func offer(_ offerID: Int64) async throws -> Offer? {
        try await read("offer") { tx in try await PostgresRows.fetchOffer(tx, offerID: offerID) }
    }

    package func offerBytes(_ offerID: Int64) async throws -> [UInt8] {
        let location = self.location
        let (digest, bytes) = try await read("offer bytes") { tx -> (String, [UInt8]) in
            guard let row = try await tx.rows("""
                SELECT o.sha256, b.bytes FROM passconduit.offer o JOIN passconduit.pass_blob b ON b."user" = o."user" AND b.sha256 = o.sha256
                WHERE o."user" = $1 AND o.id = $2
                """, [tx.user, offerID]).first else {
                throw LibraryError(.notFound, "there is no pending offer \(offerID)", path: location)
            }
            let (sha256, buffer) = try row.decode((String, ByteBuffer).self)
            return (sha256, Array(buffer.readableBytesView))
        }
        guard Digest.sha256Hex(bytes) == digest else {
            throw LibraryError(.notALibrary, "the stored bytes of offer \(offerID) are damaged (SHA-256 differs)", path: location)
        }
        return bytes
    }

    @discardableResult
    package func acceptOffer(_ offerID: Int64, record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "accept")
        let location = self.location, now = options.now, step = replaceStep
        return try await write("accept") { tx in
            guard let offer = try await PostgresRows.fetchOffer(tx, offerID: offerID) else {
                throw LibraryError(.notFound, "accept: there is no pending offer \(offerID)", path: location)
            }
            guard offer.passID == r.id, offer.sha256 == r.sha256 else {
                throw LibraryError(.refused, "accept: the pass given is not the one offer \(offerID) holds", path: location)
            }
            if let existing = try await PostgresRows.fetchPass(tx, r.id, location: location) {
                _ = try await step.run(tx, existing: existing, with: r, operation: "accept")
            } else {
                let at = now()
                try await Self.insertPass(tx, r, at: at)
                try await PostgresRows.log(tx, .add, r.id, sha256: r.sha256, at: at)
            }
            try await tx.run(#"DELETE FROM passconduit.offer WHERE "user" = $1 AND id = $2"#, [tx.user, offerID])
            return try await Self.storedAfterWrite(tx, r.id, location: location)
        }
    }

    package func declineOffer(_ offerID: Int64) async throws {
        let location = self.location, now = options.now
        try await write("decline") { tx in
            guard let offer = try await PostgresRows.fetchOffer(tx, offerID: offerID) else {
                throw LibraryError(.notFound, "decline: there is no pending offer \(offerID)", path: location)
            }
            try await tx.run(#"DELETE FROM passconduit.offer WHERE "user" = $1 AND id = $2"#, [tx.user, offerID])
            try await PostgresRows.deleteBlobIfUnused(tx, offer.sha256)
            try await PostgresRows.log(tx, .decline, offer.passID, sha256: offer.sha256, at: now())
        }
    }

    /// Values for the offer columns from team_identifier to created_at, in that order.
    static func offerValues(_ r: PassRecord, createdAt: Date) -> [PostgresTransaction.Value] {
        [
            r.teamIdentifier, r.status.rawValue, r.sha256, r.bytes.count, r.organizationName, r.description, r.kind,
            PostgresRows.time(r.signingTime), r.source?.messageID, r.source?.subject, r.source?.file,
            PostgresRows.time(r.source?.receivedAt), createdAt.timeIntervalSince1970,
        ]
    }
}
