import Foundation

/// A row of `pass` or `pass_version` as both backends store it: the one place that says which
/// column holds which field of a pass. SQLite (`LibraryRows`) and PostgreSQL (`PostgresRows`)
/// only name the columns in their own SQL, bind `values` in this order, and read a row back
/// through `init(reading:)`; `storedPass` builds the `StoredPass`.
package struct PassRow: Sendable {
    package var passTypeIdentifier: String
    package var serialNumber: String
    package var teamIdentifier: String
    package var status: String
    package var sha256: String
    package var byteCount: Int
    package var organizationName: String
    package var description: String
    package var kind: String
    /// Seconds since 1970, as every time in the library is stored.
    package var relevantDate: Double?
    package var expirationDate: Double?
    package var voided: Bool
    package var signerSubject: String?
    package var signingTime: Double?
    /// The fields as JSON (sorted keys).
    package var fields: String
    package var sourceMessageID: String?
    package var sourceSubject: String?
    package var sourceFile: String?
    package var sourceReceivedAt: Double?
    package var addedAt: Double
    package var updatedAt: Double
    /// The chat columns (schema v5), after the times so the older columns keep their positions.
    package var sourceNetwork: String?
    package var sourceRoom: String?
    package var sourceEventID: String?
    package var sourceSender: String?

    /// How many columns `values` and `init(reading:)` have.
    package static let columnCount = 25

    /// The row a record is stored as.
    package init(_ r: PassRecord, addedAt: Date, updatedAt: Date) throws {
        passTypeIdentifier = r.id.passTypeIdentifier
        serialNumber = r.id.serialNumber
        teamIdentifier = r.teamIdentifier
        status = r.status.rawValue
        sha256 = r.sha256
        byteCount = r.bytes.count
        organizationName = r.organizationName
        description = r.description
        kind = r.kind
        relevantDate = Self.time(r.relevantDate)
        expirationDate = Self.time(r.expirationDate)
        voided = r.voided
        signerSubject = r.signerSubject
        signingTime = Self.time(r.signingTime)
        fields = try Self.fieldsJSON(r.fields)
        sourceMessageID = r.source?.messageID
        sourceSubject = r.source?.subject
        sourceFile = r.source?.file
        sourceReceivedAt = Self.time(r.source?.receivedAt)
        self.addedAt = addedAt.timeIntervalSince1970
        self.updatedAt = updatedAt.timeIntervalSince1970
        (sourceNetwork, sourceRoom, sourceEventID, sourceSender) = Self.chat(r.source)
    }

    /// The row a stored pass came from (a library copied into another, `restore`).
    package init(_ p: StoredPass) throws {
        passTypeIdentifier = p.id.passTypeIdentifier
        serialNumber = p.id.serialNumber
        teamIdentifier = p.teamIdentifier
        status = p.status.rawValue
        sha256 = p.sha256
        byteCount = p.byteCount
        organizationName = p.organizationName
        description = p.description
        kind = p.kind
        relevantDate = Self.time(p.relevantDate)
        expirationDate = Self.time(p.expirationDate)
        voided = p.voided
        signerSubject = p.signerSubject
        signingTime = Self.time(p.signingTime)
        fields = try Self.fieldsJSON(p.fields)
        sourceMessageID = p.source?.messageID
        sourceSubject = p.source?.subject
        sourceFile = p.source?.file
        sourceReceivedAt = Self.time(p.source?.receivedAt)
        addedAt = p.addedAt.timeIntervalSince1970
        updatedAt = p.updatedAt.timeIntervalSince1970
        (sourceNetwork, sourceRoom, sourceEventID, sourceSender) = Self.chat(p.source)
    }

    /// Reads the row's columns in order (the order of `values`).
    package init(reading c: inout some ColumnReader) throws {
        passTypeIdentifier = try c.text()
        serialNumber = try c.text()
        teamIdentifier = try c.text()
        status = try c.text()
        sha256 = try c.text()
        byteCount = try c.integer()
        organizationName = try c.text()
        description = try c.text()
        kind = try c.text()
        relevantDate = try c.optionalReal()
        expirationDate = try c.optionalReal()
        voided = try c.bool()
        signerSubject = try c.optionalText()
        signingTime = try c.optionalReal()
        fields = try c.text()
        sourceMessageID = try c.optionalText()
        sourceSubject = try c.optionalText()
        sourceFile = try c.optionalText()
        sourceReceivedAt = try c.optionalReal()
        addedAt = try c.optionalReal() ?? 0
        updatedAt = try c.optionalReal() ?? 0
        sourceNetwork = try c.optionalText()
        sourceRoom = try c.optionalText()
        sourceEventID = try c.optionalText()
        sourceSender = try c.optionalText()
    }

    /// The values to bind, in column order.
    package var values: [ColumnValue] {
        [
            .text(passTypeIdentifier), .text(serialNumber), .text(teamIdentifier), .text(status), .text(sha256),
            .integer(Int64(byteCount)), .text(organizationName), .text(description), .text(kind),
            .real(relevantDate), .real(expirationDate), .bool(voided), .text(signerSubject), .real(signingTime),
            .text(fields), .text(sourceMessageID), .text(sourceSubject), .text(sourceFile), .real(sourceReceivedAt),
            .real(addedAt), .real(updatedAt),
            .text(sourceNetwork), .text(sourceRoom), .text(sourceEventID), .text(sourceSender),
        ]
    }

    /// The pass this row holds. `previousVersions` is counted by the query that read it.
    package func storedPass(previousVersions: Int, decoder: JSONDecoder, location: String) throws -> StoredPass {
        let decodedFields: [StoredField]
        do {
            decodedFields = try decoder.decode([StoredField].self, from: Data(fields.utf8))
        } catch {
            throw LibraryError(.notALibrary, "the fields of a stored pass are damaged (\(error))", path: location)
        }
        guard let storedStatus = StoredStatus(rawValue: status), storedStatus != .invalid else {
            throw LibraryError(.notALibrary, "a stored pass has the unknown status “\(status)”", path: location)
        }
        return StoredPass(
            id: PassID(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber),
            teamIdentifier: teamIdentifier, status: storedStatus, sha256: sha256, byteCount: byteCount,
            organizationName: organizationName, description: description, kind: kind,
            relevantDate: Self.date(relevantDate), expirationDate: Self.date(expirationDate), voided: voided,
            signerSubject: signerSubject, signingTime: Self.date(signingTime), fields: decodedFields,
            source: Self.source(messageID: sourceMessageID, subject: sourceSubject, file: sourceFile, receivedAt: sourceReceivedAt,
                                network: sourceNetwork, room: sourceRoom, eventID: sourceEventID, sender: sourceSender),
            addedAt: Date(timeIntervalSince1970: addedAt), updatedAt: Date(timeIntervalSince1970: updatedAt),
            previousVersions: previousVersions)
    }

    // MARK: - Conversions both row types use

    package static func time(_ date: Date?) -> Double? { date?.timeIntervalSince1970 }
    package static func date(_ seconds: Double?) -> Date? { seconds.map { Date(timeIntervalSince1970: $0) } }

    package static func fieldsJSON(_ fields: [StoredField]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(fields), as: UTF8.self)
    }

    /// A source is stored when it has a receipt time; its other columns may be empty.
    static func source(messageID: String?, subject: String?, file: String?, receivedAt: Double?,
                       network: String?, room: String?, eventID: String?, sender: String?) -> PassSource? {
        receivedAt.map {
            PassSource(messageID: messageID, subject: subject, file: file, receivedAt: Date(timeIntervalSince1970: $0),
                       network: network, room: room, eventID: eventID, sender: sender)
        }
    }

    /// The chat columns of a source, in column order.
    static func chat(_ source: PassSource?) -> (String?, String?, String?, String?) {
        (source?.network, source?.room, source?.eventID, source?.sender)
    }
}

