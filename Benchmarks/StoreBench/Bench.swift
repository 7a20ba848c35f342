import Foundation
import LibraryRoot
import PassStore
import PassStorePostgres
import SyntheticPasses
import TestRandom

/// `StoreBench bench`: latency of `contains`, `add` and `passes()` (list) with many passes in
/// the library, through the backend interface the program uses (`any PassLibraryBackend`), so an
/// SQLite file and a PostgreSQL library are timed by the same code. The library is filled through
/// `add` itself (one transaction per pass) and kept between runs, so a second run measures at once.
enum Bench {
    struct Settings {
        var library: String
        var passes: Int
        var samples: Int
        var size: Int
        var synchronous: LibraryOptions.Synchronous
        var listSamples: Int
        var user: String?
        /// Adds in flight while filling (PostgreSQL only; an SQLite file has one writer).
        var fillConcurrency: Int
    }

    static func run(_ s: Settings) async throws {
        var options = LibraryOptions()
        options.synchronous = s.synchronous
        options.user = s.user
        let server = LibraryRoot.isServer(s.library)
        let openStart = ContinuousClock.now
        var lib = try await LibraryRoot.open(s.library, options: options)
        let firstOpen = ContinuousClock.now - openStart
        let type = "pass.bench.fill"
        let size = s.size, target = s.passes, samples = s.samples

        // Fill: serials 0..<target of `type`, skipping those present from an earlier run.
        var present = try await lib.count()
        let fillStart = ContinuousClock.now
        var filled = 0
        if present < target {
            filled = try await fill(lib, type: type, serials: present..<target, size: size,
                                    concurrency: server ? max(1, s.fillConcurrency) : 1)
            present = try await lib.count()
            guard present >= target else { throw BenchFailure("the library holds \(present) passes after filling to \(target)") }
        }
        let fillTime = ContinuousClock.now - fillStart

        // Reopen: the open a real command pays with this library.
        let reopenStart = ContinuousClock.now
        let second = try await LibraryRoot.open(s.library, options: options)
        let reopen = ContinuousClock.now - reopenStart
        await lib.close()
        lib = second
        let loadBefore = loadAverage()

        var rng = SeededGenerator(state: 42)
        // contains on stored passes (contained), on changed ones (update) and on unknown ids (new).
        var containsTimes: [Duration] = []
        var states: [LibraryState: Int] = [:]
        let probes = (0..<samples).map { i -> PassRecord in
            let serial = Int.random(in: 0..<present, using: &rng)
            switch i % 3 {
            case 0: return SyntheticPasses.record(type: type, serial: "\(serial)", version: 1, size: size)
            case 1: return SyntheticPasses.record(type: type, serial: "\(serial)", version: 2, size: size)
            default: return SyntheticPasses.record(type: "pass.bench.unknown", serial: "\(serial)", version: 1, size: size)
            }
        }
        for probe in probes {
            let start = ContinuousClock.now
            let state = try await lib.contains(probe)
            containsTimes.append(ContinuousClock.now - start)
            states[state, default: 0] += 1
        }

        // add of new passes, each its own transaction (validation and SHA-256 of the bytes included).
        let runID = UInt64(Date().timeIntervalSince1970 * 1000)
        let newPasses = (0..<samples).map {
            SyntheticPasses.record(type: "pass.bench.add\(runID)", serial: "\($0)", version: 1, size: size)
        }
        var addTimes: [Duration] = []
        for r in newPasses {
            let start = ContinuousClock.now
            try await lib.add(r)
            addTimes.append(ContinuousClock.now - start)
        }
        // Leave the library at `target` passes for the next run.
        for r in newPasses { try await lib.remove(r.id) }

        let someID = PassID(passTypeIdentifier: type, serialNumber: "\(present / 2)")
        let exportStart = ContinuousClock.now
        let exported = try await lib.export(someID)
        let exportTime = ContinuousClock.now - exportStart
        guard let stored = try await lib.pass(someID) else { throw BenchFailure("\(someID) is not in the library") }
        let resolveStart = ContinuousClock.now
        let resolved = try await lib.resolve(String(stored.sha256.prefix(8)))
        let resolveTime = ContinuousClock.now - resolveStart

        // list: every pass's metadata (`passes()`, what `list` shows), several times.
        var listTimes: [Duration] = []
        var listed = 0
        for _ in 0..<max(1, s.listSamples) {
            let start = ContinuousClock.now
            listed = try await lib.passes().count
            listTimes.append(ContinuousClock.now - start)
        }

        var bytesText = ""
        if !server, let fileBytes = try? FileManager.default.attributesOfItem(atPath: s.library)[.size] as? Int {
            bytesText = ", \(fileBytes / 1_000_000) MB"
        }
        print("library: \(lib.location) (\(server ? "PostgreSQL" : "SQLite, synchronous=\(s.synchronous.rawValue)"); \(present) passes of \(size) B\(bytesText))")
        if filled > 0 { print("fill: \(filled) adds in \(fmt(fillTime)) (\(fmt(fillTime / filled)) each)") }
        print("open: \(fmt(firstOpen)); second open in the same process: \(fmt(reopen)); load average \(loadBefore) before timing, \(loadAverage()) after")
        print("contains: n=\(containsTimes.count) median \(fmt(percentile(containsTimes, 0.5))) p90 \(fmt(percentile(containsTimes, 0.9))) p99 \(fmt(percentile(containsTimes, 0.99))) max \(fmt(containsTimes.max()!)) states \(states.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: " "))")
        print("add:      n=\(addTimes.count) median \(fmt(percentile(addTimes, 0.5))) p90 \(fmt(percentile(addTimes, 0.9))) p99 \(fmt(percentile(addTimes, 0.99))) max \(fmt(addTimes.max()!)); over 5 ms: \(addTimes.filter { $0 > .milliseconds(5) }.count)")
        print("list:     n=\(listTimes.count) median \(fmt(percentile(listTimes, 0.5))) p99 \(fmt(percentile(listTimes, 0.99))) max \(fmt(listTimes.max()!)) (passes() of \(listed))")
        print("export: \(exported.count) B in \(fmt(exportTime)); resolve 8-digit prefix -> \(resolved == someID ? "ok" : "WRONG") in \(fmt(resolveTime))")
        // One line for run.sh to compare backends: milliseconds.
        print("summary contains_median=\(ms(percentile(containsTimes, 0.5))) contains_p99=\(ms(percentile(containsTimes, 0.99))) add_median=\(ms(percentile(addTimes, 0.5))) add_p99=\(ms(percentile(addTimes, 0.99))) list_median=\(ms(percentile(listTimes, 0.5))) list_p99=\(ms(percentile(listTimes, 0.99)))")

        if let pg = lib as? PostgresLibrary {
            try await RoundTrips.run(pg, samples: samples, probes: probes)
        }
        await lib.close()
    }

