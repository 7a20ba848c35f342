import Foundation
import PostgresTestKit
import XCTest
@testable import PassStore
import PassStorePostgres

/// MultiProcessTests on PostgreSQL: 16 StoreBench worker processes × 200 operations on one
/// user's library in one database, as two hosts with two configurations (8 processes each,
/// different locations to the same server), all at once: every row each committed is there,
/// no duplicates, the change log complete and unbroken. Sessions terminated while writers run:
/// PostgresTerminateTests (in one process, a few seconds); one terminated writer waiting for the
/// lock: PostgresLibraryTests.
final class PostgresMultiProcessTests: XCTestCase {
    func testSixteenProcessesOnTwoHostsLoseNothing() throws {
        try runWorkers()
    }

    private func runWorkers() throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let dir = TempDir()
        let hosts = [
            server.location(database: database, extra: "application_name=host-a"),
            "postgresql:///\(database)?host=\(server.socketFolder)&user=postgres&application_name=host-b&connect_timeout=5",
        ]
        let workers = 16, ops = 200
        let started = Date()
        let processes = try (0..<workers).map { worker in
            try TestChildProcess.start(["worker", "--library", hosts[worker % 2], "--worker", "\(worker)", "--ops", "\(ops)",
                                         "--size", "2000", "--user", "shared"], output: dir.path + "/worker\(worker)")
        }
        var expectedPasses: [PassID: String] = [:]
        var expectedOffers: [PassID: String] = [:]
        var expectedLog = 0
        for (worker, process) in processes.enumerated() {
            process.waitUntilExit()
            let stderr = TestChildProcess.text(dir.path + "/worker\(worker).err")
            XCTAssertEqual(process.terminationStatus, 0, "worker \(worker): \(stderr)")
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

        var options = LibraryOptions()
        options.user = "shared"
        let library = try Blocking.run { [options] in try await PostgresLibrary.open(hosts[0], options: options) }
        defer { try? Blocking.run { await library.close() } }
        let stored = try Blocking.run { try await library.passes() }
        XCTAssertEqual(stored.count, Set(stored.map(\.id)).count, "no pass twice")
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.sha256) }), expectedPasses)
        let offers = try Blocking.run { try await library.offers() }
        let shared = offers.filter { $0.passID.passTypeIdentifier == "pass.test.shared" }
        XCTAssertEqual(shared.count, 10)
        XCTAssertEqual(Set(shared.map(\.passID.serialNumber)), Set((0..<10).map { "s\($0)" }))
        let own = Dictionary(uniqueKeysWithValues: offers.filter { $0.passID.passTypeIdentifier != "pass.test.shared" }
            .map { ($0.passID, $0.sha256) })
        XCTAssertEqual(own, expectedOffers)
        let log = try Blocking.run { try await library.changes(after: 0, limit: 10_000) }
        XCTAssertEqual(log.count, expectedLog + 10)
        XCTAssertEqual(log.map(\.sequence), Array(1...Int64(log.count)))
        XCTAssertEqual(try Blocking.run { try await library.check() }, [])
        print("PostgreSQL, 16 processes x \(ops) operations on 2 hosts: \(String(format: "%.2f", elapsed)) s, \(log.count) change entries")
    }
}
