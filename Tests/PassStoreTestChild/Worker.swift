import Foundation
import PassStore
import SyntheticPasses

/// `PassStoreTestChild worker`: one of many processes writing to one library at once (the multi-process
/// test). Every op is a write; a few reads are mixed in. Prints one line per row it expects to
/// find afterwards ("pass TYPE SERIAL SHA", "offer TYPE SERIAL SHA") and "log N" for the change
/// entries it caused. Exits 1 at the first error (a "database is locked" included).
enum Worker {
    static func run(library: String, worker: Int, ops: Int, size: Int) throws {
        let lib = try PassLibrary(path: library)
        let own = "pass.test.worker\(worker)"
        var passes: [String: String] = [:]
        var offers: [String] = []
        var logged = 0
        for k in 0..<ops {
            switch k % 8 {
            case 0, 1, 4, 5:
                let r = SyntheticPasses.record(type: own, serial: "\(k)", version: 1, size: size)
                guard try lib.contains(r) == .new else { throw Failure("\(own)/\(k) was not new") }
                try lib.add(r)
                passes[r.id.description] = r.sha256
                logged += 1
            case 2:
                let r = SyntheticPasses.record(type: "pass.test.offer", serial: "w\(worker)-\(k)", version: 1, size: size)
                try lib.stageOffer(r)
                offers.append("offer \(r.id.passTypeIdentifier) \(r.id.serialNumber) \(r.sha256)")
                logged += 1
            case 3:
                // The same pass staged by every worker: one offer, one log entry in all.
                let r = SyntheticPasses.record(type: "pass.test.shared", serial: "s\((k / 8) % 10)", version: 1, size: size)
                _ = try lib.stageOffer(r)
            case 6:
                // Replace the pass added at k - 6 (a later signing time makes it an update).
                let r = SyntheticPasses.record(type: own, serial: "\(k - 6)", version: 2, size: size)
                guard try lib.contains(r) == .update else { throw Failure("\(own)/\(k - 6) is not an update") }
                let changes = try lib.replace(with: r)
                guard changes.contains(where: { $0.key == "gate" && $0.message == "Gate changed to G2" }) else {
                    throw Failure("replace reported \(changes)")
                }
                passes[r.id.description] = r.sha256
                logged += 1
            default:
                // Reopen now and then: opening contends for the flock while others write.
                _ = try PassLibrary(path: library).lastSequence()
                _ = try lib.offers()
            }
        }
        var lines = passes.sorted { $0.key < $1.key }.map { key, sha -> String in
            let slash = key.firstIndex(of: "/")!
            return "pass \(key[..<slash]) \(key[key.index(after: slash)...]) \(sha)"
        }
        lines += offers
        lines.append("log \(logged)")
        print(lines.joined(separator: "\n"))
    }
}

struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}
