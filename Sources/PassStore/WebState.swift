import Foundation
import Support

/// What the web wallet (`serve`) remembers between requests and across restarts: sessions,
/// failed sign-ins, each user's calendar subscription secret and API tokens. It lives where the
/// library lives (`WebStateFile` beside an SQLite library, `PostgresWebState` in the library's
/// PostgreSQL database), so several `serve` hosts share it and a restart signs nobody out.
/// Every secret is stored only as its SHA-256: a copy of the store signs nobody in.
package protocol WebStateStore: Sendable {
    /// A new session for `user`: its id (for the cookie only) and its CSRF token.
    func createSession(user: String, now: Date) async throws -> (id: String, session: WebState.Session)
    /// The live session a cookie names, its last use moved to now (at most once a minute); nil
    /// for an unknown, forged, idle or too old one.
    func session(id: String, now: Date) async throws -> WebState.Session?
    /// The live session of `user` used last (its last use moved to now, at most once a minute), or
    /// nil: behind a sign-in proxy a request without the cookie takes the session its user has
    /// instead of making one per request.
    func latestSession(user: String, now: Date) async throws -> WebState.Session?
    func endSession(id: String) async throws
    /// Signs `user` out on every browser.
    func endSessions(user: String) async throws

    /// Counts a sign-in attempt of `account` from `client` (nil: unknown) before its password is
    /// checked, in one transaction with the decision (`WebState.Throttle.judge`), so parallel
    /// attempts on any number of hosts are counted one by one.
    func countSignIn(account: String, client: String?, now: Date) async throws -> WebState.Throttle.Verdict
    /// Takes back an attempt `countSignIn` allowed that was no failure: the right password
    /// (`accepted`: this client's failures at this account are forgotten too), or a mail server
    /// that could not be asked.
    func uncountSignIn(account: String, client: String?, accepted: Bool) async throws
    /// The counters still in their window, by account then client.
    func throttles(now: Date) async throws -> [WebState.Throttle.Counter]
    /// Forgets the counters of `account` (from every client), or every counter for nil; how many.
    func clearThrottles(account: String?) async throws -> Int

    /// When `user`'s calendar subscription secret was made; nil without one.
    func calendarSubscription(user: String) async throws -> Date?
    /// A new calendar secret for `user`, replacing (and so revoking) the one before.
    func renewCalendarSecret(user: String, now: Date) async throws -> String
    func revokeCalendarSecret(user: String) async throws
    /// Whose subscription `secret` is; nil for an unknown or revoked one.
    func calendarUser(secret: String) async throws -> String?

    /// A new API token for `user` named `name`, refused from `expires` on (nil: until revoked): the
    /// token (shown once) and what is kept of it.
    func createToken(user: String, name: String, expires: Date?, now: Date) async throws -> (token: String, info: WebState.APIToken)
    /// `user`'s tokens, oldest first.
    func tokens(user: String) async throws -> [WebState.APIToken]
    /// Revokes `user`'s token `id`; false when `user` has none of that id.
    func revokeToken(user: String, id: String) async throws -> Bool
    /// Whose token `token` is, its last use moved to now (at most once a minute); nil for an
    /// unknown, revoked or expired one.
    func tokenUser(token: String, now: Date) async throws -> String?

    /// A new service token named `name` (issue 42 item 3), made by the operator for a bot: tied to
    /// no user, it may only stage offers and make share links for the users of serve's map. The
    /// token (shown once) and what is kept of it (its SHA-256 only).
    func createServiceToken(name: String, now: Date) async throws -> (token: String, info: WebState.APIToken)
    /// Every service token, oldest first.
    func serviceTokens() async throws -> [WebState.APIToken]
    /// Revokes service token `id`; false when there is none of that id.
    func revokeServiceToken(id: String) async throws -> Bool
    /// The name of service token `token`, its last use moved to now (at most once a minute); nil
    /// for an unknown or revoked one. User tokens are never service tokens, nor the reverse.
    func serviceTokenName(token: String, now: Date) async throws -> String?

    /// Everything kept of `user` (sessions, failed sign-ins, calendar secret, API tokens) erased, for
    /// `library drop`; the number of rows removed.
    func forget(user: String) async throws -> Int
}

