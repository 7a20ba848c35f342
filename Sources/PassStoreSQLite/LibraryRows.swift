import Foundation
import GRDB
import PassStore

/// SQL and row mapping shared by the library's operations. Internal: no `Database` or `Row`
/// leaves PassStoreSQLite.
enum LibraryRows {
    /// The metadata columns `pass` and `pass_version` share, in this order.
    static let passColumns = """
        passTypeIdentifier, serialNumber, teamIdentifier, status, sha256, byteCount, \
        organizationName, description, kind, relevantDate, expirationDate, voided, signerSubject, \
        signingTime, fields, sourceMessageID, sourceSubject, sourceFile, sourceReceivedAt, addedAt, updatedAt, \
        sourceNetwork, sourceRoom, sourceEventID, sourceSender
        """
    static let passPlaceholders = Array(repeating: "?", count: PassRow.columnCount).joined(separator: ", ")

    /// The offer columns after `id` (`OfferRow`'s), in this order.
    static let offerRowColumns = """
        passTypeIdentifier, serialNumber, teamIdentifier, status, sha256, byteCount, \
        organizationName, description, kind, signingTime, sourceMessageID, sourceSubject, \
        sourceFile, sourceReceivedAt, createdAt, sourceNetwork, sourceRoom, sourceEventID, sourceSender
        """
    static let offerColumns = "id, " + offerRowColumns
    static let offerRowPlaceholders = Array(repeating: "?", count: OfferRow.columnCount).joined(separator: ", ")

    static func time(_ date: Date?) -> Double? { PassRow.time(date) }
    static func date(_ seconds: Double?) -> Date? { PassRow.date(seconds) }

    /// `values` as GRDB binds them.
    static func arguments(_ values: [ColumnValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .text(let text): text
            case .integer(let number): number
            case .real(let number): number
            case .bool(let flag): flag
            }
        })
    }

    /// A row read by position (`PassRow`, `OfferRow`): a lookup by name compares names column by
    /// column, which made listing 100 000 passes take seconds.
    struct Columns: ColumnReader {
        let row: Row
        var index: Int

        init(_ row: Row, from index: Int = 0) {
            self.row = row
            self.index = index
        }

        private mutating func next<T: DatabaseValueConvertible>() -> T {
            defer { index += 1 }
            return row[index]
        }
        private mutating func nextOptional<T: DatabaseValueConvertible>() -> T? {
            defer { index += 1 }
            return row[index]
        }
        mutating func text() -> String { next() }
        mutating func optionalText() -> String? { nextOptional() }
        mutating func integer() -> Int { next() }
        mutating func optionalReal() -> Double? { nextOptional() }
        mutating func bool() -> Bool { next() }
    }

    /// Decodes a row of `selectPass` (`passColumns`, then previousVersions).
    static func storedPass(_ row: Row, decoder: JSONDecoder, path: String) throws -> StoredPass {
        var columns = Columns(row)
        return try PassRow(reading: &columns)
            .storedPass(previousVersions: row[PassRow.columnCount], decoder: decoder, location: path)
    }

    /// Decodes a row of `offerColumns`.
    static func offer(_ row: Row, path: String) throws -> Offer {
        var columns = Columns(row)
        return try OfferRow.offer(reading: &columns, location: path)
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
    static func fetchIdentity(_ db: Database, _ id: PassID) throws -> LibraryRules.StoredIdentity? {
        guard !id.containsNUL else { return nil }
        let statement = try db.cachedStatement(
            sql: "SELECT id, sha256, signingTime FROM pass WHERE passTypeIdentifier = ? AND serialNumber = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id.passTypeIdentifier, id.serialNumber]) else {
            return nil
        }
        return LibraryRules.StoredIdentity(rowID: row["id"], sha256: row["sha256"], signingTime: date(row["signingTime"]))
    }

    static func fetchOffer(_ db: Database, offerID: Int64, path: String) throws -> Offer? {
        try Row.fetchOne(db, sql: "SELECT \(offerColumns) FROM offer WHERE id = ?", arguments: [offerID]).map { try offer($0, path: path) }
    }

    static func fetchOffer(_ db: Database, passID: PassID, path: String) throws -> Offer? {
        guard !passID.containsNUL else { return nil }
        return try Row.fetchOne(db, sql: "SELECT \(offerColumns) FROM offer WHERE passTypeIdentifier = ? AND serialNumber = ?",
                         arguments: [passID.passTypeIdentifier, passID.serialNumber]).map { try offer($0, path: path) }
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

    static func log(_ db: Database, _ entry: LibraryRules.LogEntry) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO change_log (kind, passTypeIdentifier, serialNumber, sha256, at) VALUES (?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [entry.kind.rawValue, entry.id.passTypeIdentifier, entry.id.serialNumber, entry.sha256,
                                          entry.at.timeIntervalSince1970])
        guard !entry.changes.isEmpty else { return }
        let sequence = db.lastInsertedRowID
        if let notice = entry.notice { try insertNotice(db, notice, createdAt: entry.at) }
        let field = try db.cachedStatement(sql: """
            INSERT INTO change_field (sequence, position, key, label, oldValue, newValue, message) VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for (position, change) in entry.changes.enumerated() {
            try field.execute(arguments: [sequence, position, change.key, change.label, change.oldValue, change.newValue,
                                          change.message])
        }
    }

    /// Records a notice; a reminder already recorded for its (pass, event time) is left as it
    /// is. Whether a row was added: `db.changesCount`.
    static func insertNotice(_ db: Database, _ notice: NoticeDraft, createdAt: Date) throws {
        try db.execute(sql: """
            INSERT INTO notice (passTypeIdentifier, serialNumber, kind, text, dueAt, eventAt, createdAt)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """, arguments: [notice.passID.passTypeIdentifier, notice.passID.serialNumber, notice.kind.rawValue,
                             notice.text, notice.due.timeIntervalSince1970, notice.eventAt?.timeIntervalSince1970,
                             createdAt.timeIntervalSince1970])
    }
}