/// A row of `offer` as both backends store it (`PassRow`'s counterpart): the columns after `id`.
package struct OfferRow: Sendable {
    package var passTypeIdentifier: String
    package var serialNumber: String
    package var teamIdentifier: String
    package var status: String
    package var sha256: String
    package var byteCount: Int
    package var organizationName: String
    package var description: String
    package var kind: String
    package var signingTime: Double?
    package var sourceMessageID: String?
    package var sourceSubject: String?
    package var sourceFile: String?
    package var sourceReceivedAt: Double?
    package var createdAt: Double
    /// The chat columns (schema v5), after `createdAt` like `PassRow`'s.
    package var sourceNetwork: String?
    package var sourceRoom: String?
    package var sourceEventID: String?
    package var sourceSender: String?

    /// How many columns `values` and `init(reading:)` have (the offer's id is not one of them).
    package static let columnCount = 19

    /// The row a record is staged as.
    package init(_ r: PassRecord, createdAt: Date) {
        passTypeIdentifier = r.id.passTypeIdentifier
        serialNumber = r.id.serialNumber
        teamIdentifier = r.teamIdentifier
        status = r.status.rawValue
        sha256 = r.sha256
        byteCount = r.bytes.count
        organizationName = r.organizationName
        description = r.description
        kind = r.kind
        signingTime = PassRow.time(r.signingTime)
        sourceMessageID = r.source?.messageID
        sourceSubject = r.source?.subject
        sourceFile = r.source?.file
        sourceReceivedAt = PassRow.time(r.source?.receivedAt)
        self.createdAt = createdAt.timeIntervalSince1970
        (sourceNetwork, sourceRoom, sourceEventID, sourceSender) = PassRow.chat(r.source)
    }

    /// The row an offer came from (`restore`).
    package init(_ o: Offer) {
        passTypeIdentifier = o.passID.passTypeIdentifier
        serialNumber = o.passID.serialNumber
        teamIdentifier = o.teamIdentifier
        status = o.status.rawValue
        sha256 = o.sha256
        byteCount = o.byteCount
        organizationName = o.organizationName
        description = o.description
        kind = o.kind
        signingTime = PassRow.time(o.signingTime)
        sourceMessageID = o.source?.messageID
        sourceSubject = o.source?.subject
        sourceFile = o.source?.file
        sourceReceivedAt = PassRow.time(o.source?.receivedAt)
        createdAt = o.createdAt.timeIntervalSince1970
        (sourceNetwork, sourceRoom, sourceEventID, sourceSender) = PassRow.chat(o.source)
    }

    /// Reads the columns after `id`, in order.
    package init(reading c: inout some ColumnReader) throws {
        passTypeIdentifier = try c.text()
        serialNumber = try c.text()
        teamIdentifier = try c.text()
        status = try c.text()
        sha256 = try c.text()
        byteCount = try c.integer()
        organizationName = try c.text()
        description = try c.text()
        kind = try c.text()
        signingTime = try c.optionalReal()
        sourceMessageID = try c.optionalText()
        sourceSubject = try c.optionalText()
        sourceFile = try c.optionalText()
        sourceReceivedAt = try c.optionalReal()
        createdAt = try c.optionalReal() ?? 0
        sourceNetwork = try c.optionalText()
        sourceRoom = try c.optionalText()
        sourceEventID = try c.optionalText()
        sourceSender = try c.optionalText()
    }

    /// Reads a whole offer row: its id, then the other columns.
    package static func offer(reading c: inout some ColumnReader, location: String) throws -> Offer {
        let offerID = Int64(try c.integer())
        return try OfferRow(reading: &c).offer(id: offerID, location: location)
    }

    /// The values to bind for the columns after `id`, in order.
    package var values: [ColumnValue] {
        [
            .text(passTypeIdentifier), .text(serialNumber), .text(teamIdentifier), .text(status), .text(sha256),
            .integer(Int64(byteCount)), .text(organizationName), .text(description), .text(kind), .real(signingTime),
            .text(sourceMessageID), .text(sourceSubject), .text(sourceFile), .real(sourceReceivedAt), .real(createdAt),
            .text(sourceNetwork), .text(sourceRoom), .text(sourceEventID), .text(sourceSender),
        ]
    }

    package func offer(id: Int64, location: String) throws -> Offer {
        guard let offerStatus = OfferStatus(rawValue: status) else {
            throw LibraryError(.notALibrary, "offer \(id) has the unknown status “\(status)”", path: location)
        }
        return Offer(offerID: id, passID: PassID(passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber),
              teamIdentifier: teamIdentifier, status: offerStatus, sha256: sha256, byteCount: byteCount,
              organizationName: organizationName, description: description, kind: kind,
              signingTime: PassRow.date(signingTime),
              source: PassRow.source(messageID: sourceMessageID, subject: sourceSubject, file: sourceFile, receivedAt: sourceReceivedAt,
                                     network: sourceNetwork, room: sourceRoom, eventID: sourceEventID, sender: sourceSender),
              createdAt: Date(timeIntervalSince1970: createdAt))
    }
}

/// One value to bind, as both backends' drivers take it (`nil` payloads are SQL NULL).
package enum ColumnValue: Sendable, Equatable {
    case text(String?)
    case integer(Int64?)
    case real(Double?)
    case bool(Bool)
}

/// A driver's row read column by column, in order (`PassRow.init(reading:)`): SQLite's `Row` by
/// position, PostgreSQL's `PostgresRandomAccessRow`.
package protocol ColumnReader {
    mutating func text() throws -> String
    mutating func optionalText() throws -> String?
    mutating func integer() throws -> Int
    mutating func optionalReal() throws -> Double?
    mutating func bool() throws -> Bool
}
