import Foundation
import GRDB
import PassStore

extension PassLibrary {
    /// PassKit's `containsPass`, refined: new, contained (same bytes), update (different content
    /// signed later, or without signing times to compare), stale (signed earlier).
    package func contains(_ record: PassRecord) throws -> LibraryState {
        try read("contains") { db in
            LibraryRules.state(of: record, stored: try LibraryRows.fetchIdentity(db, record.id))
        }
    }

    /// Adds a pass the user agreed to add. Refuses invalid passes, and untrusted ones unless
    /// `allowUntrusted`. Adding the same bytes again returns the stored pass and logs nothing;
    /// the same id with different content is `LibraryError.Kind.exists` (use `replace`).
    /// A pending offer of these exact bytes is settled by the add.
    @discardableResult
    package func add(_ record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass {
        try adding(record, allowUntrusted: allowUntrusted).stored
    }

    /// `add` that says whether it added: nil when these bytes were already stored.
    package func addIfNew(_ record: PassRecord, allowUntrusted: Bool = false) throws -> StoredPass? {
        let outcome = try adding(record, allowUntrusted: allowUntrusted)
        return outcome.added ? outcome.stored : nil
    }

    private func adding(_ record: PassRecord, allowUntrusted: Bool) throws -> (stored: StoredPass, added: Bool) {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "add")
        return try write("add") { db in
            let plan = try LibraryRules.add(r, stored: try LibraryRows.fetchIdentity(db, r.id), now: options.now, location: path)
            guard case .insert(let row, let log) = plan else { return (try storedAfterWrite(db, r.id), false) }
            try LibraryRows.insertBlob(db, r)
            try insertPass(db, row)
            try db.execute(sql: "DELETE FROM offer WHERE passTypeIdentifier = ? AND serialNumber = ? AND sha256 = ?",
                           arguments: [r.id.passTypeIdentifier, r.id.serialNumber, r.sha256])
            try LibraryRows.log(db, log)
            return (try storedAfterWrite(db, r.id), true)
        }
    }

