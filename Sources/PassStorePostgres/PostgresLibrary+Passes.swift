import Foundation
import Support
import PassStore
import PostgresNIO

extension PostgresLibrary {
    func validated(_ record: PassRecord, allowUntrusted: Bool, operation: String) throws -> PassRecord {
        try LibraryRules.validated(record, allowUntrusted: allowUntrusted, operation: operation,
                                   maxPassBytes: options.maxPassBytes, location: location)
    }

    package func contains(_ record: PassRecord) async throws -> LibraryState {
        let sha256 = record.sha256.lowercased()
        let id = record.id, signing = record.signingTime
        return try await read("contains") { tx in
            guard let stored = try await PostgresRows.fetchIdentity(tx, id) else { return .new }
            return LibraryState.of(incomingSHA256: sha256, incomingSigningTime: signing,
                                   storedSHA256: stored.sha256, storedSigningTime: stored.signingTime)
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
            var added = false
            if let existing = try await PostgresRows.fetchIdentity(tx, r.id) {
                guard existing.sha256 == r.sha256 else {
                    throw LibraryError(.exists, "add: \(r.id) is already in the library with different content; replace it instead",
                                       path: location)
                }
            } else {
                let at = now()
                try await PostgresRows.insertBlob(tx, r)
                try await Self.insertPass(tx, r, at: at)
                try await tx.run(#"DELETE FROM passconduit.offer WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 AND sha256 = $4"#,
                                 [tx.user, r.id.passTypeIdentifier, r.id.serialNumber, r.sha256])
                try await PostgresRows.log(tx, .add, r.id, sha256: r.sha256, at: at)
                added = true
            }
            return (try await Self.storedAfterWrite(tx, r.id, location: location), added)
        }
    }

    static func insertPass(_ tx: PostgresTransaction, _ r: PassRecord, at: Date) async throws {
        try await tx.run(#"INSERT INTO passconduit.pass ("user", \#(PostgresRows.passColumns)) VALUES (\#(PostgresRows.placeholders(22)))"#,
                         [tx.user] + PostgresRows.passValues(r, addedAt: at, updatedAt: at))
    }

