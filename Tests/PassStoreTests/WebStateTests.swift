import Foundation
import PassStore
import PassStorePostgres
@testable import PassStoreSQLite
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

    /// Issue 42 item 3: a service token is nobody's user token, and a user token is no service
    /// token; only its hash is kept; revoked, it is nothing.
    func testAServiceTokenIsNoUsersTokenAndIsKeptHashed() async throws {
        for (kind, store) in try stores() {
            let made = try await store.createServiceToken(name: "matrix-bot", now: now)
            let user = try await store.createToken(user: "alice@example.org", name: "script", expires: nil, now: now)
            XCTAssertTrue(WebState.wellFormed(made.token), kind)
            XCTAssertEqual(made.info.id, WebState.tokenID(hash: WebState.hash(made.token)), kind)
            let named = try await store.serviceTokenName(token: made.token, now: now + 120)
            XCTAssertEqual(named, "matrix-bot", kind)
            let asUser = try await store.tokenUser(token: made.token, now: now + 120)
            XCTAssertNil(asUser, "a service token speaks for no user, \(kind)")
            let userAsService = try await store.serviceTokenName(token: user.token, now: now + 120)
            XCTAssertNil(userAsService, "a user token is no service token, \(kind)")
            let unknown = try await store.serviceTokenName(token: WebState.randomToken(), now: now)
            XCTAssertNil(unknown, kind)
            let listed = try await store.serviceTokens()
            XCTAssertEqual(listed.map(\.name), ["matrix-bot"], kind)
            XCTAssertEqual(listed.first?.lastUsed, now + 120, kind)
            let userTokens = try await store.tokens(user: "alice@example.org")
            XCTAssertEqual(userTokens.map(\.name), ["script"], kind)
            let revoked = try await store.revokeServiceToken(id: made.info.id)
            XCTAssertTrue(revoked, kind)
            let again = try await store.revokeServiceToken(id: made.info.id)
            XCTAssertFalse(again, kind)
            let after = try await store.serviceTokenName(token: made.token, now: now + 200)
            XCTAssertNil(after, "revoked: nothing, \(kind)")
        }
    }

    /// The SQLite file keeps a service token's SHA-256, never the token.
    func testTheStateFileKeepsOnlyTheServiceTokensHash() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pc-webstate-\(UUID().uuidString).sqlite").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: file) }
        let store = try WebStateFile(path: file)
        let made = try store.createServiceToken(name: "bot", now: now)
        store.db.releaseMemory()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file)) + ((try? Data(contentsOf: URL(fileURLWithPath: file + "-wal"))) ?? Data())
        XCTAssertNil(bytes.range(of: Data(made.token.utf8)), "the token itself is not stored")
        XCTAssertNotNil(bytes.range(of: Data(WebState.hash(made.token).utf8)), "its hash is")
    }
    /// Issue 39 item 6: the rules as values, checked without a store.
    func testTheWebStateRulesAsPureFunctions() {
        let expiry = WebState.Expiry()
        XCTAssertTrue(expiry.isLive(created: now, seen: now, now: now + 2 * 3600), "idle exactly 2 h: still live")
        XCTAssertFalse(expiry.isLive(created: now, seen: now, now: now + 2 * 3600 + 0.001), "idle past 2 h")
        XCTAssertTrue(expiry.isLive(created: now, seen: now + 7 * 86400 - 60, now: now + 7 * 86400), "in use, 7 days old")
        XCTAssertFalse(expiry.isLive(created: now, seen: now + 7 * 86400, now: now + 7 * 86400 + 1), "past 7 days however used")
        let since = expiry.liveSince(now: now)
        XCTAssertEqual(since.seen, now - 2 * 3600)
        XCTAssertEqual(since.created, now - 7 * 86400)
        XCTAssertTrue(WebState.touches(last: nil, now: now), "never used: written")
        XCTAssertFalse(WebState.touches(last: now, now: now + 60))
        XCTAssertTrue(WebState.touches(last: now, now: now + 60.5))
        XCTAssertTrue(WebState.tokenIsLive(expires: nil, now: now + 3650 * 86400))
        XCTAssertTrue(WebState.tokenIsLive(expires: now + 1, now: now))
        XCTAssertFalse(WebState.tokenIsLive(expires: now, now: now), "refused from the instant it expires")
        let session = WebState.Session(user: "a@example.org", csrf: "c", created: now, seen: now)
        XCTAssertEqual(session.read(at: now + 30).touched, false)
        XCTAssertEqual(session.read(at: now + 30).session.seen, now)
        XCTAssertEqual(session.read(at: now + 61).touched, true)
        XCTAssertEqual(session.read(at: now + 61).session.seen, now + 61)
    }

    /// The same rules kept by both stores on a stepped clock: a session's last use moves at most
    /// once a minute, it ends after 2 idle hours or 7 days, and an ended one is gone for good.
    func testBothStoresEndSessionsByTheSameRules() async throws {
        for (kind, store) in try stores() {
            let made = try await store.createSession(user: "alice@example.org", now: now)
            let soon = try await store.session(id: made.id, now: now + 30)
            XCTAssertEqual(soon?.seen, now, "not moved within a minute, \(kind)")
            let later = try await store.session(id: made.id, now: now + 90)
            XCTAssertEqual(later?.seen, now + 90, "moved after a minute, \(kind)")
            // Used every hour, it lives until its seventh day ends.
            var t = now + 90
            while t + 3600 <= now + 7 * 86400 {
                t += 3600
                let live = try await store.session(id: made.id, now: t)
                XCTAssertNotNil(live, "\(kind) at \(t.timeIntervalSince(now)) s")
                if live == nil { break }
            }
            let old = try await store.session(id: made.id, now: now + 7 * 86400 + 1)
            XCTAssertNil(old, "7 days: ended however used, \(kind)")
            let again = try await store.session(id: made.id, now: now + 90)
            XCTAssertNil(again, "an ended session is removed, not only refused, \(kind)")
            // Idle: a second session, unused past 2 hours.
            let idle = try await store.createSession(user: "alice@example.org", now: now)
            let taken = try await store.session(id: idle.id, now: now + 2 * 3600)
            XCTAssertNotNil(taken, kind)
            let gone = try await store.session(id: idle.id, now: now + 4 * 3600 + 1)
            XCTAssertNil(gone, kind)
            // A token's last use, once a minute too.
            let token = try await store.createToken(user: "alice@example.org", name: "t", expires: nil, now: now)
            _ = try await store.tokenUser(token: token.token, now: now + 10)
            _ = try await store.tokenUser(token: token.token, now: now + 40)
            let first = try await store.tokens(user: "alice@example.org").first?.lastUsed
            XCTAssertEqual(first, now + 10, kind)
            _ = try await store.tokenUser(token: token.token, now: now + 71)
            let moved = try await store.tokens(user: "alice@example.org").first?.lastUsed
            XCTAssertEqual(moved, now + 71, kind)
        }
    }
}
