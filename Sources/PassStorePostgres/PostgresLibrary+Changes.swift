import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    package func changes(after sequence: Int64, limit: Int) async throws -> [ChangeEntry] {
        let location = self.location
        return try await read("changes", snapshot: true) { tx in
            try await Self.changes(tx, after: sequence, limit: limit, location: location)
        }
    }

    /// `all`: the whole log (a snapshot), no page limit.
    static func changes(_ tx: PostgresTransaction, after sequence: Int64, limit: Int, location: String, all: Bool = false) async throws -> [ChangeEntry] {
        let count = all ? Int(Int32.max) : min(max(limit, 1), 10_000)
        var entries = try await tx.rows("""
            SELECT sequence, kind, pass_type_identifier, serial_number, sha256, at FROM passconduit.change_log
            WHERE "user" = $1 AND sequence > $2 ORDER BY sequence LIMIT $3
            """, [tx.user, sequence, count]).map { row -> ChangeEntry in
            let (number, kindText, type, serial, sha256, at) = try row.decode((Int64, String, String, String, String?, Double).self)
            guard let kind = ChangeKind(rawValue: kindText) else {
                throw LibraryError(.notALibrary, "the change log holds an unknown kind “\(kindText)”", path: location)
            }
            return ChangeEntry(sequence: number, kind: kind, passID: PassID(passTypeIdentifier: type, serialNumber: serial),
                               sha256: sha256, at: Date(timeIntervalSince1970: at))
        }
        if let first = entries.first?.sequence, let last = entries.last?.sequence {
            var byEntry: [Int64: [FieldChange]] = [:]
            for row in try await tx.rows("""
                SELECT sequence, key, label, old_value, new_value, message FROM passconduit.change_field
                WHERE "user" = $1 AND sequence BETWEEN $2 AND $3 ORDER BY sequence, position
                """, [tx.user, first, last]) {
                let (number, key, label, old, new, message) = try row.decode((Int64, String, String?, String?, String?, String?).self)
                byEntry[number, default: []].append(FieldChange(key: key, label: label, oldValue: old, newValue: new, message: message))
            }
            for index in entries.indices {
                entries[index].changes = byEntry[entries[index].sequence] ?? []
            }
        }
        return entries
    }

    package func lastSequence() async throws -> Int64 {
        try await read("changes") { tx in
            try await tx.rows("SELECT last_sequence FROM passconduit.library_user WHERE name = $1", [tx.user]).first?.decode(Int64.self) ?? 0
        }
    }

    /// Waits on LISTEN: the connection listens before it looks at the log, so a change committed
    /// between the look and the wait still wakes it. No polling.
    package func waitForChanges(after sequence: Int64, timeout: TimeInterval, limit: Int) async throws -> [ChangeEntry] {
        let location = self.location
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, timeout) * 1000))
        return try await read("follow", extra: max(0, timeout)) { tx in
            try await tx.connection.listen(on: Self.channel) { notifications in
                while true {
                    let found = try await Self.changes(tx, after: sequence, limit: limit, location: location)
                    if !found.isEmpty || ContinuousClock.now >= deadline { return found }
                    let user = tx.user
                    let woke: Bool
                    do {
                        woke = try await Deadline.run(until: deadline) {
                            for try await note in notifications where note.payload == user { return true }
                            return false
                        }
                    } catch is Deadline.Passed {
                        return []
                    }
                    guard woke else {
                        throw LibraryError(.unavailable, "follow: the server stopped the notifications", path: location)
                    }
                }
            }
        }
    }
}
