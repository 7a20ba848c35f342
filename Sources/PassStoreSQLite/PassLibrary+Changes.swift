import Foundation
import GRDB
import PassStore

extension PassLibrary {
    /// Change-log entries with a sequence number greater than `sequence`, oldest first, at most
    /// `limit` (clamped to 1...10 000). A follower passes the last sequence it saw; 0 reads from
    /// the start.
    package func changes(after sequence: Int64, limit: Int = 1000) throws -> [ChangeEntry] {
        let count = min(max(limit, 1), 10_000)
        return try read("changes") { db in
            var entries = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT sequence, kind, passTypeIdentifier, serialNumber, sha256, at FROM change_log
                WHERE sequence > ? ORDER BY sequence LIMIT ?
                """), arguments: [sequence, count]).map { row in
                let kindText: String = row["kind"]
                guard let kind = ChangeKind(rawValue: kindText) else {
                    throw LibraryError(.notALibrary, "the change log holds an unknown kind “\(kindText)”", path: path)
                }
                return ChangeEntry(sequence: row["sequence"], kind: kind,
                                   passID: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                                   sha256: row["sha256"], at: Date(timeIntervalSince1970: row["at"]))
            }
            if let first = entries.first?.sequence, let last = entries.last?.sequence {
                var byEntry: [Int64: [FieldChange]] = [:]
                for row in try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT sequence, key, label, oldValue, newValue, message FROM change_field
                    WHERE sequence BETWEEN ? AND ? ORDER BY sequence, position
                    """), arguments: [first, last]) {
                    byEntry[row["sequence"], default: []].append(FieldChange(
                        key: row["key"], label: row["label"], oldValue: row["oldValue"], newValue: row["newValue"],
                        message: row["message"]))
                }
                for index in entries.indices {
                    entries[index].changes = byEntry[entries[index].sequence] ?? []
                }
            }
            return entries
        }
    }

    /// The newest sequence number (0 for an empty log): where a new follower starts.
    package func lastSequence() throws -> Int64 {
        try read("changes") { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(sequence) FROM change_log")) ?? 0 }
    }

    /// Whether the log's newest entry is entry `sequence` logged at `at` (for 0: whether the log
    /// is empty). The web wallet asks this on every request to know its kept list is current, so
    /// it is one read of the primary key's last entry by a statement prepared once per
    /// connection, outside a transaction (one statement reads one consistent state), where
    /// `changes(after:limit:)` prepared two statements in a read transaction.
    package func isLatestChange(sequence: Int64, at: Date?) throws -> Bool {
        let deadline = Self.deadline(after: options.retryDeadline)
        let newest = try Self.retrying("changes", path: path, until: deadline) {
            try dbQueue.unsafeReentrantRead { db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT sequence, at FROM change_log ORDER BY sequence DESC LIMIT 1"))
                    .map { row -> (sequence: Int64, at: Date) in (row["sequence"], Date(timeIntervalSince1970: row["at"])) }
            }
        }
        guard let newest else { return sequence == 0 }
        return newest.sequence == sequence && newest.at == at
    }
}

extension PassLibrary {
    /// Follows the log: returns the entries after `sequence` as soon as there are any, polling
    /// every `pollInterval` seconds (a read of the log's newest sequence number through the
    /// primary key), or an empty array once `timeout` has passed. A chat bridge loops on this.
    package func waitForChanges(after sequence: Int64, timeout: TimeInterval,
                                pollInterval: TimeInterval = 0.25, limit: Int = 1000) throws -> [ChangeEntry] {
        let deadline = Self.deadline(after: timeout)
        while true {
            if try lastSequence() > sequence { return try changes(after: sequence, limit: limit) }
            let remaining = ContinuousClock.now.duration(to: deadline).components
            let left = Double(remaining.seconds) + Double(remaining.attoseconds) / 1e18
            guard left > 0 else { return [] }
            usleep(UInt32(max(0.001, min(pollInterval, left)) * 1_000_000))
        }
    }
}
