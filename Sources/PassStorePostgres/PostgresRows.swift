import Foundation
import PassStore
import PostgresNIO

/// SQL and row mapping shared by the PostgreSQL library's operations (LibraryRows' counterpart).
enum PostgresRows {
    /// The metadata columns `pass` and `pass_version` share, in this order.
    static let passColumns = """
        pass_type_identifier, serial_number, team_identifier, status, sha256, byte_count, \
        organization_name, description, kind, relevant_date, expiration_date, voided, signer_subject, \
        signing_time, fields, source_message_id, source_subject, source_file, source_received_at, added_at, updated_at
        """

    static let offerColumns = """
        id, pass_type_identifier, serial_number, team_identifier, status, sha256, byte_count, \
        organization_name, description, kind, signing_time, source_message_id, source_subject, \
        source_file, source_received_at, created_at
        """

    static func time(_ date: Date?) -> Double? { date?.timeIntervalSince1970 }
    static func date(_ seconds: Double?) -> Date? { seconds.map { Date(timeIntervalSince1970: $0) } }

    static func fieldsJSON(_ fields: [StoredField]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(fields), as: UTF8.self)
    }

    /// `$first…` for `count` placeholders.
    static func placeholders(_ count: Int, from first: Int = 1) -> String {
        (first..<(first + count)).map { "$\($0)" }.joined(separator: ", ")
    }

    /// Values for `passColumns`, in order.
    static func passValues(_ r: PassRecord, addedAt: Date, updatedAt: Date) throws -> [PostgresTransaction.Value] {
        [
            r.id.passTypeIdentifier, r.id.serialNumber, r.teamIdentifier, r.status.rawValue, r.sha256, r.bytes.count,
            r.organizationName, r.description, r.kind, time(r.relevantDate), time(r.expirationDate),
            r.voided, r.signerSubject, time(r.signingTime), try fieldsJSON(r.fields),
            r.source?.messageID, r.source?.subject, r.source?.file, time(r.source?.receivedAt),
            time(addedAt), time(updatedAt),
        ]
    }

    /// The pass query: `passColumns` and the count of earlier versions.
    static let selectPass = """
        SELECT \(passColumns),
            (SELECT count(*) FROM passconduit.pass_version v
              WHERE v."user" = p."user" AND v.pass_type_identifier = p.pass_type_identifier
                AND v.serial_number = p.serial_number) AS previous_versions
        FROM passconduit.pass p
        """

    static func storedPass(_ row: PostgresRow, decoder: JSONDecoder, location: String) throws -> StoredPass {
        let (type, serial, team, status, sha256, byteCount, organization, description, kind, relevant, expiration,
             voided, signer, signing, fieldsText, messageID, subject, file, received, added, updated, versions)
            = try row.decode((String, String, String, String, String, Int, String, String, String, Double?, Double?,
                              Bool, String?, Double?, String, String?, String?, String?, Double?, Double, Double, Int).self)
        let fields: [StoredField]
        do {
            fields = try decoder.decode([StoredField].self, from: Data(fieldsText.utf8))
        } catch {
            throw LibraryError(.notALibrary, "the fields of a stored pass are damaged (\(error))", path: location)
        }
        return StoredPass(
            id: PassID(passTypeIdentifier: type, serialNumber: serial), teamIdentifier: team, status: status,
            sha256: sha256, byteCount: byteCount, organizationName: organization, description: description, kind: kind,
            relevantDate: date(relevant), expirationDate: date(expiration), voided: voided, signerSubject: signer,
            signingTime: date(signing), fields: fields,
            source: received.map { PassSource(messageID: messageID, subject: subject, file: file, receivedAt: Date(timeIntervalSince1970: $0)) },
            addedAt: Date(timeIntervalSince1970: added), updatedAt: Date(timeIntervalSince1970: updated),
            previousVersions: versions)
    }

    static func offer(_ row: PostgresRow) throws -> Offer {
        let (id, type, serial, team, status, sha256, byteCount, organization, description, kind, signing,
             messageID, subject, file, received, created)
            = try row.decode((Int64, String, String, String, String, String, Int, String, String, String, Double?,
                              String?, String?, String?, Double?, Double).self)
        return Offer(offerID: id, passID: PassID(passTypeIdentifier: type, serialNumber: serial), teamIdentifier: team,
                     status: status, sha256: sha256, byteCount: byteCount, organizationName: organization,
                     description: description, kind: kind, signingTime: date(signing),
                     source: received.map { PassSource(messageID: messageID, subject: subject, file: file, receivedAt: Date(timeIntervalSince1970: $0)) },
                     createdAt: Date(timeIntervalSince1970: created))
    }

    // MARK: - Queries used by several operations

    static func fetchPass(_ tx: PostgresTransaction, _ id: PassID, location: String) async throws -> StoredPass? {
        guard !id.containsNUL else { return nil }
        let rows = try await tx.rows(selectPass + #" WHERE p."user" = $1 AND p.pass_type_identifier = $2 AND p.serial_number = $3"#,
                                     [tx.user, id.passTypeIdentifier, id.serialNumber])
        return try rows.first.map { try storedPass($0, decoder: JSONDecoder(), location: location) }
    }

    static func fetchIdentity(_ tx: PostgresTransaction, _ id: PassID) async throws -> (rowID: Int64, sha256: String, signingTime: Date?)? {
        guard !id.containsNUL else { return nil }
        let rows = try await tx.rows(#"SELECT id, sha256, signing_time FROM passconduit.pass WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#,
                                     [tx.user, id.passTypeIdentifier, id.serialNumber])
        guard let row = rows.first else { return nil }
        let (rowID, sha256, signing) = try row.decode((Int64, String, Double?).self)
        return (rowID, sha256, date(signing))
    }

    static func fetchOffer(_ tx: PostgresTransaction, offerID: Int64) async throws -> Offer? {
        try await tx.rows(#"SELECT \#(offerColumns) FROM passconduit.offer WHERE "user" = $1 AND id = $2"#, [tx.user, offerID])
            .first.map(offer)
    }

    static func fetchOffer(_ tx: PostgresTransaction, passID: PassID) async throws -> Offer? {
        guard !passID.containsNUL else { return nil }
        return try await tx.rows(#"SELECT \#(offerColumns) FROM passconduit.offer WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#,
                                 [tx.user, passID.passTypeIdentifier, passID.serialNumber]).first.map(offer)
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
    static func log(_ tx: PostgresTransaction, _ kind: ChangeKind, _ id: PassID, sha256: String?, at: Date,
                    changes: [FieldChange] = []) async throws {
        let rows = try await tx.rows("""
            UPDATE passconduit.library_user SET last_sequence = last_sequence + 1 WHERE name = $1 RETURNING last_sequence
            """, [tx.user])
        let sequence = try rows[0].decode(Int64.self)
        try await tx.run("""
            INSERT INTO passconduit.change_log ("user", sequence, kind, pass_type_identifier, serial_number, sha256, at)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """, [tx.user, sequence, kind.rawValue, id.passTypeIdentifier, id.serialNumber, sha256, at.timeIntervalSince1970])
        for (position, change) in changes.enumerated() {
            try await tx.run("""
                INSERT INTO passconduit.change_field ("user", sequence, position, key, label, old_value, new_value, message)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """, [tx.user, sequence, position, change.key, change.label, change.oldValue, change.newValue, change.message])
        }
        try await tx.run("SELECT pg_notify($1, $2)", [PostgresLibrary.channel, tx.user])
    }
}