    /// PassKit's `replacePassWithPass`: only for an id already present. Keeps the replaced
    /// version (the newest `keptVersions`) for `revert` and returns what changed per field.
    /// Same bytes: no change, nothing logged. Refuses a stale pass (signed earlier than the stored
    /// one), another team's pass under the same id, invalid passes, and untrusted ones unless
    /// `allowUntrusted`.
    @discardableResult
    package func replace(with record: PassRecord, allowUntrusted: Bool = false) throws -> [FieldChange] {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "replace")
        return try write("replace") { db in try replacing(db, r, operation: "replace") ?? [] }
    }

    /// `replace` that says whether it replaced: nil when the library already holds these bytes
    /// (another process applied the same update first), else the field changes it logged.
    package func replaceIfChanged(with record: PassRecord, allowUntrusted: Bool = false) throws -> [FieldChange]? {
        let r = try validated(record, allowUntrusted: allowUntrusted, operation: "update")
        return try write("update") { db in try replacing(db, r, operation: "update") }
    }

    /// Removes a pass and its earlier versions (only on the user's explicit command).
    package func remove(_ id: PassID) throws {
        try write("remove") { db in
            let plan = try LibraryRules.remove(id, stored: try LibraryRows.fetchIdentity(db, id), now: options.now, location: path)
            let keys: StatementArguments = [id.passTypeIdentifier, id.serialNumber]
            let versionDigests = try String.fetchAll(
                db, sql: "DELETE FROM pass_version WHERE passTypeIdentifier = ? AND serialNumber = ? RETURNING sha256",
                arguments: keys)
            try db.execute(sql: "DELETE FROM pass WHERE id = ?", arguments: [plan.rowID])
            // Validators belong to the removed version; a registration stays until `update`
            // has told the issuer (PassLibrary+WebService).
            try db.execute(sql: "DELETE FROM web_service_state WHERE passTypeIdentifier = ? AND serialNumber = ?", arguments: keys)
            for digest in plan.blobs(versionDigests: versionDigests) {
                try LibraryRows.deleteBlobIfUnused(db, digest)
            }
            try LibraryRows.log(db, plan.log)
        }
    }

    package func pass(_ id: PassID) throws -> StoredPass? {
        try read("pass") { db in try LibraryRows.fetchPass(db, id, path: path) }
    }

    /// PassKit's `passWithPassTypeIdentifier:serialNumber:`.
    package func pass(typeIdentifier: String, serial: String) throws -> StoredPass? {
        try pass(PassID(passTypeIdentifier: typeIdentifier, serialNumber: serial))
    }

    /// Every pass, by relevant date (passes without one last), then by the time it was added.
    package func passes() throws -> [StoredPass] {
        try read("passes") { db in
            let decoder = JSONDecoder()
            let path = self.path
            // A cursor reads each row straight from the statement instead of copying it first.
            return try Array(Row.fetchCursor(db, sql: LibraryRows.selectPass + " ORDER BY relevantDate IS NULL, relevantDate, addedAt, id")
                .map { try LibraryRows.storedPass($0, decoder: decoder, path: path) })
        }
    }

    /// How many passes the library holds.
    package func count() throws -> Int {
        try read("count") { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM pass") ?? 0 }
    }

    /// The original .pkpass bytes, byte-identical (checked against the stored SHA-256).
    package func export(_ id: PassID) throws -> [UInt8] {
        let stored = try read("export") { db -> (sha256: String, bytes: [UInt8])? in
            guard !id.containsNUL, let row = try Row.fetchOne(db, sql: """
                SELECT p.sha256, b.bytes FROM pass p JOIN pass_blob b ON b.sha256 = p.sha256
                WHERE p.passTypeIdentifier = ? AND p.serialNumber = ?
                """, arguments: [id.passTypeIdentifier, id.serialNumber]) else { return nil }
            let data: Data = row["bytes"]
            return (row["sha256"], [UInt8](data))
        }
        return try LibraryRules.exported(id, stored: stored, location: path)
    }

    /// Undoes the last replace: the newest earlier version becomes current again and leaves the
    /// version list (so repeated reverts walk back through at most `keptVersions` versions).
    @discardableResult
    package func revert(_ id: PassID) throws -> StoredPass {
        try write("revert") { db in
            let stored = try LibraryRows.fetchIdentity(db, id)
            let version = try stored == nil ? nil : Row.fetchOne(db, sql: """
                SELECT id, sha256 FROM pass_version WHERE passTypeIdentifier = ? AND serialNumber = ?
                ORDER BY id DESC LIMIT 1
                """, arguments: [id.passTypeIdentifier, id.serialNumber]).map { (id: $0["id"] as Int64, sha256: $0["sha256"] as String) }
            let plan = try LibraryRules.revert(id, stored: stored, newestVersion: version, now: options.now, location: path)
            let restoredColumns = """
                teamIdentifier, status, sha256, byteCount, organizationName, description, kind, relevantDate, \
                expirationDate, voided, signerSubject, signingTime, fields, sourceMessageID, sourceSubject, \
                sourceFile, sourceReceivedAt, sourceNetwork, sourceRoom, sourceEventID, sourceSender
                """
            try db.execute(sql: """
                UPDATE pass SET (\(restoredColumns)) = (SELECT \(restoredColumns) FROM pass_version WHERE id = ?),
                    updatedAt = ?
                WHERE id = ?
                """, arguments: [plan.versionID, plan.log.at.timeIntervalSince1970, plan.rowID])
            try db.execute(sql: "DELETE FROM pass_version WHERE id = ?", arguments: [plan.versionID])
            try LibraryRows.deleteBlobIfUnused(db, plan.releasing)
            try LibraryRows.log(db, plan.log)
            return try storedAfterWrite(db, id)
        }
    }

    /// Turns what a person typed into a pass id: "passTypeIdentifier/serialNumber" (split at the
    /// first "/", as type identifiers have none), or a prefix of at least 4 hex digits of a stored
    /// pass's SHA-256, unique like git's short ids (`LibraryError.Kind.ambiguousID` otherwise).
    package func resolve(_ text: String) throws -> PassID {
        switch try LibraryRules.resolveQuery(text, location: path) {
        case .id(let id):
            let found = try read("resolve") { db in try LibraryRows.fetchIdentity(db, id) != nil }
            return try LibraryRules.resolved(id, found: found, location: path)
        case .digestPrefix(let prefix):
            let matches = try read("resolve") { db in
                try Row.fetchAll(db, sql: """
                    SELECT passTypeIdentifier, serialNumber, sha256 FROM pass
                    WHERE sha256 >= ? AND sha256 < ? ORDER BY sha256 LIMIT 11
                    """, arguments: [prefix, prefix + "g"])
                    .map { (id: PassID(passTypeIdentifier: $0["passTypeIdentifier"], serialNumber: $0["serialNumber"]), sha256: $0["sha256"] as String) }
            }
            return try LibraryRules.resolved(prefix: prefix, matches: matches, location: path)
        }
    }

    /// Git's shortest abbreviation.
    static var minimumDigestPrefix: Int { LibraryRules.minimumDigestPrefix }

    // MARK: - Shared steps

    /// Checks a record before any write (`LibraryRules.validated`).
    func validated(_ record: PassRecord, allowUntrusted: Bool, operation: String) throws -> PassRecord {
        try LibraryRules.validated(record, allowUntrusted: allowUntrusted, operation: operation,
                                   maxPassBytes: options.maxPassBytes, location: path)
    }

    /// `replace` and `update` inside the caller's transaction (`LibraryRules.replace`).
    private func replacing(_ db: Database, _ r: PassRecord, operation: String) throws -> [FieldChange]? {
        let existing = try LibraryRows.fetchPass(db, r.id, path: path)
        let plan = try LibraryRules.replace(r, existing: existing, operation: operation, keptVersions: options.keptVersions,
                                            now: options.now, location: path)
        return try plan.map { try execute(db, $0, r) }
    }

    /// Carries out a replace plan for `r` inside the caller's transaction: keeps the replaced
    /// version, prunes to the plan's count, logs.
    func execute(_ db: Database, _ plan: LibraryRules.ReplacePlan, _ r: PassRecord) throws -> [FieldChange] {
        let keys: StatementArguments = [r.id.passTypeIdentifier, r.id.serialNumber]
        try LibraryRows.insertBlob(db, r)
        try db.execute(sql: """
            INSERT INTO pass_version (\(LibraryRows.passColumns), replacedAt)
            SELECT \(LibraryRows.passColumns), ? FROM pass WHERE passTypeIdentifier = ? AND serialNumber = ?
            """, arguments: [plan.at.timeIntervalSince1970] + keys)
        try db.execute(sql: """
            UPDATE pass SET (\(LibraryRows.passColumns)) = (\(LibraryRows.passPlaceholders))
            WHERE passTypeIdentifier = ? AND serialNumber = ?
            """, arguments: LibraryRows.arguments(plan.row.values) + keys)
        let pruned = try String.fetchAll(db, sql: """
            DELETE FROM pass_version WHERE passTypeIdentifier = ?1 AND serialNumber = ?2 AND id NOT IN
              (SELECT id FROM pass_version WHERE passTypeIdentifier = ?1 AND serialNumber = ?2 ORDER BY id DESC LIMIT ?3)
            RETURNING sha256
            """, arguments: keys + [plan.keptVersions])
        for digest in Set(pruned).sorted() {
            try LibraryRows.deleteBlobIfUnused(db, digest)
        }
        try LibraryRows.log(db, plan.log)
        return plan.changes
    }

    func insertPass(_ db: Database, _ row: PassRow) throws {
        try db.cachedStatement(sql: "INSERT INTO pass (\(LibraryRows.passColumns)) VALUES (\(LibraryRows.passPlaceholders))")
            .execute(arguments: LibraryRows.arguments(row.values))
    }

    func storedAfterWrite(_ db: Database, _ id: PassID) throws -> StoredPass {
        guard let stored = try LibraryRows.fetchPass(db, id, path: path) else {
            throw LibraryRules.vanished("\(id)", location: path)
        }
        return stored
    }
}
