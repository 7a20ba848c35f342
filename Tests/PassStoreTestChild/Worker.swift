import Foundation
import LibraryRoot
import PassStore
import SyntheticPasses

/// `PassStoreTestChild worker`: one of many processes writing to one library at once (the multi-process
/// test). Every op is a write; a few reads are mixed in. Prints one line per row it expects to
/// find afterwards ("pass TYPE SERIAL SHA", "offer TYPE SERIAL SHA") and "log N" for the change
/// entries it caused. Exits 1 at the first error (a "database is locked" included).
enum Worker {
    /// `library` is any location (a file, or postgresql://…, opened by the composition root);
    /// `user` whose library on a server.
    static func run(library: String, worker: Int, ops: Int, size: Int, user: String?) throws {
        var options = LibraryOptions()
        options.user = user
        let lib = try LibraryRoot.openBlocking(library, options: options)
        let own = "pass.test.worker\(worker)"
        var passes: [String: String] = [:]
        var offers: [String] = []
        var logged = 0
        func call<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T { try Blocking.run(body) }
        /// A write; when the server lost the connection while committing (`unavailable`, outcome
        /// unknown), the library says whether it happened: `done` answers, and the write is tried
        /// again only if it did not.
        func write(_ body: @escaping @Sendable () async throws -> Void, done: @escaping @Sendable () async throws -> Bool) throws {
            while true {
                do { return try call(body) } catch let error as LibraryError where error.kind == .unavailable {
                    if try call(done) { return }
                }
            }
        }
        for k in 0..<ops {
            switch k % 8 {
            case 0, 1, 4, 5:
                let r = SyntheticPasses.record(type: own, serial: "\(k)", version: 1, size: size)
                guard try call({ try await lib.contains(r) }) == .new else { throw Failure("\(own)/\(k) was not new") }
                try write({ try await lib.add(r) }, done: { try await lib.contains(r) == .contained })
                passes[r.id.description] = r.sha256
                logged += 1
            case 2:
                let r = SyntheticPasses.record(type: "pass.test.offer", serial: "w\(worker)-\(k)", version: 1, size: size)
                try write({ try await lib.stageOffer(r) }, done: { try await lib.offers().contains { $0.passID == r.id } })
                offers.append("offer \(r.id.passTypeIdentifier) \(r.id.serialNumber) \(r.sha256)")
                logged += 1
            case 3:
                // The same pass staged by every worker: one offer, one log entry in all.
                let r = SyntheticPasses.record(type: "pass.test.shared", serial: "s\((k / 8) % 10)", version: 1, size: size)
                try write({ _ = try await lib.stageOffer(r) }, done: { try await lib.offers().contains { $0.passID == r.id } })
            case 6:
                // Replace the pass added at k - 6 (a later signing time makes it an update).
                let r = SyntheticPasses.record(type: own, serial: "\(k - 6)", version: 2, size: size)
                guard try call({ try await lib.contains(r) }) == .update else { throw Failure("\(own)/\(k - 6) is not an update") }
                var changes: [FieldChange]? = nil
                while changes == nil {
                    do { changes = try call { try await lib.replace(with: r) } } catch let error as LibraryError where error.kind == .unavailable {
                        if try call({ try await lib.contains(r) == .contained }) { changes = [] }
                    }
                }
                guard changes == [] || changes!.contains(where: { $0.key == "gate" && $0.message == "Gate changed to G2" }) else {
                    throw Failure("replace reported \(changes!)")
                }
                passes[r.id.description] = r.sha256
                logged += 1
            default:
                // Reopen now and then: opening contends (the flock, the schema check) while others write.
                let again = try LibraryRoot.openBlocking(library, options: options)
                _ = try call { try await again.lastSequence() }
                try call { await again.close() }
                _ = try call { try await lib.offers() }
            }
        }
        try call { await lib.close() }
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
