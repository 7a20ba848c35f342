import Foundation
import PassStore
import PassStorePostgres
import PassStoreSQLite
import PostgresTestKit
import XCTest

/// Issue 37 defects 3 and 8 on both web-state stores: sign-in attempts counted before the
/// password is checked, one by one, from several stores on one state (several `serve` hosts);
/// strangers' failures leave the owner's own client free; the counters listed and cleared.
final class WebThrottleStoreTests: XCTestCase {
    /// Three stores on one state: the SQLite file beside a library, or one PostgreSQL database.
    func stores(_ kind: String) throws -> [any WebStateStore] {
        switch kind {
        case "sqlite":
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("web-throttle-\(UUID().uuidString)")
            addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
            let path = dir.appendingPathComponent("web-sessions.sqlite").path
            return try (0..<3).map { _ in try WebStateFile(path: path) }
        default:
            let server = try PostgresTestServer.shared
            let location = server.location(database: try server.database())
            return try (0..<3).map { _ in try PostgresWebState(location: location) }
        }
    }

    func testParallelAttemptsAreCountedOneByOneOnBothStores() async throws {
        for kind in ["sqlite", "postgresql"] {
            let stores = try stores(kind)
            let now = Date()
            let verdicts = try await withThrowingTaskGroup(of: WebState.Throttle.Verdict.self) { group in
                for i in 0..<30 {
                    group.addTask { try await stores[i % 3].countSignIn(account: "gina@example.org", client: "127.0.6.9", now: now) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let allowed = verdicts.filter { if case .allowed = $0 { return true } else { return false } }
            XCTAssertEqual(allowed.count, 5, "\(kind): \(verdicts)")
            XCTAssertEqual(Set(allowed.map { if case .allowed(let n) = $0 { return n } else { return -1 } }), [0, 1, 2, 3, 4], kind)
            XCTAssertTrue(verdicts.contains(.throttled(.accountAndClient, retryAfter: 900)), "\(kind): \(verdicts)")

            // Strangers from other addresses: the owner's own client is not held back.
            for i in 1...5 {
                let value1 = try await stores[0].countSignIn(account: "carol@example.org", client: "127.0.7.\(i)", now: now)
                XCTAssertEqual(value1, .allowed(earlier: 0))
            }
            let value2 = try await stores[1].countSignIn(account: "carol@example.org", client: "127.0.7.50", now: now)
            XCTAssertEqual(value2, .allowed(earlier: 0), kind)
            // Without a client address only the account's own rule applies: no lock at five.
            for _ in 0..<10 {
                let value3 = try await stores[2].countSignIn(account: "dave@example.org", client: nil, now: now)
                XCTAssertEqual(value3, .allowed(earlier: 0), kind)
            }
            // The right password takes its attempt back and forgets that client's failures.
            try await stores[0].uncountSignIn(account: "gina@example.org", client: "127.0.6.9", accepted: true)
            let value4 = try await stores[1].countSignIn(account: "gina@example.org", client: "127.0.6.9", now: now)
            XCTAssertEqual(value4, .allowed(earlier: 0), kind)
            let listed = try await stores[0].throttles(now: now)
            XCTAssertTrue(listed.contains { $0.key == .init(account: "gina@example.org", client: "127.0.6.9") && $0.count == 1 }, "\(kind): \(listed)")
            XCTAssertTrue(listed.contains { $0.key == .init(account: "dave@example.org", client: "") && $0.count == 10 }, "\(kind): \(listed)")
            let value6 = try await stores[1].clearThrottles(account: "gina@example.org")
            XCTAssertGreaterThan(value6, 0, kind)
            let value7 = try await stores[2].throttles(now: now).contains { $0.key.account == "gina@example.org" }
            XCTAssertFalse(value7, kind)
            // The window passes (a write then drops what is over).
            let value5 = try await stores[2].countSignIn(account: "carol@example.org", client: "127.0.7.1", now: now + 901)
            XCTAssertEqual(value5, .allowed(earlier: 0), kind)

            let value8 = try await stores[1].clearThrottles(account: nil)
            XCTAssertGreaterThan(value8, 0, kind)
            let value9 = try await stores[0].throttles(now: now)
            XCTAssertEqual(value9, [], kind)
        }
    }

    /// Past 50 attempts at one account from anywhere: one every 10 seconds, never a lock.
    func testManyClientsAtOneAccountGetAShortBackOffNotALock() {
        let now = Date()
        var counters = [WebState.Throttle.Counter(key: .init(account: "carol@example.org", client: ""), first: now - 60, last: now - 2, count: 50)]
        XCTAssertEqual(WebState.Throttle.judge(counters, now: now).verdict, .throttled(.account, retryAfter: 8))
        counters[0].last = now - 10
        XCTAssertEqual(WebState.Throttle.judge(counters, now: now).verdict, .allowed(earlier: 0))
    }
}
