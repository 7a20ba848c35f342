import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    @discardableResult
    package func stageOffer(_ record: PassRecord) async throws -> Offer {
        let r = try validated(record, allowUntrusted: true, operation: "offer")
        let location = self.location, now = options.now
        return try await write("offer") { tx in
            switch LibraryRules.stageOffer(r, existing: try await PostgresRows.fetchOffer(tx, passID: r.id, location: location), now: now) {
            case .keep(let existing):
                return existing
            case .update(let offerID, let row, let releasing, let log):
                try await PostgresRows.insertBlob(tx, r)
                try await tx.run("""
                    UPDATE passconduit.offer SET (\(PostgresRows.offerRowColumns)) = (\(PostgresRows.placeholders(OfferRow.columnCount, from: 3)))
                    WHERE "user" = $1 AND id = $2
                    """, [tx.user, offerID] + PostgresRows.values(row.values))
                try await PostgresRows.deleteBlobIfUnused(tx, releasing)
                try await PostgresRows.log(tx, log)
            case .insert(let row, let log):
                try await PostgresRows.insertBlob(tx, r)
                let offerID = try await tx.rows("""
                    UPDATE passconduit.library_user SET last_offer = last_offer + 1 WHERE name = $1 RETURNING last_offer
                    """, [tx.user])[0].decode(Int64.self)
                try await tx.run("""
                    INSERT INTO passconduit.offer ("user", \(PostgresRows.offerColumns)) VALUES (\(PostgresRows.placeholders(OfferRow.columnCount + 2)))
                    """, [tx.user, offerID] + PostgresRows.values(row.values))
                try await PostgresRows.log(tx, log)
            }
            guard let offer = try await PostgresRows.fetchOffer(tx, passID: r.id, location: location) else {
                throw LibraryRules.vanished("offer: \(r.id)", location: location)
            }
            return offer
        }
    }

    package func offers() async throws -> [Offer] {
        let location = self.location
        return try await read("offers") { tx in
            try await tx.rows(#"SELECT \#(PostgresRows.offerColumns) FROM passconduit.offer WHERE "user" = $1 ORDER BY created_at, id"#,
                              [tx.user]).map { try PostgresRows.offer($0, location: location) }
        }
    }

    package func offer(_ offerID: Int64) async throws -> Offer? {
        let location = self.location
        return try await read("offer") { tx in try await PostgresRows.fetchOffer(tx, offerID: offerID, location: location) }
    }

    package func offerBytes(_ offerID: Int64) async throws -> [UInt8] {
        let location = self.location
        let stored = try await read("offer bytes") { tx -> (sha256: String, bytes: [UInt8])? in
            guard let row = try await tx.rows("""
                SELECT o.sha256, b.bytes FROM passconduit.offer o JOIN passconduit.pass_blob b ON b."user" = o."user" AND b.sha256 = o.sha256
                WHERE o."user" = $1 AND o.id = $2
                """, [tx.user, offerID]).first else { return nil }
            let (sha256, buffer) = try row.decode((String, ByteBuffer).self)
            return (sha256, Array(buffer.readableBytesView))
        }
        return try LibraryRules.offerBytes(offerID, stored: stored, location: location)
    }

    @discardableResult
    package func acceptOffer(_ offerID: Int64, record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "accept")
        let location = self.location, now = options.now, step = replaceStep
        return try await write("accept") { tx in
            let offer = try await PostgresRows.fetchOffer(tx, offerID: offerID, location: location)
            let existing = offer == nil ? nil : try await PostgresRows.fetchPass(tx, r.id, location: location)
            switch try LibraryRules.accept(r, offerID: offerID, offer: offer, existing: existing, keptVersions: step.keptVersions,
                                           now: now, location: location) {
            case .replace(let plan):
                if let plan { _ = try await step.execute(tx, plan, r) }
            case .insert(let row, let log):
                try await Self.insertPass(tx, row)
                try await PostgresRows.log(tx, log)
            }
            try await tx.run(#"DELETE FROM passconduit.offer WHERE "user" = $1 AND id = $2"#, [tx.user, offerID])
            return try await Self.storedAfterWrite(tx, r.id, location: location)
        }
    }

    package func declineOffer(_ offerID: Int64) async throws {
        let location = self.location, now = options.now
        try await write("decline") { tx in
            let plan = try LibraryRules.decline(offerID, offer: try await PostgresRows.fetchOffer(tx, offerID: offerID, location: location),
                                                now: now, location: location)
            try await tx.run(#"DELETE FROM passconduit.offer WHERE "user" = $1 AND id = $2"#, [tx.user, offerID])
            try await PostgresRows.deleteBlobIfUnused(tx, plan.releasing)
            try await PostgresRows.log(tx, plan.log)
        }
    }
}