    @discardableResult
    package func replace(with record: PassRecord, allowUntrusted: Bool) async throws -> [FieldChange] {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "replace")
        let step = replaceStep
        return try await write("replace") { tx in
            guard let existing = try await PostgresRows.fetchPass(tx, r.id, location: step.location) else {
                throw LibraryError(.notFound, "replace: \(r.id) is not in the library", path: step.location)
            }
            return try await step.run(tx, existing: existing, with: r, operation: "replace") ?? []
        }
    }

    @discardableResult
    package func replaceIfChanged(with record: PassRecord, allowUntrusted: Bool) async throws -> [FieldChange]? {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "update")
        let step = replaceStep
        return try await write("update") { tx in
            guard let existing = try await PostgresRows.fetchPass(tx, r.id, location: step.location) else {
                throw LibraryError(.notFound, "update: \(r.id) is not in the library", path: step.location)
            }
            return try await step.run(tx, existing: existing, with: r, operation: "update")
        }
    }

    package func remove(_ id: PassID) async throws {
        let location = self.location, now = options.now
        try await write("remove") { tx in
            guard let existing = try await PostgresRows.fetchIdentity(tx, id) else {
                throw LibraryError(.notFound, "remove: \(id) is not in the library", path: location)
            }
            let keys: [PostgresTransaction.Value] = [tx.user, id.passTypeIdentifier, id.serialNumber]
            let versionDigests = try await tx.rows(#"DELETE FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 RETURNING sha256"#,
                                                   keys).map { try $0.decode(String.self) }
            try await tx.run("DELETE FROM passconduit.pass WHERE id = $1", [existing.rowID])
            try await tx.run(#"DELETE FROM passconduit.web_service_state WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3"#, keys)
            for digest in Set(versionDigests + [existing.sha256]).sorted() {
                try await PostgresRows.deleteBlobIfUnused(tx, digest)
            }
            try await PostgresRows.log(tx, .remove, id, sha256: existing.sha256, at: now())
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
        let (digest, bytes) = try await read("export") { tx -> (String, [UInt8]) in
            guard !id.containsNUL, let row = try await tx.rows("""
                SELECT p.sha256, b.bytes FROM passconduit.pass p JOIN passconduit.pass_blob b ON b."user" = p."user" AND b.sha256 = p.sha256
                WHERE p."user" = $1 AND p.pass_type_identifier = $2 AND p.serial_number = $3
                """, [tx.user, id.passTypeIdentifier, id.serialNumber]).first else {
                throw LibraryError(.notFound, "export: \(id) is not in the library", path: location)
            }
            let (sha256, buffer) = try row.decode((String, ByteBuffer).self)
            return (sha256, Array(buffer.readableBytesView))
        }
        guard Digest.sha256Hex(bytes) == digest else {
            throw LibraryError(.notALibrary, "export: the stored bytes of \(id) are damaged (SHA-256 differs)", path: location)
        }
        return bytes
    }

    @discardableResult
    package func revert(_ id: PassID) async throws -> StoredPass {
        let location = self.location, now = options.now
        return try await write("revert") { tx in
            guard let existing = try await PostgresRows.fetchIdentity(tx, id) else {
                throw LibraryError(.notFound, "revert: \(id) is not in the library", path: location)
            }
            guard let version = try await tx.rows("""
                SELECT id, sha256 FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
                ORDER BY id DESC LIMIT 1
                """, [tx.user, id.passTypeIdentifier, id.serialNumber]).first else {
                throw LibraryError(.notFound, "revert: \(id) has no earlier version to go back to", path: location)
            }
            let (versionID, restored) = try version.decode((Int64, String).self)
            let at = now()
            let restoredColumns = """
                team_identifier, status, sha256, byte_count, organization_name, description, kind, relevant_date, \
                expiration_date, voided, signer_subject, signing_time, fields, source_message_id, source_subject, \
                source_file, source_received_at
                """
            try await tx.run("""
                UPDATE passconduit.pass SET (\(restoredColumns)) = (SELECT \(restoredColumns) FROM passconduit.pass_version WHERE id = $1),
                    updated_at = $2
                WHERE id = $3
                """, [versionID, at.timeIntervalSince1970, existing.rowID])
            try await tx.run("DELETE FROM passconduit.pass_version WHERE id = $1", [versionID])
            try await PostgresRows.deleteBlobIfUnused(tx, existing.sha256)
            try await PostgresRows.log(tx, .revert, id, sha256: restored, at: at)
            return try await Self.storedAfterWrite(tx, id, location: location)
        }
    }

    package func resolve(_ text: String) async throws -> PassID {
        let location = self.location
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let slash = trimmed.firstIndex(of: "/") {
            let id = PassID(passTypeIdentifier: String(trimmed[..<slash]),
                            serialNumber: String(trimmed[trimmed.index(after: slash)...]))
            let found = try await read("resolve") { tx in try await PostgresRows.fetchIdentity(tx, id) != nil }
            guard found else { throw LibraryError(.notFound, "no pass \(id) in the library", path: location) }
            return id
        }
        let prefix = trimmed.lowercased()
        let minimum = LibraryRules.minimumDigestPrefix
        guard prefix.utf8.count >= minimum, prefix.utf8.count <= 64,
              prefix.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw LibraryError(.notFound,
                               "“\(trimmed)” is neither passTypeIdentifier/serialNumber nor a SHA-256 prefix of at least \(minimum) hex digits",
                               path: location)
        }
        let matches = try await read("resolve") { tx in
            try await tx.rows("""
                SELECT pass_type_identifier, serial_number, sha256 FROM passconduit.pass
                WHERE "user" = $1 AND sha256 >= $2 AND sha256 < $3 ORDER BY sha256 LIMIT 11
                """, [tx.user, prefix, prefix + "g"]).map { try $0.decode((String, String, String).self) }
        }
        switch matches.count {
        case 0:
            throw LibraryError(.notFound, "no pass in the library has a SHA-256 starting with \(prefix)", path: location)
        case 1:
            return PassID(passTypeIdentifier: matches[0].0, serialNumber: matches[0].1)
        default:
            let names = matches.prefix(10).map { "\($0.0)/\($0.1) (\($0.2.prefix(12)))" }
            throw LibraryError(.ambiguousID,
                               "SHA-256 prefix \(prefix) is ambiguous; it matches \(matches.count > 10 ? "more than 10 passes" : "\(matches.count) passes"): \(names.joined(separator: ", "))",
                               path: location)
        }
    }

    static func storedAfterWrite(_ tx: PostgresTransaction, _ id: PassID, location: String) async throws -> StoredPass {
        guard let stored = try await PostgresRows.fetchPass(tx, id, location: location) else {
            throw LibraryError(.io, "\(id) vanished inside its own transaction", path: location)
        }
        return stored
    }

    var replaceStep: ReplaceStep { ReplaceStep(location: location, keptVersions: options.keptVersions, now: options.now) }
}

