import Foundation
import PassStore
import PassStoreSQLite
import Support
import SyntheticPasses
import TestRandom

/// `PassStoreTestChild crash-child`: writes to the library without end, choosing among every kind of
/// write, until the crash test kills it with SIGKILL. Ids come from small pools so the library
/// stays small however long it runs. After each write returns it writes "committed N" (N = the
/// newest change-log sequence) to stdout with one unbuffered write(2), so the test knows the
/// last commit the child saw succeed.
enum CrashChild {
    static func report(_ lib: PassLibrary) throws {
        let line = Array("committed \(try lib.lastSequence())\n".utf8)
        // write(2) takes the buffer's base address and exactly its length.
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }

    static func run(library: String, seed: UInt64) throws -> Never {
        var rng = SeededGenerator(state: seed)
        let lib = try PassLibrary(path: library)
        var version = Int(seed % 1_000_000) * 1000
        while true {
            version += 1
            let size = Int.random(in: 2_000...32_000, using: &rng)
            let serial = "\(Int.random(in: 0..<24, using: &rng))"
            let type = "pass.test.crash"
            // Signing times grow with the wall clock, so each new version is an update.
            let now = Date()
            let r = SyntheticPasses.record(type: type, serial: serial, version: version, size: size, signingTime: now)
            switch (try lib.contains(r), Int.random(in: 0..<10, using: &rng)) {
            case (.new, _):
                try lib.add(r)
            case (_, 0...4):
                _ = try lib.replace(with: r)
            case (_, 5...6):
                if (try lib.pass(r.id))?.previousVersions ?? 0 > 0 { _ = try lib.revert(r.id) }
            default:
                try lib.remove(r.id)
            }
            try report(lib)
            let offer = SyntheticPasses.record(type: "pass.test.crash-offer", serial: "\(Int.random(in: 0..<8, using: &rng))",
                                               version: version, size: size, signingTime: now)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0, 1:
                try lib.stageOffer(offer)
            case 2:
                if let pending = try lib.offers().first { try lib.declineOffer(pending.offerID) }
            default:
                if let pending = try lib.offers().first {
                    let bytes = try lib.offerBytes(pending.offerID)
                    var accepted = SyntheticPasses.record(type: pending.passID.passTypeIdentifier,
                                                          serial: pending.passID.serialNumber, version: 0, size: 0,
                                                          signingTime: pending.signingTime)
                    accepted.hashed = HashedBytes(bytes)
                    do { try lib.acceptOffer(pending.offerID, record: accepted) } catch let e as LibraryError where e.kind == .refused {
                        try lib.declineOffer(pending.offerID)   // stale against the library: drop it
                    }
                }
            }
            try report(lib)
        }
    }
}
