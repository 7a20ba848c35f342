import Foundation
import PassStore
import PostgresNIO

/// SQL and row mapping shared by the PostgreSQL library's operations (LibraryRows' counterpart).
enum PostgresRows {
    /// The metadata columns `pass` and `pass_version` share, in this order.
    static let passColumns = """
        pass_type_identifier, serial_number, team_identifier, status, sha256, byte_count, \
        organization_name, description, kind, relevant_date, expiration_date, voided, signer_subject, \
        signing_time, fields, source_message_id, source_subject, source_file, source_received_at, added_at, updated_at, \
        source_network, source_room, source_event_id, source_sender
        """

    /// The offer columns after `id` (`OfferRow`'s), in this order.
    static let offerRowColumns = """
        pass_type_identifier, serial_number, team_identifier, status, sha256, byte_count, \
        organization_name, description, kind, signing_time, source_message_id, source_subject, \
        source_file, source_received_at, created_at, source_network, source_room, source_event_id, source_sender
        """
    static let offerColumns = "id, " + offerRowColumns

    static func time(_ date: Date?) -> Double? { PassRow.time(date) }
    static func date(_ seconds: Double?) -> Date? { PassRow.date(seconds) }

    /// `$first…` for `count` placeholders.
    static func placeholders(_ count: Int, from first: Int = 1) -> String {
        (first..<(first + count)).map { "$\($0)" }.joined(separator: ", ")
    }

    /// `values` as postgres-nio binds them.
    static func values(_ values: [ColumnValue]) -> [PostgresTransaction.Value] {
        values.map { value -> PostgresTransaction.Value in
            switch value {
            case .text(let text): text
            case .integer(let number): number.map(Int.init)
            case .real(let number): number
            case .bool(let flag): flag
            }
        }
    }

    /// A row read column by column (`PassRow`, `OfferRow`).
    struct Columns: ColumnReader {
        let row: PostgresRandomAccessRow
        var index: Int

        init(_ row: PostgresRow, from index: Int = 0) {
            self.row = row.makeRandomAccess()
            self.index = index
        }

        private mutating func next<T: PostgresDecodable>(_ type: T.Type) throws -> T {
            defer { index += 1 }
            return try row[index].decode(type)
        }
        mutating func text() throws -> String { try next(String.self) }
        mutating func optionalText() throws -> String? { try next(String?.self) }
        mutating func integer() throws -> Int { try next(Int.self) }
        mutating func optionalReal() throws -> Double? { try next(Double?.self) }
        mutating func bool() throws -> Bool { try next(Bool.self) }
    }

    /// The pass query: `passColumns` and the count of earlier versions.
    static let selectPass = """
        SELECT \(passColumns),
            (SELECT count(*) FROM passconduit.pass_version v
              WHERE v."user" = p."user" AND v.pass_type_identifier = p.pass_type_identifier
                AND v.serial_number = p.serial_number) AS previous_versions
        FROM passconduit.pass p
        """

    /// Decodes a row of `selectPass` (`passColumns`, then the count of earlier versions).
    static func storedPass(_ row: PostgresRow, decoder: JSONDecoder, location: String) throws -> StoredPass {
        var columns = Columns(row)
        let pass = try PassRow(reading: &columns)
        return try pass.storedPass(previousVersions: try columns.integer(), decoder: decoder, location: location)
    }

    /// Decodes a row of `offerColumns`.
    static func offer(_ row: PostgresRow, location: String) throws -> Offer {
        var columns = Columns(row)
        return try OfferRow.offer(reading: &columns, location: location)
    }

    // MARK: - Queries used by several operations

    static func fetchPass(_ tx: PostgresTransaction, _ id: PassID, location: String) async throws -> StoredPass? {
        guard !id.containsNUL else { return nil }
        let rows = try await tx.rows(selectPass + #" WHERE p."user" = $1 AND p.pass_type_identifier = $2 AND p.serial_number = $3"#,
                                     [tx.user, id.passTypeIdentifier, id.serialNumber])
        return try rows.first.map { try storedPass($0, decoder: JSONDecoder(), location: location) }
    }

    static func fetchIdentity(_ tx: PostgresTransaction, _ id: PassID) async throws -> LibraryRules.StoredIdentity? {
        guard !id.containsNUL else { return nil }
        let rows = try await tx.rows(#"SELECT id, sha256, signing_time FROM passconduit.pass WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#,
                                     [tx.user, id.passTypeIdentifier, id.serialNumber])
        guard let row = rows.first else { return nil }
        let (rowID, sha256, signing) = try row.decode((Int64, String, Double?).self)
        return LibraryRules.StoredIdentity(rowID: rowID, sha256: sha256, signingTime: date(signing))
    }

