import Foundation
import PassStore
import SyntheticPasses
import TestRandom

/// `StoreBench bench`: latency of `contains` and `add` with many passes in the library.
/// The library is filled through `add` itself (one transaction per pass) and kept between
/// runs, so a second run measures at once.
enum Bench {
    static func run(library: String, passes target: Int, samples: Int, size: Int, synchronous: LibraryOptions.Synchronous) throws {
        var options = LibraryOptions()
        options.synchronous = synchronous
        let openStart = ContinuousClock.now
        var lib = try PassLibrary(path: library, options: options)
        let firstOpen = ContinuousClock.now - openStart
        let type = "pass.bench.fill"

        // Fill: serials 0..<target of `type`, skipping those present from an earlier run.
        var present = try lib.count()
        let fillStart = ContinuousClock.now
        var filled = 0
        if present < target {
            for serial in present..<target {
                try lib.add(SyntheticPasses.record(type: type, serial: "\(serial)", version: 1, size: size))
                filled += 1
                if filled % 10_000 == 0 { log("filled \(present + filled) of \(target)") }
            }
            present = target
        }
        let fillTime = ContinuousClock.now - fillStart

        // Reopen: the open a real command pays with this library.
        let reopenStart = ContinuousClock.now
        let second = try PassLibrary(path: library, options: options)
        let reopen = ContinuousClock.now - reopenStart
        lib = second

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
            let state = try lib.contains(probe)
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
            try lib.add(r)
            addTimes.append(ContinuousClock.now - start)
        }
        // Leave the library at `target` passes for the next run.
        for r in newPasses { try lib.remove(r.id) }

        let someID = PassID(passTypeIdentifier: type, serialNumber: "\(present / 2)")
        let exportStart = ContinuousClock.now
        let exported = try lib.export(someID)
        let exportTime = ContinuousClock.now - exportStart
        let stored = try lib.pass(someID)!
        let resolveStart = ContinuousClock.now
        let resolved = try lib.resolve(String(stored.sha256.prefix(8)))
        let resolveTime = ContinuousClock.now - resolveStart
        let listStart = ContinuousClock.now
        let listed = try lib.passes().count
        let listTime = ContinuousClock.now - listStart

        let fileBytes = (try? FileManager.default.attributesOfItem(atPath: library)[.size] as? Int) ?? 0
        print("library: \(library) (\(present) passes of \(size) B, \(fileBytes / 1_000_000) MB, synchronous=\(synchronous.rawValue))")
        if filled > 0 { print("fill: \(filled) adds in \(fmt(fillTime)) (\(fmt(fillTime / filled)) each)") }
        print("open: \(fmt(firstOpen)); second connection in the same process: \(fmt(reopen)); load average \(loadAverage())")
        print("contains: n=\(containsTimes.count) median \(fmt(percentile(containsTimes, 0.5))) p90 \(fmt(percentile(containsTimes, 0.9))) p99 \(fmt(percentile(containsTimes, 0.99))) max \(fmt(containsTimes.max()!)) states \(states.map { "\($0.key.rawValue)=\($0.value)" }.sorted().joined(separator: " "))")
        print("add:      n=\(addTimes.count) median \(fmt(percentile(addTimes, 0.5))) p90 \(fmt(percentile(addTimes, 0.9))) p99 \(fmt(percentile(addTimes, 0.99))) max \(fmt(addTimes.max()!)); over 5 ms: \(addTimes.filter { $0 > .milliseconds(5) }.count)")
        print("export: \(exported.count) B in \(fmt(exportTime)); resolve 8-digit prefix -> \(resolved == someID ? "ok" : "WRONG") in \(fmt(resolveTime)); passes() of \(listed) in \(fmt(listTime))")
    }

    static func percentile(_ values: [Duration], _ p: Double) -> Duration {
        let sorted = values.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
        return sorted[index]
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
