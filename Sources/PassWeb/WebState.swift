import Foundation
import GRDB
import Support

/// What the web wallet remembers between requests and across restarts: sessions and failed
/// sign-ins. One SQLite file where the library lives (beside the library file), shared by every
/// `serve` process on that folder. Session ids and tokens are stored only as their SHA-256: a copy
/// of the file signs nobody in.
package final class WebState: @unchecked Sendable {
    package struct Session: Sendable, Equatable {
        package var user: String
        /// The per-session token every state-changing form carries.
        package var csrf: String
        package var created: Date
        package var seen: Date
    }

    /// Signed out after this long without a request, and this long after signing in whatever happens.
    package struct Expiry: Sendable {
        package var idle: TimeInterval = 2 * 3600
        package var absolute: TimeInterval = 7 * 24 * 3600
        package init() {}
    }

    package let path: String
    package let expiry: Expiry
    let db: DatabaseQueue

    package init(path: String, expiry: Expiry = Expiry()) throws {
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
        try migrator.migrate(db)
    }

    /// 256 random bits as 64 hex digits.
    package static func randomToken() -> String {
        var g = SystemRandomNumberGenerator()
        return Digest.hexString((0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    static func hash(_ token: String) -> String { Digest.sha256Hex(Array(token.utf8)) }

    /// A new session for `user`: its id (for the cookie only) and its CSRF token.
    package func createSession(user: String, now: Date = Date()) throws -> (id: String, session: Session) {
        let id = Self.randomToken()
        let session = Session(user: user, csrf: Self.randomToken(), created: now, seen: now)
        try db.write { db in
            try db.execute(sql: "DELETE FROM web_session WHERE seen < ? OR created < ?",
                           arguments: [(now - expiry.idle).timeIntervalSince1970, (now - expiry.absolute).timeIntervalSince1970])
            try db.execute(sql: "INSERT INTO web_session (idHash, user, csrf, created, seen) VALUES (?, ?, ?, ?, ?)",
                           arguments: [Self.hash(id), user, session.csrf, now.timeIntervalSince1970, now.timeIntervalSince1970])
        }
        return (id, session)
    }

    /// The live session a cookie names, its last use moved to now (at most once a minute); nil
    /// for an unknown, forged, idle or too old one.
    package func session(id: String, now: Date = Date()) throws -> Session? {
        guard id.utf8.count == 64, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        let key = Self.hash(id)
        return try db.write { db -> Session? in
            guard let row = try Row.fetchOne(db, sql: "SELECT user, csrf, created, seen FROM web_session WHERE idHash = ?", arguments: [key]) else { return nil }
            let created = Date(timeIntervalSince1970: row["created"])
            let seen = Date(timeIntervalSince1970: row["seen"])
            if now.timeIntervalSince(seen) > expiry.idle || now.timeIntervalSince(created) > expiry.absolute {
                try db.execute(sql: "DELETE FROM web_session WHERE idHash = ?", arguments: [key])
                return nil
            }
            if now.timeIntervalSince(seen) > 60 {
                try db.execute(sql: "UPDATE web_session SET seen = ? WHERE idHash = ?", arguments: [now.timeIntervalSince1970, key])
            }
            return Session(user: row["user"], csrf: row["csrf"], created: created, seen: now.timeIntervalSince(seen) > 60 ? now : seen)
        }
    }

    package func endSession(id: String) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM web_session WHERE idHash = ?", arguments: [Self.hash(id)]) }
    }

    /// Signs `user` out on every browser.
    package func endSessions(user: String) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM web_session WHERE user = ?", arguments: [user]) }
    }

    // MARK: Sign-in throttling

    /// Failures counted per account and per client address over this window.
    package static let failureWindow: TimeInterval = 15 * 60

    package func recordFailure(keys: [String], now: Date = Date()) throws {
        try db.write { db in
            try db.execute(sql: "DELETE FROM web_failure WHERE at < ?", arguments: [(now - Self.failureWindow).timeIntervalSince1970])
            for key in keys {
                try db.execute(sql: "INSERT INTO web_failure (key, at) VALUES (?, ?)", arguments: [Self.hash(key), now.timeIntervalSince1970])
            }
        }
    }

    /// The most failures any of `keys` has in the window.
    package func failures(keys: [String], now: Date = Date()) throws -> Int {
        try db.read { db in
            try keys.map { key in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM web_failure WHERE key = ? AND at >= ?",
                                 arguments: [Self.hash(key), (now - Self.failureWindow).timeIntervalSince1970]) ?? 0
            }.max() ?? 0
        }
    }

    package func clearFailures(key: String) throws {
        try db.write { db in try db.execute(sql: "DELETE FROM web_failure WHERE key = ?", arguments: [Self.hash(key)]) }
    }
}
