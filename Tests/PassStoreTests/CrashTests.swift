import Foundation
import XCTest
@testable import PassStore

/// A child writing every kind of change without pause is killed with SIGKILL at a random moment,
/// 200 times, on one library (started afresh every 25 kills, so some kills land while the library
/// is created and migrated). After every kill the library must open and pass `check()`:
/// integrity_check, and the change log replayed equals the stored passes and offers — so each
/// write is there entirely or not at all — and the log reaches at least the last commit the child
/// reported before it died (no committed write is lost; at most the one in flight is added).
final class CrashTests: XCTestCase {
    func testKillingAWriterAtRandomPointsAlwaysLeavesAConsistentLibrary() throws {
        let dir = TempDir()
        var rng = SystemRandomNumberGenerator()
        var killedMidRun = 0
        var sequences: [Int64] = []
        var checkedCommits = 0
        let started = Date()
        for iteration in 0..<200 {
            let library = dir.path + "/lib\(iteration / 25)/library.sqlite"
            let child = try StoreBenchProcess.start(["crash-child", "--library", library, "--seed", "\(iteration + 1)"],
                                                    output: dir.path + "/child")
            // Child start-up takes some tens of ms; kill anywhere from during start-up to well into its writes.
            usleep(UInt32.random(in: 5_000...90_000, using: &rng))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            if child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL {
                killedMidRun += 1
            } else {
                XCTFail("iteration \(iteration): child exited by itself (\(child.terminationStatus)): \(StoreBenchProcess.text(dir.path + "/child.err"))")
            }
            guard FileManager.default.fileExists(atPath: library) else { continue }   // killed before creating it
            let reopened = try PassLibrary(path: library)
            let problems = try reopened.check()
            XCTAssertEqual(problems, [], "iteration \(iteration)")
            if !problems.isEmpty { break }
            let last = try reopened.lastSequence()
            sequences.append(last)
            let reported = StoreBenchProcess.text(dir.path + "/child.out").split(separator: "\n")
                .compactMap { $0.hasPrefix("committed ") ? Int64($0.dropFirst(10)) : nil }.last
            if let reported {
                XCTAssertGreaterThanOrEqual(last, reported, "iteration \(iteration): a reported commit was lost")
                XCTAssertLessThanOrEqual(last, reported + 1, "iteration \(iteration): more than the write in flight appeared")
                checkedCommits += 1
            }
        }
        XCTAssertEqual(killedMidRun, 200)
        // The children did write: the logs grew across kills of the same library.
        XCTAssertGreaterThan(sequences.max() ?? 0, 100)
        XCTAssertGreaterThan(checkedCommits, 100, "most children should have committed before the kill")
        print("crash test: 200 SIGKILLs in \(String(format: "%.1f", Date().timeIntervalSince(started))) s, largest log \(sequences.max() ?? 0), \(checkedCommits) kills after a reported commit")
    }
}
