import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

/// 16 processes × 200 operations on one fresh library, all started at once: opening and
/// migrating together, adding, replacing, offering (some offers the same pass in every process),
/// reading and reopening. None may fail (no "database is locked"), and every row each one
/// committed must be there afterwards.
final class MultiProcessTests: XCTestCase {
    func testSixteenProcessesAddingAndOfferingAtOnceLoseNothing() throws {
        let dir = TempDir()
        let workers = 16, ops = 200
        let started = Date()
        let processes = try (0..<workers).map { worker in
            try TestChildProcess.start(["worker", "--library", dir.library, "--worker", "\(worker)", "--ops", "\(ops)",
                                         "--size", "6000"], output: dir.path + "/worker\(worker)")
        }
        var expectedPasses: [PassID: String] = [:]
        var expectedOffers: [PassID: String] = [:]
        var expectedLog = 0
        for (worker, process) in processes.enumerated() {
            process.waitUntilExit()
            let stderr = TestChildProcess.text(dir.path + "/worker\(worker).err")
            XCTAssertEqual(process.terminationStatus, 0, "worker \(worker): \(stderr)")
            XCTAssertFalse(stderr.contains("locked"), stderr)
            for line in TestChildProcess.text(dir.path + "/worker\(worker).out").split(separator: "\n") {
                let parts = line.split(separator: " ").map(String.init)
                switch parts.first {
                case "pass": expectedPasses[PassID(passTypeIdentifier: parts[1], serialNumber: parts[2])] = parts[3]
                case "offer": expectedOffers[PassID(passTypeIdentifier: parts[1], serialNumber: parts[2])] = parts[3]
                case "log": expectedLog += Int(parts[1]) ?? -1_000_000
                default: XCTFail("unexpected worker output \(line)")
                }
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(expectedPasses.count, workers * ops / 2)
        XCTAssertEqual(expectedOffers.count, workers * ops / 8)

        let library = try PassLibrary(path: dir.library)
        // Every pass each worker committed, with the bytes of its last write
        let stored = Dictionary(uniqueKeysWithValues: try library.passes().map { ($0.id, $0.sha256) })
        XCTAssertEqual(stored, expectedPasses)
        // Every offer, plus exactly one for each of the 10 passes all workers offered
        let offers = try library.offers()
        let shared = offers.filter { $0.passID.passTypeIdentifier == "pass.test.shared" }
        XCTAssertEqual(Set(shared.map(\.passID.serialNumber)), Set((0..<10).map { "s\($0)" }))
        let own = Dictionary(uniqueKeysWithValues: offers.filter { $0.passID.passTypeIdentifier != "pass.test.shared" }
            .map { ($0.passID, $0.sha256) })
        XCTAssertEqual(own, expectedOffers)
        // One log entry per committed write (shared offers once each), sequence numbers unbroken
        let log = try library.changes(after: 0, limit: 10_000)
        XCTAssertEqual(log.count, expectedLog + 10)
        XCTAssertEqual(log.map(\.sequence), Array(1...Int64(log.count)))
        XCTAssertEqual(try library.check(), [])
        print("16 processes x \(ops) operations: \(String(format: "%.2f", elapsed)) s, \(log.count) change entries")
    }

    /// GRDB's migrator races when processes migrate a fresh file together (7 failures in 200
    /// processes in research/swift-feasibility.md §2d); under the flock none may fail.
    func testSixteenProcessesCreatingTheSameFreshLibraryAtOnceAllSucceed() throws {
        let dir = TempDir()
        for round in 0..<8 {
            let library = dir.path + "/round\(round)/library.sqlite"
            let processes = try (0..<16).map { worker in
                try TestChildProcess.start(["worker", "--library", library, "--worker", "\(worker)", "--ops", "1",
                                             "--size", "1000"], output: dir.path + "/open\(round)-\(worker)")
            }
            for (worker, process) in processes.enumerated() {
                process.waitUntilExit()
                XCTAssertEqual(process.terminationStatus, 0,
                               "round \(round) worker \(worker): \(TestChildProcess.text(dir.path + "/open\(round)-\(worker).err"))")
            }
            let opened = try PassLibrary(path: library)
            XCTAssertEqual(try opened.count(), 16)
            XCTAssertEqual(try opened.check(), [])
        }
    }
}