    static func fetchOffer(_ tx: PostgresTransaction, offerID: Int64, location: String) async throws -> Offer? {
        try await tx.rows(#"SELECT \#(offerColumns) FROM passconduit.offer WHERE "user" = $1 AND id = $2"#, [tx.user, offerID])
            .first.map { try offer($0, location: location) }
    }

    static func fetchOffer(_ tx: PostgresTransaction, passID: PassID, location: String) async throws -> Offer? {
        guard !passID.containsNUL else { return nil }
        return try await tx.rows(#"SELECT \#(offerColumns) FROM passconduit.offer WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#,
                                 [tx.user, passID.passTypeIdentifier, passID.serialNumber]).first.map { try offer($0, location: location) }
    }

    static func insertBlob(_ tx: PostgresTransaction, _ r: PassRecord) async throws {
        try await tx.run(#"INSERT INTO passconduit.pass_blob ("user", sha256, bytes) VALUES ($1, $2, $3) ON CONFLICT ("user", sha256) DO NOTHING"#,
                         [tx.user, r.sha256, ByteBuffer(bytes: r.bytes)])
    }

    /// Deletes the blob once no pass, earlier version or offer of the user refers to it.
    static func deleteBlobIfUnused(_ tx: PostgresTransaction, _ sha256: String) async throws {
        try await tx.run("""
            DELETE FROM passconduit.pass_blob b WHERE b."user" = $1 AND b.sha256 = $2
              AND NOT EXISTS (SELECT 1 FROM passconduit.pass WHERE "user" = $1 AND sha256 = $2)
              AND NOT EXISTS (SELECT 1 FROM passconduit.pass_version WHERE "user" = $1 AND sha256 = $2)
              AND NOT EXISTS (SELECT 1 FROM passconduit.offer WHERE "user" = $1 AND sha256 = $2)
            """, [tx.user, sha256])
    }

    /// Appends a change-log entry with the user's next sequence number (taken under the user's
    /// lock, so numbers commit in order and are never reused) and notifies followers on commit.
    static func log(_ tx: PostgresTransaction, _ entry: LibraryRules.LogEntry) async throws {
        let rows = try await tx.rows("""
            UPDATE passconduit.library_user SET last_sequence = last_sequence + 1 WHERE name = $1 RETURNING last_sequence
            """, [tx.user])
        let sequence = try rows[0].decode(Int64.self)
        try await tx.run("""
            INSERT INTO passconduit.change_log ("user", sequence, kind, pass_type_identifier, serial_number, sha256, at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [tx.user, sequence, entry.kind.rawValue, entry.id.passTypeIdentifier, entry.id.serialNumber, entry.sha256,
                  entry.at.timeIntervalSince1970])
        for (position, change) in entry.changes.enumerated() {
            try await tx.run("""
                INSERT INTO passconduit.change_field ("user", sequence, position, key, label, old_value, new_value, message)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """, [tx.user, sequence, position, change.key, change.label, change.oldValue, change.newValue, change.message])
        }
        if let notice = entry.notice { _ = try await insertNotice(tx, notice, createdAt: entry.at) }
        try await tx.run("SELECT pg_notify($1, $2)", [PostgresLibrary.channel, tx.user])
    }

    /// Records a notice under the user's next notice number (the caller holds the user's lock);
    /// a reminder already recorded for its (pass, event time) is left as it is, and its number
    /// is not taken. Whether a row was added.
    static func insertNotice(_ tx: PostgresTransaction, _ notice: NoticeDraft, createdAt: Date) async throws -> Bool {
        if notice.eventAt != nil, !(try await tx.rows("""
            SELECT 1 FROM passconduit.notice WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
              AND kind = $4 AND event_at = $5
            """, [tx.user, notice.passID.passTypeIdentifier, notice.passID.serialNumber, notice.kind.rawValue,
                  notice.eventAt?.timeIntervalSince1970]).isEmpty) {
            return false
        }
        let id = try await tx.rows("""
            UPDATE passconduit.library_user SET last_notice = last_notice + 1 WHERE name = $1 RETURNING last_notice
            """, [tx.user])[0].decode(Int64.self)
        let rows = try await tx.rows("""
            INSERT INTO passconduit.notice ("user", id, pass_type_identifier, serial_number, kind, text, due_at, event_at, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id
            """, [tx.user, id, notice.passID.passTypeIdentifier, notice.passID.serialNumber, notice.kind.rawValue, notice.text,
                  notice.due.timeIntervalSince1970, notice.eventAt?.timeIntervalSince1970, createdAt.timeIntervalSince1970])
        return !rows.isEmpty
    }
}
