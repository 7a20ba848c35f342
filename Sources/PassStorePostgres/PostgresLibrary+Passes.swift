import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    func validated(_ record: PassRecord, allowUntrusted: Bool, operation: String) throws -> PassRecord {
        try LibraryRules.validated(record, allowUntrusted: allowUntrusted, operation: operation,
                                   maxPassBytes: options.maxPassBytes, location: location)
    }

    package func contains(_ record: PassRecord) async throws -> LibraryState {
        try await read("contains") { tx in
            LibraryRules.state(of: record, stored: try await PostgresRows.fetchIdentity(tx, record.id))
        }
    }

    @discardableResult
    package func add(_ record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass {
        try await adding(record, allowUntrusted: allowUntrusted).stored
    }

    package func addIfNew(_ record: PassRecord, allowUntrusted: Bool) async throws -> StoredPass? {
        let outcome = try await adding(record, allowUntrusted: allowUntrusted)
        return outcome.added ? outcome.stored : nil
    }

    private func adding(_ record: PassRecord, allowUntrusted: Bool) async throws -> (stored: StoredPass, added: Bool) {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "add")
        let now = options.now
        let location = self.location
        return try await write("add") { tx in
            let plan = try LibraryRules.add(r, stored: try await PostgresRows.fetchIdentity(tx, r.id), now: now, location: location)
            guard case .insert(let row, let log) = plan else {
                return (try await Self.storedAfterWrite(tx, r.id, location: location), false)
            }
            try await PostgresRows.insertBlob(tx, r)
            try await Self.insertPass(tx, row)
            try await tx.run(#"DELETE FROM passconduit.offer WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 AND sha256 = $4"#,
                             [tx.user, r.id.passTypeIdentifier, r.id.serialNumber, r.sha256])
            try await PostgresRows.log(tx, log)
            return (try await Self.storedAfterWrite(tx, r.id, location: location), true)
        }
    }

    static func insertPass(_ tx: PostgresTransaction, _ row: PassRow) async throws {
        try await tx.run(#"INSERT INTO passconduit.pass ("user", \#(PostgresRows.passColumns)) VALUES (\#(PostgresRows.placeholders(PassRow.columnCount + 1)))"#,
                         [tx.user] + PostgresRows.values(row.values))
    }

    @discardableResult
    package func replace(with record: PassRecord, allowUntrusted: Bool) async throws -> [FieldChange] {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "replace")
        let step = replaceStep
        return try await write("replace") { tx in try await step.run(tx, r, operation: "replace") ?? [] }
    }

    @discardableResult
    package func replaceIfChanged(with record: PassRecord, allowUntrusted: Bool) async throws -> [FieldChange]? {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "update")
        let step = replaceStep
        return try await write("update") { tx in try await step.run(tx, r, operation: "update") }
    }

    package func remove(_ id: PassID) async throws {
        let location = self.location, now = options.now
        try await write("remove") { tx in
            let plan = try LibraryRules.remove(id, stored: try await PostgresRows.fetchIdentity(tx, id), now: now, location: location)
            let keys: [PostgresTransaction.Value] = [tx.user, id.passTypeIdentifier, id.serialNumber]
            let versionDigests = try await tx.rows(#"DELETE FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 RETURNING sha256"#,
                                                   keys).map { try $0.decode(String.self) }
            try await tx.run("DELETE FROM passconduit.pass WHERE id = $1", [plan.rowID])
            try await tx.run(#"DELETE FROM passconduit.web_service_state WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#, keys)
            for digest in plan.blobs(versionDigests: versionDigests) {
                try await PostgresRows.deleteBlobIfUnused(tx, digest)
            }
            try await PostgresRows.log(tx, plan.log)
        }
    }

    package func pass(_ id: PassID) async throws -> StoredPass? {
        let location = self.location
        return try await read("pass") { tx in try await PostgresRows.fetchPass(tx, id, location: location) }
    }

    package func passes() async throws -> [StoredPass] {
        let location = self.location
        return try await read("passes") { tx in
            let decoder = JSONDecoder()
            return try await tx.rows(PostgresRows.selectPass + #" WHERE p."user" = $1 ORDER BY p.relevant_date IS NULL, p.relevant_date, p.added_at, p.id"#,
                                     [tx.user]).map { try PostgresRows.storedPass($0, decoder: decoder, location: location) }
        }
    }

    package func count() async throws -> Int {
        try await read("count") { tx in
            try await tx.rows(#"SELECT count(*) FROM passconduit.pass WHERE "user" = $1"#, [tx.user])[0].decode(Int.self)
        }
    }

    package func export(_ id: PassID) async throws -> [UInt8] {
        let location = self.location
        let stored = try await read("export") { tx -> (sha256: String, bytes: [UInt8])? in
            guard !id.containsNUL, let row = try await tx.rows("""
                SELECT p.sha256, b.bytes FROM passconduit.pass p JOIN passconduit.pass_blob b ON b."user" = p."user" AND b.sha256 = p.sha256
                WHERE p."user" = $1 AND p.pass_type_identifier = $2 AND p.serial_number = $3
                """, [tx.user, id.passTypeIdentifier, id.serialNumber]).first else { return nil }
            let (sha256, buffer) = try row.decode((String, ByteBuffer).self)
            return (sha256, Array(buffer.readableBytesView))
        }
        return try LibraryRules.exported(id, stored: stored, location: location)
    }

    @discardableResult
    package func revert(_ id: PassID) async throws -> StoredPass {
        let location = self.location, now = options.now
        return try await write("revert") { tx in
            let stored = try await PostgresRows.fetchIdentity(tx, id)
            let version = stored == nil ? nil : try await tx.rows("""
                SELECT id, sha256 FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
                ORDER BY id DESC LIMIT 1
                """, [tx.user, id.passTypeIdentifier, id.serialNumber]).first.map { row -> (id: Int64, sha256: String) in
                let (versionID, sha256) = try row.decode((Int64, String).self)
                return (versionID, sha256)
            }
            let plan = try LibraryRules.revert(id, stored: stored, newestVersion: version, now: now, location: location)
            let restoredColumns = """
                team_identifier, status, sha256, byte_count, organization_name, description, kind, relevant_date, \
                expiration_date, voided, signer_subject, signing_time, fields, source_message_id, source_subject, \
                source_file, source_received_at, source_network, source_room, source_event_id, source_sender
                """
            try await tx.run("""
                UPDATE passconduit.pass SET (\(restoredColumns)) = (SELECT \(restoredColumns) FROM passconduit.pass_version WHERE id = $1),
                    updated_at = $2
                WHERE id = $3
                """, [plan.versionID, plan.log.at.timeIntervalSince1970, plan.rowID])
            try await tx.run("DELETE FROM passconduit.pass_version WHERE id = $1", [plan.versionID])
            try await PostgresRows.deleteBlobIfUnused(tx, plan.releasing)
            try await PostgresRows.log(tx, plan.log)
            return try await Self.storedAfterWrite(tx, id, location: location)
        }
    }

    package func resolve(_ text: String) async throws -> PassID {
        let location = self.location
        switch try LibraryRules.resolveQuery(text, location: location) {
        case .id(let id):
            let found = try await read("resolve") { tx in try await PostgresRows.fetchIdentity(tx, id) != nil }
            return try LibraryRules.resolved(id, found: found, location: location)
        case .digestPrefix(let prefix):
            let matches = try await read("resolve") { tx in
                try await tx.rows("""
                    SELECT pass_type_identifier, serial_number, sha256 FROM passconduit.pass
                    WHERE "user" = $1 AND sha256 >= $2 AND sha256 < $3 ORDER BY sha256 LIMIT 11
                    """, [tx.user, prefix, prefix + "g"]).map { row -> (id: PassID, sha256: String) in
                    let (type, serial, sha256) = try row.decode((String, String, String).self)
                    return (PassID(passTypeIdentifier: type, serialNumber: serial), sha256)
                }
            }
            return try LibraryRules.resolved(prefix: prefix, matches: matches, location: location)
        }
    }

    static func storedAfterWrite(_ tx: PostgresTransaction, _ id: PassID, location: String) async throws -> StoredPass {
        guard let stored = try await PostgresRows.fetchPass(tx, id, location: location) else {
            throw LibraryRules.vanished("\(id)", location: location)
        }
        return stored
    }

    var replaceStep: ReplaceStep { ReplaceStep(location: location, keptVersions: options.keptVersions, now: options.now) }
}

/// `replace`, `update` and the accept of an update on PostgreSQL: reads the stored pass, asks
/// `LibraryRules` for the plan and carries it out inside the caller's transaction.
struct ReplaceStep: Sendable {
    let location: String
    let keptVersions: Int
    let now: @Sendable () -> Date

    func run(_ tx: PostgresTransaction, _ r: PassRecord, operation: String) async throws -> [FieldChange]? {
        let existing = try await PostgresRows.fetchPass(tx, r.id, location: location)
        guard let plan = try LibraryRules.replace(r, existing: existing, operation: operation, keptVersions: keptVersions,
                                                  now: now, location: location) else { return nil }
        return try await execute(tx, plan, r)
    }

    /// Keeps the replaced version, writes the new row, prunes to the plan's count, logs.
    func execute(_ tx: PostgresTransaction, _ plan: LibraryRules.ReplacePlan, _ r: PassRecord) async throws -> [FieldChange] {
        let keys: [PostgresTransaction.Value] = [tx.user, r.id.passTypeIdentifier, r.id.serialNumber]
        try await PostgresRows.insertBlob(tx, r)
        try await tx.run("""
            INSERT INTO passconduit.pass_version ("user", \(PostgresRows.passColumns), replaced_at)
            SELECT "user", \(PostgresRows.passColumns), $4 FROM passconduit.pass
            WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
            """, keys + [plan.at.timeIntervalSince1970])
        try await tx.run("""
            UPDATE passconduit.pass SET (\(PostgresRows.passColumns)) = (\(PostgresRows.placeholders(PassRow.columnCount, from: 4)))
            WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
            """, keys + PostgresRows.values(plan.row.values))
        let pruned = try await tx.rows("""
            DELETE FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 AND id NOT IN
              (SELECT id FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
               ORDER BY id DESC LIMIT $4)
            RETURNING sha256
            """, keys + [plan.keptVersions]).map { try $0.decode(String.self) }
        for digest in Set(pruned).sorted() {
            try await PostgresRows.deleteBlobIfUnused(tx, digest)
        }
        try await PostgresRows.log(tx, plan.log)
        return plan.changes
    }
}
