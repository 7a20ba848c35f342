import Foundation
import GRDB
import PassStore
import Support

/// The web state in one SQLite file where an SQLite library lives (`web-sessions.sqlite` beside
/// the library file), shared by every `serve` process on that folder.
package final class WebStateFile: WebStateStore, @unchecked Sendable {
    package let path: String
    package let expiry: WebState.Expiry
    let db: DatabaseQueue

    package init(path: String, expiry: WebState.Expiry = WebState.Expiry()) throws {
        self.path = path
        self.expiry = expiry
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
        if !FileManager.default.fileExists(atPath: path) {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.label = "passconduit web state"
        db = try DatabaseQueue(path: path, configuration: config)
        try db.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE web_session (
                    idHash TEXT PRIMARY KEY NOT NULL,
                    user TEXT NOT NULL,
                    csrf TEXT NOT NULL,
                    created REAL NOT NULL,
                    seen REAL NOT NULL
                );
                CREATE INDEX web_session_user ON web_session(user);
                CREATE TABLE web_failure (
                    key TEXT NOT NULL,
                    at REAL NOT NULL
                );
                CREATE INDEX web_failure_key ON web_failure(key, at);
                """)
        }
        migrator.registerMigration("v2-calendar-api-tokens") { db in
            try db.execute(sql: """
                CREATE TABLE web_calendar (
                    user TEXT PRIMARY KEY NOT NULL,
                    secretHash TEXT NOT NULL UNIQUE,
                    created REAL NOT NULL
                );
                CREATE TABLE web_token (
                    hash TEXT PRIMARY KEY NOT NULL,
                    id TEXT NOT NULL,
                    user TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created REAL NOT NULL,
                    lastUsed REAL
                );
                CREATE INDEX web_token_user ON web_token(user, id);
                """)
        }
        migrator.registerMigration("v3-sign-in-throttle") { db in
            // Counters per (account, client) instead of a row per failure (WebState.Throttle);
            // the failure rows were hashed keys, counted after the password check.
            try db.execute(sql: """
                DROP TABLE web_failure;
                CREATE TABLE web_throttle (
                    account TEXT NOT NULL,
                    client TEXT NOT NULL,
                    first REAL NOT NULL,
                    last REAL NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (account, client)
                );
                """)
        }
        migrator.registerMigration("v4-token-expiry") { db in
            try db.execute(sql: "ALTER TABLE web_token ADD COLUMN expires REAL")
        }
        migrator.registerMigration("v5-service-tokens") { db in
            // A bot's tokens (issue 42 item 3): their own table, so no user token lookup can
            // ever answer with one, nor a service token lookup with a user's.
            try db.execute(sql: """
                CREATE TABLE web_service_token (
                    hash TEXT PRIMARY KEY NOT NULL,
                    id TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL,
                    created REAL NOT NULL,
                    lastUsed REAL
                );
                """)
        }
        try migrator.migrate(db)
    }

    // MARK: Sessions

    package func createSession(user: String, now: Date) throws -> (id: String, session: WebState.Session) {
        let id = WebState.randomToken()
        let session = WebState.Session(user: user, csrf: WebState.randomToken(), created: now, seen: now)
        try db.write { db in
            let since = expiry.liveSince(now: now)
            try db.execute(sql: "DELETE FROM web_session WHERE seen < ? OR created < ?",
                           arguments: [since.seen.timeIntervalSince1970, since.created.timeIntervalSince1970])
            try db.execute(sql: "INSERT INTO web_session (idHash, user, csrf, created, seen) VALUES (?, ?, ?, ?, ?)",
                           arguments: [WebState.hash(id), user, session.csrf, now.timeIntervalSince1970, now.timeIntervalSince1970])
        }
        return (id, session)
    }

    package func session(id: String, now: Date) throws -> WebState.Session? {
        guard WebState.wellFormed(id) else { return nil }
        let key = WebState.hash(id)
        // Every request of a signed-in browser asks this: one read by a statement prepared once,
        // outside a transaction (one statement reads one consistent row); a write only when the
        // session has ended or its last use is to be moved on. (Another process may end the
        // session between the read and the write: its DELETE or UPDATE then changes nothing.)
        return try db.writeWithoutTransaction { db -> WebState.Session? in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT user, csrf, created, seen FROM web_session WHERE idHash = ?"),
                                             arguments: [key]) else { return nil }
            let stored = WebState.Session(user: row["user"], csrf: row["csrf"], created: Date(timeIntervalSince1970: row["created"]),
                                          seen: Date(timeIntervalSince1970: row["seen"]))
            guard expiry.isLive(created: stored.created, seen: stored.seen, now: now) else {
                try db.execute(sql: "DELETE FROM web_session WHERE idHash = ?", arguments: [key])
                return nil
            }
            let read = stored.read(at: now)
            if read.touched {
                try db.execute(sql: "UPDATE web_session SET seen = ? WHERE idHash = ?", arguments: [now.timeIntervalSince1970, key])
            }
            return read.session
        }
    }

    package func latestSession(user: String, now: Date) throws -> WebState.Session? {
        let since = expiry.liveSince(now: now)
        return try db.write { db -> WebState.Session? in
            guard let row = try Row.fetchOne(db, sql: "SELECT idHash, csrf, created, seen FROM web_session WHERE user = ? AND seen >= ? AND created >= ? ORDER BY seen DESC, idHash LIMIT 1",
                                             arguments: [user, since.seen.timeIntervalSince1970, since.created.timeIntervalSince1970])
            else { return nil }
            let read = WebState.Session(user: user, csrf: row["csrf"], created: Date(timeIntervalSince1970: row["created"]),
                                        seen: Date(timeIntervalSince1970: row["seen"])).read(at: now)
            if read.touched {
                let key: String = row["idHash"]
                try db.execute(sql: "UPDATE web_session SET seen = ? WHERE idHash = ?", arguments: [now.timeIntervalSince1970, key])
            }
            return read.session
        }
    }

    package func endSession(id: String) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM web_session WHERE idHash = ?", arguments: [WebState.hash(id)]) }
    }

    package func forget(user: String) throws -> Int {
        try db.write { db in
            var removed = 0
            for table in ["web_session", "web_calendar", "web_token"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE user = ?", arguments: [user])
                removed += db.changesCount
            }
            // Its sign-in counters go too (not counted: they are neither sign-ins nor tokens).
            try db.execute(sql: "DELETE FROM web_throttle WHERE account = ?", arguments: [user])
            return removed
        }
    }

    package func endSessions(user: String) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM web_session WHERE user = ?", arguments: [user]) }
    }

    // MARK: Sign-in throttling

    /// One IMMEDIATE transaction: SQLite's one writer (across processes, with the busy timeout)
    /// makes the read, the decision and the write of the counters one step.
    package func countSignIn(account: String, client: String?, now: Date) throws -> WebState.Throttle.Verdict {
        let keys = WebState.Throttle.keys(account: account, client: client)
        return try db.writeWithoutTransaction { db in
            var verdict = WebState.Throttle.Verdict.allowed(earlier: 0)
            try db.inTransaction(.immediate) {
                let old = (now - WebState.Throttle.window).timeIntervalSince1970
                try db.execute(sql: "DELETE FROM web_throttle WHERE first < ? AND last < ?", arguments: [old, old])
                var stored: [WebState.Throttle.Counter] = []
                for key in keys {
                    let row = try Row.fetchOne(db, sql: "SELECT first, last, count FROM web_throttle WHERE account = ? AND client = ?",
                                               arguments: [key.account, key.client])
                    let first: Double = row?["first"] ?? now.timeIntervalSince1970
                    let last: Double = row?["last"] ?? 0
                    let count: Int = row?["count"] ?? 0
                    stored.append(WebState.Throttle.Counter(key: key, first: Date(timeIntervalSince1970: first),
                                                            last: Date(timeIntervalSince1970: last), count: count))
                }
                let (decided, write) = WebState.Throttle.judge(stored, now: now)
                verdict = decided
                for c in write ?? [] {
                    try db.execute(sql: """
                        INSERT INTO web_throttle (account, client, first, last, count) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (account, client) DO UPDATE SET first = excluded.first, last = excluded.last, count = excluded.count
                        """, arguments: [c.key.account, c.key.client, c.first.timeIntervalSince1970, c.last.timeIntervalSince1970, c.count])
                }
                return .commit
            }
            return verdict
        }
    }

    package func uncountSignIn(account: String, client: String?, accepted: Bool) throws {
        try db.write { db in
            if let client, !client.isEmpty {
                try db.execute(sql: accepted ? "DELETE FROM web_throttle WHERE account = ? AND client = ?"
                                             : "UPDATE web_throttle SET count = max(count - 1, 0) WHERE account = ? AND client = ?",
                               arguments: [account, client])
                try db.execute(sql: "UPDATE web_throttle SET count = max(count - 1, 0) WHERE account = '' AND client = ?", arguments: [client])
            }
            try db.execute(sql: "UPDATE web_throttle SET count = max(count - 1, 0) WHERE account = ? AND client = ''", arguments: [account])
        }
    }

    package func throttles(now: Date) throws -> [WebState.Throttle.Counter] {
        let old = (now - WebState.Throttle.window).timeIntervalSince1970
        return try db.read { db in
            try Row.fetchAll(db, sql: "SELECT account, client, first, last, count FROM web_throttle WHERE first >= ? AND count > 0 ORDER BY account, client",
                             arguments: [old]).map { row in
                WebState.Throttle.Counter(key: .init(account: row["account"], client: row["client"]), first: Date(timeIntervalSince1970: row["first"]),
                                          last: Date(timeIntervalSince1970: row["last"]), count: row["count"])
            }
        }
    }

    package func clearThrottles(account: String?) throws -> Int {
        try db.write { db in
            if let account {
                try db.execute(sql: "DELETE FROM web_throttle WHERE account = ?", arguments: [account])
            } else {
                try db.execute(sql: "DELETE FROM web_throttle")
            }
            return db.changesCount
        }
    }

    // MARK: Calendar subscription

    package func calendarSubscription(user: String) throws -> Date? {
        try db.read { db in
            try Double.fetchOne(db, sql: "SELECT created FROM web_calendar WHERE user = ?", arguments: [user]).map { Date(timeIntervalSince1970: $0) }
        }
    }

    package func renewCalendarSecret(user: String, now: Date) throws -> String {
        let secret = WebState.randomToken()
        try db.write { db in
            try db.execute(sql: "DELETE FROM web_calendar WHERE user = ?", arguments: [user])
            try db.execute(sql: "INSERT INTO web_calendar (user, secretHash, created) VALUES (?, ?, ?)",
                           arguments: [user, WebState.hash(secret), now.timeIntervalSince1970])
        }
        return secret
    }

    package func revokeCalendarSecret(user: String) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM web_calendar WHERE user = ?", arguments: [user]) }
    }

    package func calendarUser(secret: String) throws -> String? {
        guard WebState.wellFormed(secret) else { return nil }
        return try db.read { db in
            try String.fetchOne(db, sql: "SELECT user FROM web_calendar WHERE secretHash = ?", arguments: [WebState.hash(secret)])
        }
    }

    // MARK: API tokens

    package func createToken(user: String, name: String, expires: Date?, now: Date) throws -> (token: String, info: WebState.APIToken) {
        let token = WebState.randomToken()
        let hash = WebState.hash(token)
        let info = WebState.APIToken(id: WebState.tokenID(hash: hash), name: name, created: now, lastUsed: nil, expires: expires)
        try db.write { db in
            try db.execute(sql: "INSERT INTO web_token (hash, id, user, name, created, expires) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [hash, info.id, user, name, now.timeIntervalSince1970, expires?.timeIntervalSince1970])
        }
        return (token, info)
    }

    package func tokens(user: String) throws -> [WebState.APIToken] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, created, lastUsed, expires FROM web_token WHERE user = ? ORDER BY created, id", arguments: [user]).map { row in
                let used: Double? = row["lastUsed"]
                let expires: Double? = row["expires"]
                return WebState.APIToken(id: row["id"], name: row["name"], created: Date(timeIntervalSince1970: row["created"]),
                                         lastUsed: used.map { Date(timeIntervalSince1970: $0) }, expires: expires.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    package func revokeToken(user: String, id: String) throws -> Bool {
        try db.write { db in
            try db.execute(sql: "DELETE FROM web_token WHERE user = ? AND id = ?", arguments: [user, id])
            return db.changesCount > 0
        }
    }

    package func tokenUser(token: String, now: Date) throws -> String? {
        guard WebState.wellFormed(token) else { return nil }
        let hash = WebState.hash(token)
        return try db.write { db -> String? in
            guard let row = try Row.fetchOne(db, sql: "SELECT user, lastUsed, expires FROM web_token WHERE hash = ?", arguments: [hash]) else { return nil }
            let used: Double? = row["lastUsed"]
            let expires: Double? = row["expires"]
            guard WebState.tokenIsLive(expires: expires.map { Date(timeIntervalSince1970: $0) }, now: now) else { return nil }
            if WebState.touches(last: used.map { Date(timeIntervalSince1970: $0) }, now: now) {
                try db.execute(sql: "UPDATE web_token SET lastUsed = ? WHERE hash = ?", arguments: [now.timeIntervalSince1970, hash])
            }
            return row["user"]
        }
    }

    // MARK: Service tokens

    package func createServiceToken(name: String, now: Date) throws -> (token: String, info: WebState.APIToken) {
        let token = WebState.randomToken()
        let hash = WebState.hash(token)
        let info = WebState.APIToken(id: WebState.tokenID(hash: hash), name: name, created: now, lastUsed: nil)
        try db.write { db in
            try db.execute(sql: "INSERT INTO web_service_token (hash, id, name, created) VALUES (?, ?, ?, ?)",
                           arguments: [hash, info.id, name, now.timeIntervalSince1970])
        }
        return (token, info)
    }

    package func serviceTokens() throws -> [WebState.APIToken] {
        try db.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, created, lastUsed FROM web_service_token ORDER BY created, id").map { row in
                let used: Double? = row["lastUsed"]
                return WebState.APIToken(id: row["id"], name: row["name"], created: Date(timeIntervalSince1970: row["created"]),
                                         lastUsed: used.map { Date(timeIntervalSince1970: $0) })
            }
        }
    }

    package func revokeServiceToken(id: String) throws -> Bool {
        try db.write { db in
            try db.execute(sql: "DELETE FROM web_service_token WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    package func serviceTokenName(token: String, now: Date) throws -> String? {
        guard WebState.wellFormed(token) else { return nil }
        let hash = WebState.hash(token)
        return try db.write { db -> String? in
            guard let row = try Row.fetchOne(db, sql: "SELECT name, lastUsed FROM web_service_token WHERE hash = ?", arguments: [hash]) else { return nil }
            let used: Double? = row["lastUsed"]
            if WebState.touches(last: used.map { Date(timeIntervalSince1970: $0) }, now: now) {
                try db.execute(sql: "UPDATE web_service_token SET lastUsed = ? WHERE hash = ?", arguments: [now.timeIntervalSince1970, hash])
            }
            return row["name"]
        }
    }
}