extension WebStateStore {
    package func createSession(user: String) async throws -> (id: String, session: WebState.Session) {
        try await createSession(user: user, now: Date())
    }
    package func session(id: String) async throws -> WebState.Session? { try await session(id: id, now: Date()) }
    package func countSignIn(account: String, client: String?) async throws -> WebState.Throttle.Verdict {
        try await countSignIn(account: account, client: client, now: Date())
    }
    package func latestSession(user: String) async throws -> WebState.Session? { try await latestSession(user: user, now: Date()) }
    package func renewCalendarSecret(user: String) async throws -> String { try await renewCalendarSecret(user: user, now: Date()) }
    package func createToken(user: String, name: String, expires: Date? = nil) async throws -> (token: String, info: WebState.APIToken) {
        try await createToken(user: user, name: name, expires: expires, now: Date())
    }
    package func tokenUser(token: String) async throws -> String? { try await tokenUser(token: token, now: Date()) }
    package func createServiceToken(name: String) async throws -> (token: String, info: WebState.APIToken) {
        try await createServiceToken(name: name, now: Date())
    }
    package func serviceTokenName(token: String) async throws -> String? { try await serviceTokenName(token: token, now: Date()) }
}

/// The web state's values and rules, shared by both stores.
package enum WebState {
    package struct Session: Sendable, Equatable {
        package var user: String
        /// The per-session token every state-changing form carries.
        package var csrf: String
        package var created: Date
        package var seen: Date
        package init(user: String, csrf: String, created: Date, seen: Date) {
            self.user = user
            self.csrf = csrf
            self.created = created
            self.seen = seen
        }
    }

    /// An API token as the settings page lists it: never the token itself.
    package struct APIToken: Sendable, Equatable {
        /// A public handle for revoking it (the first 16 hex digits of the token's SHA-256).
        package var id: String
        package var name: String
        package var created: Date
        package var lastUsed: Date?
        /// Refused from then on; nil: until revoked.
        package var expires: Date?
        package init(id: String, name: String, created: Date, lastUsed: Date?, expires: Date? = nil) {
            self.id = id
            self.name = name
            self.created = created
            self.lastUsed = lastUsed
            self.expires = expires
        }
    }

    /// Signed out after this long without a request, and this long after signing in whatever happens.
    package struct Expiry: Sendable {
        package var idle: TimeInterval = 2 * 3600
        package var absolute: TimeInterval = 7 * 24 * 3600
        package init() {}
    }

    /// A token made to expire expires within this many days.
    package static let maxTokenDays = 3650

    /// A token's name on the settings page: at most this many characters.
    package static let maxTokenName = 80

    /// 256 random bits as 64 hex digits.
    package static func randomToken() -> String {
        var g = SystemRandomNumberGenerator()
        return Digest.hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// What a store keeps of a secret.
    package static func hash(_ token: String) -> String { Digest.sha256Hex(Array(token.utf8)) }

    /// Whether `text` can be one of the secrets `randomToken` makes (64 lower-case hex digits):
    /// anything else is nobody's, without a lookup.
    package static func wellFormed(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The public handle of a token whose hash is `hash`.
    package static func tokenID(hash: String) -> String { String(hash.prefix(16)) }

    // MARK: The rules both stores keep (issue 39 item 6): pure, so they are tested once, and the
    // stores only read and write rows by them.

    /// A session's or token's last use is written at most this often (seconds): every request of a
    /// signed-in browser reads its session, and a write per request would cost more than the page.
    package static let touchInterval: TimeInterval = 60

    /// Whether a last use at `last` (nil: never used) is to be moved to `now`.
    package static func touches(last: Date?, now: Date) -> Bool {
        guard let last else { return true }
        return now.timeIntervalSince(last) > touchInterval
    }

    /// Whether a token made to expire at `expires` (nil: until revoked) is still taken at `now`:
    /// refused from that instant on.
    package static func tokenIsLive(expires: Date?, now: Date) -> Bool {
        guard let expires else { return true }
        return now < expires
    }
}

extension WebState.Expiry {
    /// Whether a session signed in at `created` and last used at `seen` is still live at `now`:
    /// not idle longer than `idle`, not older than `absolute`.
    package func isLive(created: Date, seen: Date, now: Date) -> Bool {
        now.timeIntervalSince(seen) <= idle && now.timeIntervalSince(created) <= absolute
    }

    /// The earliest last use and sign-in a live session can have at `now`: what a store's query
    /// compares (`seen >= since.seen AND created >= since.created` is `isLive`).
    package func liveSince(now: Date) -> (seen: Date, created: Date) {
        (now - idle, now - absolute)
    }
}

extension WebState.Session {
    /// The session read at `now`: its last use moved on when `WebState.touches` says so (the store
    /// then writes `seen`), else as stored.
    package func read(at now: Date) -> (session: WebState.Session, touched: Bool) {
        guard WebState.touches(last: seen, now: now) else { return (self, false) }
        var moved = self
        moved.seen = now
        return (moved, true)
    }
}
