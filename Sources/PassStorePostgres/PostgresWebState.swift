import Foundation
import PassStore
import PostgresNIO

/// The web state in the library's PostgreSQL database: tables of its own in the schema
/// `passconduit_web` (created on first use), every row carrying the signed-in user's name, so
/// every `serve` host on that database shares sessions, sign-in failures, calendar secrets and
/// API tokens, and a restart signs nobody out. Connects as the library does (same location,
/// TLS and timeouts); a server that cannot be reached is `LibraryError.Kind.unavailable`.
package final class PostgresWebState: WebStateStore, @unchecked Sendable {
    package let expiry: WebState.Expiry
    let server: PostgresLocation
    let client: PostgresClient
    let options: LibraryOptions
    let logger: Logger
    private let runTask: Task<Void, Never>
    private let lock = NSLock()
    private var ready = false

    /// Any number the advisory lock of the web tables' creation is taken on ("PCWB").
    static let lockKey: Int64 = 0x5043_5742

    /// The web state in the database `location` names (the `--library` or `--library-map` value).
    package init(location: String, options: LibraryOptions = .default, expiry: WebState.Expiry = WebState.Expiry(),
                 environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        server = try PostgresLocation(location, environment: environment)
        self.options = options
        self.expiry = expiry
        var logger = Logger(label: "passconduit.web.postgresql")
        logger.logLevel = .critical
        self.logger = logger
        var configuration = try PostgresLibrary.clientConfiguration(server, options: options, scope: nil)
        configuration.options.maximumConnections = 4
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        runTask = Task { await client.run() }
    }

    deinit { runTask.cancel() }

    static let schema = [
        "CREATE SCHEMA IF NOT EXISTS passconduit_web",
        """
        CREATE TABLE IF NOT EXISTS passconduit_web.session (
            id_hash text COLLATE "C" PRIMARY KEY,
            "user" text NOT NULL,
            csrf text NOT NULL,
            created double precision NOT NULL,
            seen double precision NOT NULL)
        """,
        "CREATE INDEX IF NOT EXISTS session_by_user ON passconduit_web.session (\"user\")",
        """
        CREATE TABLE IF NOT EXISTS passconduit_web.throttle (
            account text COLLATE "C" NOT NULL,
            client text COLLATE "C" NOT NULL,
            first double precision NOT NULL,
            last double precision NOT NULL,
            count bigint NOT NULL,
            PRIMARY KEY (account, client))
        """,
        """
        CREATE TABLE IF NOT EXISTS passconduit_web.calendar (
            "user" text PRIMARY KEY,
            secret_hash text COLLATE "C" NOT NULL UNIQUE,
            created double precision NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS passconduit_web.token (
            hash text COLLATE "C" PRIMARY KEY,
            id text COLLATE "C" NOT NULL,
            "user" text NOT NULL,
            name text NOT NULL,
            created double precision NOT NULL,
            last_used double precision)
        """,
        "CREATE INDEX IF NOT EXISTS token_by_user ON passconduit_web.token (\"user\", id)",
        // An API token's expiry (added after the first release: tables made before get it here).
        "ALTER TABLE passconduit_web.token ADD COLUMN IF NOT EXISTS expires double precision",
        // A bot's tokens (issue 42 item 3): their own table, so no user token lookup can ever
        // answer with one, nor a service token lookup with a user's.
        """
        CREATE TABLE IF NOT EXISTS passconduit_web.service_token (
            hash text COLLATE "C" PRIMARY KEY,
            id text COLLATE "C" NOT NULL UNIQUE,
            name text NOT NULL,
            created double precision NOT NULL,
            last_used double precision)
        """,
    ]

    /// The tables `schema` makes.
    static let tables = ["session", "throttle", "calendar", "token", "service_token"]

    /// True when every table of `schema` exists.
    static func tablesPresent(_ tx: PostgresTransaction) async throws -> Bool {
        let checks = tables.map { "to_regclass('passconduit_web.\($0)') IS NOT NULL" }.joined(separator: " AND ")
        let expiry = "EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'passconduit_web' AND table_name = 'token' AND column_name = 'expires')"
        return try await tx.rows("SELECT \(checks) AND \(expiry)")[0].decode(Bool.self)
    }

    /// Runs `body` on one connection, the tables made first if this process has not yet seen
    /// them; tried again on a new connection while the server cannot be reached, until the
    /// library's retry deadline.
    func run<T: Sendable>(_ name: String, _ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0.05, options.retryDeadline) * 1000))
        let display = server.display
        var lastProblem = "the server did not answer"
        while true {
            let attemptDeadline = min(deadline, ContinuousClock.now + .seconds(5))
            do {
                return try await Deadline.run(until: attemptDeadline) { [client, logger, self] in
                    try await client.withConnection { connection in
                        let tx = PostgresTransaction(connection: connection, user: "", logger: logger)
                        do {
                            if !lock.withLock({ ready }), try await Self.tablesPresent(tx) {
                                // Made already (by this program's owner role): a role that may
                                // only use them (see `PostgresRoles`) must not try to make them.
                                lock.withLock { ready = true }
                            }
                            if !lock.withLock({ ready }) {
                                try await tx.run("BEGIN")
                                try await tx.run("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
                                for statement in Self.schema { try await tx.run(statement) }
                                try await tx.run("COMMIT")
                                lock.withLock { ready = true }
                            }
                            return try await body(tx)
                        } catch {
                            if PostgresFailure(error).connectionLost { await PostgresLibrary.retire(connection) }
                            else { _ = try? await tx.run("ROLLBACK") }
                            throw error
                        }
                    }
                }
            } catch let error as LibraryError {
                throw error
            } catch is Deadline.Passed {
                guard ContinuousClock.now < deadline else {
                    throw LibraryError(.unavailable, "\(name): \(lastProblem)", path: display)
                }
                lastProblem = "the server did not answer in time"
            } catch {
                let failure = PostgresFailure(error)
                guard failure.retryable, ContinuousClock.now < deadline else { throw failure.libraryError(name, location: display) }
                lastProblem = failure.summary
                try? await Task.sleep(for: .milliseconds(Int.random(in: 20...100)))
            }
        }
    }

    /// Runs statements as one transaction.
    func write<T: Sendable>(_ name: String, _ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        try await run(name) { tx in
            try await tx.run("BEGIN")
            let value = try await body(tx)
            try await tx.run("COMMIT")
            return value
        }
    }

    // MARK: Sessions

    package func createSession(user: String, now: Date) async throws -> (id: String, session: WebState.Session) {
        let id = WebState.randomToken()
        let session = WebState.Session(user: user, csrf: WebState.randomToken(), created: now, seen: now)
        let since = expiry.liveSince(now: now)
        let idle = since.seen.timeIntervalSince1970, absolute = since.created.timeIntervalSince1970
        let t = now.timeIntervalSince1970
        try await write("sign in") { tx in
            try await tx.run("DELETE FROM passconduit_web.session WHERE seen < $1 OR created < $2", [idle, absolute])
            try await tx.run("INSERT INTO passconduit_web.session (id_hash, \"user\", csrf, created, seen) VALUES ($1, $2, $3, $4, $5)",
                             [WebState.hash(id), user, session.csrf, t, t])
        }
        return (id, session)
    }

    package func session(id: String, now: Date) async throws -> WebState.Session? {
        guard WebState.wellFormed(id) else { return nil }
        let key = WebState.hash(id)
        let expiry = self.expiry
        return try await run("session") { tx -> WebState.Session? in
            guard let row = try await tx.rows("SELECT \"user\", csrf, created, seen FROM passconduit_web.session WHERE id_hash = $1", [key]).first else { return nil }
            let (user, csrf, created, seen) = try row.decode((String, String, Double, Double).self)
            let stored = WebState.Session(user: user, csrf: csrf, created: Date(timeIntervalSince1970: created), seen: Date(timeIntervalSince1970: seen))
            guard expiry.isLive(created: stored.created, seen: stored.seen, now: now) else {
                try await tx.run("DELETE FROM passconduit_web.session WHERE id_hash = $1", [key])
                return nil
            }
            let read = stored.read(at: now)
            if read.touched {
                try await tx.run("UPDATE passconduit_web.session SET seen = $1 WHERE id_hash = $2", [now.timeIntervalSince1970, key])
            }
            return read.session
        }
    }

    package func latestSession(user: String, now: Date) async throws -> WebState.Session? {
        let since = expiry.liveSince(now: now)
        let idle = since.seen.timeIntervalSince1970, absolute = since.created.timeIntervalSince1970
        return try await run("session") { tx -> WebState.Session? in
            guard let row = try await tx.rows("SELECT id_hash, csrf, created, seen FROM passconduit_web.session WHERE \"user\" = $1 AND seen >= $2 AND created >= $3 ORDER BY seen DESC, id_hash LIMIT 1",
                                              [user, idle, absolute]).first else { return nil }
            let (key, csrf, created, seen) = try row.decode((String, String, Double, Double).self)
            let read = WebState.Session(user: user, csrf: csrf, created: Date(timeIntervalSince1970: created),
                                        seen: Date(timeIntervalSince1970: seen)).read(at: now)
            if read.touched {
                try await tx.run("UPDATE passconduit_web.session SET seen = $1 WHERE id_hash = $2", [now.timeIntervalSince1970, key])
            }
            return read.session
        }
    }

    package func endSession(id: String) async throws {
        let key = WebState.hash(id)
        try await run("sign out") { tx in try await tx.run("DELETE FROM passconduit_web.session WHERE id_hash = $1", [key]) }
    }

    package func endSessions(user: String) async throws {
        try await run("sign out everywhere") { tx in try await tx.run("DELETE FROM passconduit_web.session WHERE \"user\" = $1", [user]) }
    }

    // MARK: Sign-in throttling

    /// One transaction that first locks each counter's row (made if missing) in the order of
    /// `WebState.Throttle.keys`, so attempts on every host are decided one after another.
    package func countSignIn(account: String, client: String?, now: Date) async throws -> WebState.Throttle.Verdict {
        let keys = WebState.Throttle.keys(account: account, client: client)
        let t = now.timeIntervalSince1970
        let verdict = try await write("sign-in") { tx -> WebState.Throttle.Verdict in
            var stored: [WebState.Throttle.Counter] = []
            for key in keys {
                let row = try await tx.rows("""
                    INSERT INTO passconduit_web.throttle AS t (account, client, first, last, count) VALUES ($1, $2, $3, 0, 0)
                    ON CONFLICT (account, client) DO UPDATE SET count = t.count
                    RETURNING first, last, count
                    """, [key.account, key.client, t])[0]
                let (first, last, count) = try row.decode((Double, Double, Int).self)
                stored.append(WebState.Throttle.Counter(key: key, first: Date(timeIntervalSince1970: first),
                                                        last: Date(timeIntervalSince1970: last), count: count))
            }
            let (verdict, write) = WebState.Throttle.judge(stored, now: now)
            for c in write ?? [] {
                try await tx.run("UPDATE passconduit_web.throttle SET first = $3, last = $4, count = $5 WHERE account = $1 AND client = $2",
                                 [c.key.account, c.key.client, c.first.timeIntervalSince1970, c.last.timeIntervalSince1970, c.count])
            }
            return verdict
        }
        // Now and then, the counters whose window is over (alone: it locks nothing another attempt holds for long).
        if Int.random(in: 0..<32) == 0 {
            let old = t - WebState.Throttle.window
            _ = try? await run("sign-in") { tx in try await tx.run("DELETE FROM passconduit_web.throttle WHERE first < $1 AND last < $1", [old]) }
        }
        return verdict
    }

    package func uncountSignIn(account: String, client: String?, accepted: Bool) async throws {
        try await write("sign-in") { tx in
            if let client, !client.isEmpty {
                try await tx.run(accepted ? "DELETE FROM passconduit_web.throttle WHERE account = $1 AND client = $2"
                                          : "UPDATE passconduit_web.throttle SET count = greatest(count - 1, 0) WHERE account = $1 AND client = $2",
                                 [account, client])
                try await tx.run("UPDATE passconduit_web.throttle SET count = greatest(count - 1, 0) WHERE account = '' AND client = $1", [client])
            }
            try await tx.run("UPDATE passconduit_web.throttle SET count = greatest(count - 1, 0) WHERE account = $1 AND client = ''", [account])
        }
    }

    package func throttles(now: Date) async throws -> [WebState.Throttle.Counter] {
        let old = now.timeIntervalSince1970 - WebState.Throttle.window
        return try await run("sign-in throttles") { tx in
            try await tx.rows("SELECT account, client, first, last, count FROM passconduit_web.throttle WHERE first >= $1 AND count > 0 ORDER BY account, client",
                              [old]).map { row in
                let (account, client, first, last, count) = try row.decode((String, String, Double, Double, Int).self)
                return WebState.Throttle.Counter(key: .init(account: account, client: client), first: Date(timeIntervalSince1970: first),
                                                 last: Date(timeIntervalSince1970: last), count: count)
            }
        }
    }

    package func clearThrottles(account: String?) async throws -> Int {
        try await run("sign-in throttles") { tx in
            if let account {
                return try await tx.rows("DELETE FROM passconduit_web.throttle WHERE account = $1 RETURNING 1", [account]).count
            }
            return try await tx.rows("DELETE FROM passconduit_web.throttle RETURNING 1").count
        }
    }

    // MARK: Calendar subscription

    package func calendarSubscription(user: String) async throws -> Date? {
        try await run("calendar") { tx in
            try await tx.rows("SELECT created FROM passconduit_web.calendar WHERE \"user\" = $1", [user]).first
                .map { Date(timeIntervalSince1970: try $0.decode(Double.self)) }
        }
    }

    package func renewCalendarSecret(user: String, now: Date) async throws -> String {
        let secret = WebState.randomToken()
        let hash = WebState.hash(secret), t = now.timeIntervalSince1970
        try await write("calendar") { tx in
            try await tx.run("DELETE FROM passconduit_web.calendar WHERE \"user\" = $1", [user])
            try await tx.run("INSERT INTO passconduit_web.calendar (\"user\", secret_hash, created) VALUES ($1, $2, $3)", [user, hash, t])
        }
        return secret
    }

    package func forget(user: String) async throws -> Int {
        try await run("erase") { tx in
            try await tx.run("BEGIN")
            var removed = 0
            for table in ["session", "calendar", "token"] {
                removed += try await tx.rows("DELETE FROM passconduit_web.\(table) WHERE \"user\" = $1 RETURNING 1", [user]).count
            }
            // Its sign-in counters go too (not counted: they are neither sign-ins nor tokens).
            try await tx.run("DELETE FROM passconduit_web.throttle WHERE account = $1", [user])
            try await tx.run("COMMIT")
            return removed
        }
    }

    package func revokeCalendarSecret(user: String) async throws {
        try await run("calendar") { tx in try await tx.run("DELETE FROM passconduit_web.calendar WHERE \"user\" = $1", [user]) }
    }

    package func calendarUser(secret: String) async throws -> String? {
        guard WebState.wellFormed(secret) else { return nil }
        let hash = WebState.hash(secret)
        return try await run("calendar") { tx in
            try await tx.rows("SELECT \"user\" FROM passconduit_web.calendar WHERE secret_hash = $1", [hash]).first.map { try $0.decode(String.self) }
        }
    }

    // MARK: API tokens

    package func createToken(user: String, name: String, expires: Date?, now: Date) async throws -> (token: String, info: WebState.APIToken) {
        let token = WebState.randomToken()
        let hash = WebState.hash(token)
        let info = WebState.APIToken(id: WebState.tokenID(hash: hash), name: name, created: now, lastUsed: nil, expires: expires)
        let t = now.timeIntervalSince1970, until = expires?.timeIntervalSince1970
        try await run("API token") { tx in
            try await tx.run("INSERT INTO passconduit_web.token (hash, id, \"user\", name, created, expires) VALUES ($1, $2, $3, $4, $5, $6)",
                             [hash, info.id, user, name, t, until])
        }
        return (token, info)
    }

    package func tokens(user: String) async throws -> [WebState.APIToken] {
        try await run("API tokens") { tx in
            try await tx.rows("SELECT id, name, created, last_used, expires FROM passconduit_web.token WHERE \"user\" = $1 ORDER BY created, id", [user]).map { row in
                let (id, name, created, used, expires) = try row.decode((String, String, Double, Double?, Double?).self)
                return WebState.APIToken(id: id, name: name, created: Date(timeIntervalSince1970: created),
                                         lastUsed: used.map { Date(timeIntervalSince1970: $0) }, expires: expires.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    package func revokeToken(user: String, id: String) async throws -> Bool {
        try await run("API token") { tx in
            !(try await tx.rows("DELETE FROM passconduit_web.token WHERE \"user\" = $1 AND id = $2 RETURNING id", [user, id]).isEmpty)
        }
    }

    package func tokenUser(token: String, now: Date) async throws -> String? {
        guard WebState.wellFormed(token) else { return nil }
        let hash = WebState.hash(token), t = now.timeIntervalSince1970
        return try await run("API token") { tx in
            guard let row = try await tx.rows("SELECT \"user\", last_used, expires FROM passconduit_web.token WHERE hash = $1", [hash]).first else { return nil }
            let (user, used, expires) = try row.decode((String, Double?, Double?).self)
            guard WebState.tokenIsLive(expires: expires.map { Date(timeIntervalSince1970: $0) }, now: now) else { return nil }
            if WebState.touches(last: used.map { Date(timeIntervalSince1970: $0) }, now: now) {
                try await tx.run("UPDATE passconduit_web.token SET last_used = $1 WHERE hash = $2", [t, hash])
            }
            return user
        }
    }

    // MARK: Service tokens

    package func createServiceToken(name: String, now: Date) async throws -> (token: String, info: WebState.APIToken) {
        let token = WebState.randomToken()
        let hash = WebState.hash(token)
        let info = WebState.APIToken(id: WebState.tokenID(hash: hash), name: name, created: now, lastUsed: nil)
        let t = now.timeIntervalSince1970
        try await run("service token") { tx in
            try await tx.run("INSERT INTO passconduit_web.service_token (hash, id, name, created) VALUES ($1, $2, $3, $4)",
                             [hash, info.id, name, t])
        }
        return (token, info)
    }

    package func serviceTokens() async throws -> [WebState.APIToken] {
        try await run("service tokens") { tx in
            try await tx.rows("SELECT id, name, created, last_used FROM passconduit_web.service_token ORDER BY created, id").map { row in
                let (id, name, created, used) = try row.decode((String, String, Double, Double?).self)
                return WebState.APIToken(id: id, name: name, created: Date(timeIntervalSince1970: created),
                                         lastUsed: used.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    package func revokeServiceToken(id: String) async throws -> Bool {
        try await run("service token") { tx in
            !(try await tx.rows("DELETE FROM passconduit_web.service_token WHERE id = $1 RETURNING id", [id]).isEmpty)
        }
    }

    package func serviceTokenName(token: String, now: Date) async throws -> String? {
        guard WebState.wellFormed(token) else { return nil }
        let hash = WebState.hash(token), t = now.timeIntervalSince1970
        return try await run("service token") { tx in
            guard let row = try await tx.rows("SELECT name, last_used FROM passconduit_web.service_token WHERE hash = $1", [hash]).first else { return nil }
            let (name, used) = try row.decode((String, Double?).self)
            if WebState.touches(last: used.map { Date(timeIntervalSince1970: $0) }, now: now) {
                try await tx.run("UPDATE passconduit_web.service_token SET last_used = $1 WHERE hash = $2", [t, hash])
            }
            return name
        }
    }
}
