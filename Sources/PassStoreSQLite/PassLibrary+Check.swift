import Foundation
import GRDB
import CSQLiteLazy   // links the trampolines that load the library on first use (script/gen-lazy-shims)
import PassStore
import Support

extension PassLibrary {
    /// SQLite, loaded on first use (CSQLiteLazy): `init(path:)` loads it before anything else.
    package static let sqlite = NativeLibrary(purpose: "the pass library", load: csqlitelazy_load)

    /// Checks the library end to end and returns the problems found (empty when sound):
    /// SQLite's `integrity_check` and `foreign_key_check`; the change log replayed gives exactly
    /// the passes stored (so no write was half applied); every offer matches its latest `offer`
    /// entry; no pass keeps more than `keptVersions` earlier versions; no blob is unreferenced;
    /// with `verifyBytes`, every blob hashes to its SHA-256. Read-only.
    package func check(verifyBytes: Bool = true) throws -> [String] {
        try read("check") { db in
            var problems: [String] = []
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            if integrity != ["ok"] { problems += integrity.map { "integrity_check: \($0)" } }
            let foreign = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if !foreign.isEmpty { problems.append("foreign_key_check: \(foreign.count) rows point nowhere") }

            // Replay: the last add/replace/revert/remove entry of each id decides its state.
            var expected: [PassID: String] = [:]
            var lastOffer: [PassID: String] = [:]
            let entries = try Row.fetchCursor(db, sql: """
                SELECT kind, passTypeIdentifier, serialNumber, sha256 FROM change_log ORDER BY sequence
                """)
            while let row = try entries.next() {
                let id = PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"])
                let digest: String? = row["sha256"]
                switch ChangeKind(rawValue: row["kind"]) {
                case .add?, .replace?, .revert?: expected[id] = digest ?? ""
                case .remove?: expected[id] = nil
                case .offer?: lastOffer[id] = digest ?? ""
                case .decline?: break
                case nil: problems.append("change_log: unknown kind for \(id)")
                }
            }
            var stored: [PassID: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT passTypeIdentifier, serialNumber, sha256 FROM pass") {
                stored[PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"])] = row["sha256"]
            }
            for (id, digest) in stored where expected[id] != digest {
                problems.append("pass \(id) holds \(digest.prefix(12)) but the change log says \(expected[id].map { String($0.prefix(12)) } ?? "absent")")
            }
            for (id, digest) in expected where stored[id] == nil {
                problems.append("pass \(id) (\(digest.prefix(12))) is in the change log but not in the library")
            }
            for offer in try Row.fetchAll(db, sql: "SELECT passTypeIdentifier, serialNumber, sha256 FROM offer") {
                let id = PassID(passTypeIdentifier: offer["passTypeIdentifier"], serialNumber: offer["serialNumber"])
                let digest: String = offer["sha256"]
                if lastOffer[id] != digest {
                    problems.append("offer for \(id) holds \(digest.prefix(12)), not what the change log last offered")
                }
            }
            let crowded = try Row.fetchAll(db, sql: """
                SELECT passTypeIdentifier, serialNumber, count(*) AS n FROM pass_version
                GROUP BY passTypeIdentifier, serialNumber HAVING n > ?
                """, arguments: [options.keptVersions])
            problems += crowded.map { "pass \($0["passTypeIdentifier"] as String)/\($0["serialNumber"] as String) keeps \($0["n"] as Int) versions" }
            let orphanVersions = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM pass_version v WHERE NOT EXISTS
                  (SELECT 1 FROM pass p WHERE p.passTypeIdentifier = v.passTypeIdentifier AND p.serialNumber = v.serialNumber)
                """) ?? 0
            if orphanVersions > 0 { problems.append("\(orphanVersions) earlier versions belong to no pass") }
            let unused = try Int.fetchOne(db, sql: """
                SELECT count(*) FROM pass_blob b
                WHERE NOT EXISTS (SELECT 1 FROM pass WHERE sha256 = b.sha256)
                  AND NOT EXISTS (SELECT 1 FROM pass_version WHERE sha256 = b.sha256)
                  AND NOT EXISTS (SELECT 1 FROM offer WHERE sha256 = b.sha256)
                """) ?? 0
            if unused > 0 { problems.append("\(unused) stored blobs are used by nothing") }
            if verifyBytes {
                let blobs = try Row.fetchCursor(db, sql: "SELECT sha256, bytes FROM pass_blob")
                while let row = try blobs.next() {
                    let digest: String = row["sha256"]
                    let data: Data = row["bytes"]
                    if Digest.sha256Hex([UInt8](data)) != digest {
                        problems.append("blob \(digest.prefix(12)) does not hash to its SHA-256")
                    }
                }
            }
            return problems
        }
    }
}
