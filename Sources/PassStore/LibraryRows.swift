import Foundation
import GRDB

/// SQL and row mapping shared by the library's operations. Internal: no `Database` or `Row`
/// leaves PassStore.
enum LibraryRows {
    /// The metadata columns `pass` and `pass_version` share, in this order.
    static let passColumns = """
        passTypeIdentifier, serialNumber, teamIdentifier, status, sha256, byteCount, \
        organizationName, description, kind, relevantDate, expirationDate, voided, signerSubject, \
        signingTime, fields, sourceMessageID, sourceSubject, sourceFile, sourceReceivedAt, addedAt, updatedAt
        """
    static let passPlaceholders = Array(repeating: "?", count: 21).joined(separator: ", ")

    static let offerColumns = """
        id, passTypeIdentifier, serialNumber, teamIdentifier, status, sha256, byteCount, \
        organizationName, description, kind, signingTime, sourceMessageID, sourceSubject, \
        sourceFile, sourceReceivedAt, createdAt
        """

    static func time(_ date: Date?) -> Double? { date?.timeIntervalSince1970 }
    static func date(_ seconds: Double?) -> Date? { seconds.map { Date(timeIntervalSince1970: $0) } }

    static func fieldsJSON(_ fields: [StoredField]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(fields), as: UTF8.self)
    }

    /// Arguments for `passColumns`, in order.
    static func passArguments(_ r: PassRecord, addedAt: Date, updatedAt: Date) throws -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            r.id.passTypeIdentifier, r.id.serialNumber, r.teamIdentifier, r.status.rawValue, r.sha256, r.bytes.count,
            r.organizationName, r.description, r.kind, time(r.relevantDate), time(r.expirationDate),
            r.voided, r.signerSubject, time(r.signingTime), try fieldsJSON(r.fields),
            r.source?.messageID, r.source?.subject, r.source?.file, time(r.source?.receivedAt),
            time(addedAt), time(updatedAt),
        ]
        return StatementArguments(values)
    }

    static func source(_ row: Row) -> PassSource? {
        guard let received: Double = row["sourceReceivedAt"] else { return nil }
        return PassSource(messageID: row["sourceMessageID"], subject: row["sourceSubject"],
                          file: row["sourceFile"], receivedAt: Date(timeIntervalSince1970: received))
    }

    /// Decodes a row of `selectPass`. Columns are read by position (`passColumns` order, then
    /// previousVersions): a lookup by name compares names column by column, which made listing
    /// 100 000 passes take seconds.
    static func storedPass(_ row: Row, decoder: JSONDecoder, path: String) throws -> StoredPass {
        let fieldsText: String = row[14]
        let fields: [StoredField]
        do {
            fields = try decoder.decode([StoredField].self, from: Data(fieldsText.utf8))
        } catch {
            throw LibraryError(.notALibrary, "the fields of a stored pass are damaged (\(error))", path: path)
        }
        let received: Double? = row[18]
        return StoredPass(
            id: PassID(passTypeIdentifier: row[0], serialNumber: row[1]),
            teamIdentifier: row[2], status: row[3], sha256: row[4], byteCount: row[5],
            organizationName: row[6], description: row[7], kind: row[8],
            relevantDate: date(row[9]), expirationDate: date(row[10]), voided: row[11],
            signerSubject: row[12], signingTime: date(row[13]), fields: fields,
            source: received.map { PassSource(messageID: row[15], subject: row[16], file: row[17],
                                              receivedAt: Date(timeIntervalSince1970: $0)) },
            addedAt: date(row[19]) ?? Date(timeIntervalSince1970: 0),
            updatedAt: date(row[20]) ?? Date(timeIntervalSince1970: 0),
            previousVersions: row[21])
    }

    static func offer(_ row: Row) -> Offer {
        Offer(offerID: row["id"],
              passID: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
              teamIdentifier: row["teamIdentifier"], status: row["status"], sha256: row["sha256"],
              byteCount: row["byteCount"], organizationName: row["organizationName"],
              description: row["description"], kind: row["kind"], signingTime: date(row["signingTime"]),
              source: source(row), createdAt: date(row["createdAt"]) ?? Date(timeIntervalSince1970: 0))
    }

    // MARK: - Queries used by several operations

    static let selectPass = """
        SELECT \(passColumns),
            (SELECT count(*) FROM pass_version v
              WHERE v.passTypeIdentifier = pass.passTypeIdentifier AND v.serialNumber = pass.serialNumber)
            AS previousVersions
        FROM pass
        """

    static func fetchPass(_ db: Database, _ id: PassID, path: String) throws -> StoredPass? {
        guard !id.containsNUL else { return nil }
        let statement = try db.cachedStatement(sql: selectPass + " WHERE passTypeIdentifier = ? AND serialNumber = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id.passTypeIdentifier, id.serialNumber]) else {
            return nil
        }
        return try storedPass(row, decoder: JSONDecoder(), path: path)
    }

    /// The stored digest and signing time of a pass, the only columns `contains` needs.
    static func fetchIdentity(_ db: Database, _ id: PassID) throws -> (rowID: Int64, sha256: String, signingTime: Date?)? {
        guard !id.containsNUL else { return nil }
        let statement = try db.cachedStatement(
            sql: "SELECT id, sha256, signingTime FROM pass WHERE passTypeIdentifier = ? AND serialNumber = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id.passTypeIdentifier, id.serialNumber]) else {
            return nil
        }
        return (row["id"], row["sha256"], date(row["signingTime"]))
    }

    static func fetchOffer(_ db: Database, offerID: Int64) throws -> Offer? {
        try Row.fetchOne(db, sql: "SELECT \(offerColumns) FROM offer WHERE id = ?", arguments: [offerID]).map(offer)
    }

    static func fetchOffer(_ db: Database, passID: PassID) throws -> Offer? {
        guard !passID.containsNUL else { return nil }
        return try Row.fetchOne(db, sql: "SELECT \(offerColumns) FROM offer WHERE passTypeIdentifier = ? AND serialNumber = ?",
                         arguments: [passID.passTypeIdentifier, passID.serialNumber]).map(offer)
    }

    static func insertBlob(_ db: Database, _ r: PassRecord) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO pass_blob (sha256, bytes) VALUES (?, ?) ON CONFLICT(sha256) DO NOTHING")
        try statement.execute(arguments: [r.sha256, Data(r.bytes)])
    }

    /// Deletes the blob once no pass, earlier version or offer refers to it.
    static func deleteBlobIfUnused(_ db: Database, _ sha256: String) throws {
        try db.execute(sql: """
            DELETE FROM pass_blob WHERE sha256 = ?1
              AND NOT EXISTS (SELECT 1 FROM pass WHERE sha256 = ?1)
              AND NOT EXISTS (SELECT 1 FROM pass_version WHERE sha256 = ?1)
              AND NOT EXISTS (SELECT 1 FROM offer WHERE sha256 = ?1)
            """, arguments: [sha256])
    }

    static func log(_ db: Database, _ kind: ChangeKind, _ id: PassID, sha256: String?, at: Date,
                    changes: [FieldChange] = []) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO change_log (kind, passTypeIdentifier, serialNumber, sha256, at) VALUES (?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [kind.rawValue, id.passTypeIdentifier, id.serialNumber, sha256,
                                          at.timeIntervalSince1970])
        guard !changes.isEmpty else { return }
        let sequence = db.lastInsertedRowID
        let field = try db.cachedStatement(sql: """
            INSERT INTO change_field (sequence, position, key, label, oldValue, newValue, message) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (position, change) in changes.enumerated() {
            try field.execute(arguments: [sequence, position, change.key, change.label, change.oldValue, change.newValue,
                                          change.message])
        }
    }
}
