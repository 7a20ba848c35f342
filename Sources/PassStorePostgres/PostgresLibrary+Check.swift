import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    /// The SQLite library's check on this user's rows, in one snapshot: the change log replayed
    /// gives exactly the passes stored, offers match their latest `offer` entry, no pass keeps more
    /// than `keptVersions` versions, no version without its pass, no unused blob, the log's numbers
    /// are 1…last without a gap, and with `verifyBytes` every blob hashes to its SHA-256. The
    /// server's constraints stand in for SQLite's integrity and foreign-key checks. Read-only.
    package func check(verifyBytes: Bool) async throws -> [String] {
        let kept = options.keptVersions
        return try await read("check", snapshot: true) { tx in
            var problems: [String] = []
            var expected: [PassID: String] = [:]
            var lastOffer: [PassID: String] = [:]
            var previous: Int64 = 0
            for row in try await tx.rows(#"SELECT sequence, kind, pass_type_identifier, serial_number, sha256 FROM passconduit.change_log WHERE "user" = $1 ORDER BY sequence"#, [tx.user]) {
                let (sequence, kind, type, serial, digest) = try row.decode((Int64, String, String, String, String?).self)
                if sequence != previous + 1 { problems.append("change_log: sequence \(sequence) follows \(previous)") }
                previous = sequence
                let id = PassID(passTypeIdentifier: type, serialNumber: serial)
                switch ChangeKind(rawValue: kind) {
                case .add?, .replace?, .revert?: expected[id] = digest ?? ""
                case .remove?: expected[id] = nil
                case .offer?: lastOffer[id] = digest ?? ""
                case .decline?: break
                case nil: problems.append("change_log: unknown kind for \(id)")
                }
            }
            let counter = try await tx.rows("SELECT last_sequence FROM passconduit.library_user WHERE name = $1", [tx.user]).first?.decode(Int64.self) ?? 0
            if counter != previous { problems.append("change_log: the counter says \(counter) but the last entry is \(previous)") }
            var stored: [PassID: String] = [:]
            for row in try await tx.rows(#"SELECT pass_type_identifier, serial_number, sha256 FROM passconduit.pass WHERE "user" = $1"#, [tx.user]) {
                let (type, serial, digest) = try row.decode((String, String, String).self)
                stored[PassID(passTypeIdentifier: type, serialNumber: serial)] = digest
            }
            for (id, digest) in stored where expected[id] != digest {
                problems.append("pass \(id) holds \(digest.prefix(12)) but the change log says \(expected[id].map { String($0.prefix(12)) } ?? "absent")")
            }
            for (id, digest) in expected where stored[id] == nil {
                problems.append("pass \(id) (\(digest.prefix(12))) is in the change log but not in the library")
            }
            for row in try await tx.rows(#"SELECT pass_type_identifier, serial_number, sha256 FROM passconduit.offer WHERE "user" = $1"#, [tx.user]) {
                let (type, serial, digest) = try row.decode((String, String, String).self)
                let id = PassID(passTypeIdentifier: type, serialNumber: serial)
                if lastOffer[id] != digest {
                    problems.append("offer for \(id) holds \(digest.prefix(12)), not what the change log last offered")
                }
            }
            for row in try await tx.rows("""
                SELECT pass_type_identifier, serial_number, count(*) FROM passconduit.pass_version WHERE "user" = $1
                GROUP BY pass_type_identifier, serial_number HAVING count(*) > $2
                """, [tx.user, kept]) {
                let (type, serial, n) = try row.decode((String, String, Int).self)
                problems.append("pass \(type)/\(serial) keeps \(n) versions")
            }
            let orphanVersions = try await tx.rows("""
                SELECT count(*) FROM passconduit.pass_version v WHERE v."user" = $1 AND NOT EXISTS
                  (SELECT 1 FROM passconduit.pass p WHERE p."user" = v."user" AND p.pass_type_identifier = v.pass_type_identifier
                     AND p.serial_number = v.serial_number)
                """, [tx.user])[0].decode(Int.self)
            if orphanVersions > 0 { problems.append("\(orphanVersions) earlier versions belong to no pass") }
            let unused = try await tx.rows("""
                SELECT count(*) FROM passconduit.pass_blob b WHERE b."user" = $1
                  AND NOT EXISTS (SELECT 1 FROM passconduit.pass WHERE "user" = b."user" AND sha256 = b.sha256)
                  AND NOT EXISTS (SELECT 1 FROM passconduit.pass_version WHERE "user" = b."user" AND sha256 = b.sha256)
                  AND NOT EXISTS (SELECT 1 FROM passconduit.offer WHERE "user" = b."user" AND sha256 = b.sha256)
                """, [tx.user])[0].decode(Int.self)
            if unused > 0 { problems.append("\(unused) stored blobs are used by nothing") }
            if verifyBytes {
                // The server hashes (sha256() is built in), so no blob crosses the network.
                let bad = try await tx.rows("""
                    SELECT sha256 FROM passconduit.pass_blob WHERE "user" = $1 AND encode(sha256(bytes), 'hex') <> sha256
                    """, [tx.user]).map { try $0.decode(String.self) }
                problems += bad.map { "blob \($0.prefix(12)) does not hash to its SHA-256" }
            }
            return problems
        }
    }
}
