import Foundation
import PassStore
import PassStorePostgres
import PassStoreSQLite
import PostgresTestKit
import XCTest

/// The web wallet's state on both stores (the SQLite file beside a library, the tables in a
/// PostgreSQL library's database), on a stepped clock: issue 37's session reuse behind a sign-in
/// proxy (item 10) and API tokens that expire.
final class WebStateTests: XCTestCase {
    func stores() throws -> [(String, any WebStateStore)] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pc-webstate-\(UUID().uuidString).sqlite").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: file) }
        let server = try PostgresTestServer.shared
        let postgres = try PostgresWebState(location: server.location(database: try server.database()))
        return [("SQLite", try WebStateFile(path: file)), ("PostgreSQL", postgres)]
    }

    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func testATokenPastItsExpiryIsNobodysAndTheListSaysWhen() async throws {
        for (kind, store) in try stores() {
            let lasting = try await store.createToken(user: "alice@example.org", name: "bridge", expires: nil, now: now)
            let brief = try await store.createToken(user: "alice@example.org", name: "script", expires: now + 3600, now: now)
            let before = try await store.tokenUser(token: brief.token, now: now + 3599)
            let at = try await store.tokenUser(token: brief.token, now: now + 3600)
            let later = try await store.tokenUser(token: lasting.token, now: now + 400 * 86400)
            XCTAssertEqual(before, "alice@example.org", kind)
            XCTAssertNil(at, "expired: nobody's (the API answers 401), \(kind)")
            XCTAssertEqual(later, "alice@example.org", "no expiry: until revoked, \(kind)")
            // Made in one instant: their order is the ids', random; compare by name.
            let listed = try await store.tokens(user: "alice@example.org").sorted { $0.name < $1.name }
            XCTAssertEqual(listed.map(\.name), ["bridge", "script"], kind)
            XCTAssertEqual(listed.map(\.expires), [nil, now + 3600], kind)
        }
    }

    func testWithoutItsCookieAUserTakesTheLiveSessionUsedLast() async throws {
        for (kind, store) in try stores() {
            let none = try await store.latestSession(user: "alice@example.org", now: now)
            XCTAssertNil(none, kind)
            let first = try await store.createSession(user: "alice@example.org", now: now)
            _ = try await store.createSession(user: "alice@example.org", now: now + 10)
            // The first is used again later (its last use moves on after a minute): it is the one taken.
            _ = try await store.session(id: first.id, now: now + 100)
            let taken = try await store.latestSession(user: "alice@example.org", now: now + 120)
            XCTAssertEqual(taken?.csrf, first.session.csrf, kind)
            let bob = try await store.latestSession(user: "bob@example.org", now: now + 120)
            XCTAssertNil(bob, kind)
            // Idle past the limit (2 hours): none is taken.
            let idle = try await store.latestSession(user: "alice@example.org", now: now + 120 + 2 * 3600 + 1)
            XCTAssertNil(idle, kind)
        }
    }
}