    /// Adds serials `serials` of `type`, up to `concurrency` at a time.
    static func fill(_ lib: any PassLibraryBackend, type: String, serials: Range<Int>, size: Int, concurrency: Int) async throws -> Int {
        var filled = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = serials.lowerBound
            func start() {
                let serial = next
                next += 1
                group.addTask { try await lib.add(SyntheticPasses.record(type: type, serial: "\(serial)", version: 1, size: size)) }
            }
            while next < serials.upperBound && next - serials.lowerBound < concurrency { start() }
            while try await group.next() != nil {
                filled += 1
                if filled % 10_000 == 0 { log("filled \(serials.lowerBound + filled) of \(serials.upperBound)") }
                if next < serials.upperBound { start() }
            }
        }
        return filled
    }

    static func percentile(_ values: [Duration], _ p: Double) -> Duration {
        let sorted = values.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
        return sorted[index]
    }

    static func ms(_ d: Duration) -> String {
        let (seconds, attoseconds) = d.components
        return String(format: "%.4f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    static func fmt(_ d: Duration) -> String {
        let (seconds, attoseconds) = d.components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return ms >= 1000 ? String(format: "%.2f s", ms / 1000) : String(format: "%.3f ms", ms)
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static func log(_ text: String) {
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ text: String) { description = text }
}