/// `PassLibrary.replaceRow` on PostgreSQL: replaces the current row of `existing.id` with `r`
/// inside the caller's transaction, keeps the replaced version (pruned to `keptVersions`), logs.
struct ReplaceStep: Sendable {
    let location: String
    let keptVersions: Int
    let now: @Sendable () -> Date

    func run(_ tx: PostgresTransaction, existing: StoredPass, with r: PassRecord, operation: String) async throws -> [FieldChange]? {
        switch LibraryState.of(incomingSHA256: r.sha256, incomingSigningTime: r.signingTime,
                               storedSHA256: existing.sha256, storedSigningTime: existing.signingTime) {
        case .contained:
            return nil
        case .stale:
            throw LibraryError(.refused, "\(operation): \(r.id) was signed before the version in the library; keeping the newer one",
                               path: location)
        case .new, .update:
            break
        }
        guard existing.teamIdentifier == r.teamIdentifier else {
            throw LibraryError(.refused, "\(operation): \(r.id) belongs to team \(existing.teamIdentifier), not \(r.teamIdentifier)",
                               path: location)
        }
        let at = now()
        let keys: [PostgresTransaction.Value] = [tx.user, r.id.passTypeIdentifier, r.id.serialNumber]
        try await PostgresRows.insertBlob(tx, r)
        try await tx.run("""
            INSERT INTO passconduit.pass_version ("user", \(PostgresRows.passColumns), replaced_at)
            SELECT "user", \(PostgresRows.passColumns), $4 FROM passconduit.pass
            WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
            """, keys + [at.timeIntervalSince1970])
        try await tx.run("""
            UPDATE passconduit.pass SET (\(PostgresRows.passColumns)) = (\(PostgresRows.placeholders(21, from: 4)))
            WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
            """, keys + PostgresRows.passValues(r, addedAt: existing.addedAt, updatedAt: at))
        let pruned = try await tx.rows("""
            DELETE FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 AND id NOT IN
              (SELECT id FROM passconduit.pass_version WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3
               ORDER BY id DESC LIMIT $4)
            RETURNING sha256
            """, keys + [max(0, keptVersions)]).map { try $0.decode(String.self) }
        for digest in Set(pruned).sorted() {
            try await PostgresRows.deleteBlobIfUnused(tx, digest)
        }
        let changes = FieldChange.between(old: existing.fields, new: r.fields, voids: r.voided && !existing.voided)
        try await PostgresRows.log(tx, .replace, r.id, sha256: r.sha256, at: at, changes: changes)
        return changes
    }
}
