import Foundation
import GRDB
import PassStore

/// The user's local pass library: one SQLite file (WAL) that many processes share — the
/// delivery filter for every message, the user at a terminal, a chat bridge.
///
/// Every write is one named IMMEDIATE transaction (a deferred one could fail with
/// SQLITE_BUSY_SNAPSHOT when it upgrades to a write, which no busy timeout waits out), retried
/// with jitter while other processes hold the lock, up to `LibraryOptions.retryDeadline`.
/// No `Database` value leaves this type.
package final class PassLibrary: @unchecked Sendable {
    package let path: String
    package let options: LibraryOptions
    /// Any GRDB writer: the file's `DatabaseQueue` (WAL), or what a caller built (an in-memory
    /// `DatabaseQueue` in tests, a `DatabasePool`).
    let dbQueue: any DatabaseWriter
    /// The device and inode of the file opened at `path` (nil for a database the caller made):
    /// `isCurrent` compares the file at `path` with it.
    let opened: LibraryFile.Identity?

    /// Where the library is, for messages (the backend's `location`).
    package var location: String { path }

    /// Opens the library at `path`, creating its folder (0700) and file (0600) on first use.
    /// Open and migration run under an exclusive flock on `path + ".lock"`, so many processes
    /// may open a fresh library at once. A file that is not a passconduit library, or one
    /// written by a newer schema, gets a `LibraryError` naming the path and is left untouched.
    package init(path: String, options: LibraryOptions = .default) throws {
        self.path = path
        self.options = options
        // SQLite is loaded on first use (CSQLiteLazy); without it nothing is created or opened.
        do { try Self.sqlite.load() } catch { throw LibraryError(.unavailable, error.message, path: path) }
        try LibraryFile.ensureFolder(of: path)
        let lock = try FileLock(path: path + ".lock", timeout: options.retryDeadline, libraryPath: path)
        defer { withExtendedLifetime(lock) {} }

        if try LibraryFile.inspect(path) == .missing {
            try LibraryFile.ensureFile(path)
        }
        var config = Configuration()
        config.busyMode = .timeout(options.busyTimeout)
        config.label = "passconduit library"
        let synchronous = options.synchronous.rawValue
        config.prepareDatabase { db in
            // Per connection; see LibraryOptions.synchronous for the choice.
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
        }
        let deadline = Self.deadline(after: options.retryDeadline)
        do {
            dbQueue = try Self.retrying("open", path: path, until: deadline) {
                try DatabaseQueue(path: path, configuration: config)
            }
        } catch let error as LibraryError where error.kind == .notALibrary {
            throw LibraryFile.foreignFileError(path) ?? error
        }
        opened = LibraryFile.identity(path)
        try Self.retrying("open", path: path, until: deadline) {
            try self.checkIdentityAndMigrate(switchToWAL: true)
        }
    }

    /// Opens an existing library at `path` for reading only (list, show, export, calendar, log):
    /// nothing is created (no folder, no lock file, no library), nothing is written, and a
    /// library in a folder this user cannot write (a backup mount, a library shared read-only)
    /// opens too: there SQLite cannot make the WAL's `-shm` file, so the file is read as
    /// immutable (SQLite's `immutable=1`: no locks, no shared memory), which is what such a
    /// folder guarantees while this process reads it.
    /// A missing file is `LibraryError.Kind.notFound`. A library of an older schema is opened
    /// as `init(path:options:)` opens it, which migrates it (a read-only one cannot be read).
    package static func reading(_ path: String, options: LibraryOptions = .default) throws -> PassLibrary {
        do {
            return try PassLibrary(readingOnly: path, options: options)
        } catch is OlderSchema {
            return try PassLibrary(path: path, options: options)
        }
    }

    /// Thrown by the read-only open of a library only a writer can bring up to date.
    struct OlderSchema: Error {}

    init(readingOnly path: String, options: LibraryOptions) throws {
        self.path = path
        self.options = options
        switch try LibraryFile.inspect(path) {
        case .missing:
            throw LibraryError(.notFound, "there is no library here (nothing was ever added to it, or the path is mistyped)", path: path)
        case .empty:
            throw LibraryError(.notFound, "the library is empty: nothing was ever added to it", path: path)
        case .nonEmpty:
            break
        }
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(options.busyTimeout)
        config.label = "passconduit library (read-only)"
        let folder = (path as NSString).deletingLastPathComponent
        let shm = path + "-shm"
        // SQLite makes `-shm` beside the file when it is missing; where it cannot, a WAL library
        // opens only as immutable.
        let immutable = access(folder.isEmpty ? "." : folder, W_OK) != 0 && access(shm, F_OK) != 0
        let location = immutable ? Self.immutableURI(path) : path
        let deadline = Self.deadline(after: options.retryDeadline)
        do {
            dbQueue = try Self.retrying("open", path: path, until: deadline) {
                try DatabaseQueue(path: location, configuration: config)
            }
        } catch let error as LibraryError where error.kind == .notALibrary {
            throw LibraryFile.foreignFileError(path) ?? error
        }
        opened = LibraryFile.identity(path)
        let upToDate = try Self.retrying("open", path: path, until: deadline) {
            try dbQueue.read { db -> Bool in
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let userVersion = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                guard applicationID == LibrarySchema.applicationID else {
                    throw LibraryError(.notALibrary,
                                       "is an SQLite database of another program (application_id \(applicationID)), not a pass library; it was left untouched",
                                       path: path)
                }
                let migrator = LibrarySchema.migrator
                let applied = try migrator.appliedIdentifiers(db)
                let known = Set(migrator.migrations)
                if userVersion > LibrarySchema.userVersion || !applied.isSubset(of: known) {
                    throw LibraryError(.newerSchema,
                                       "was written by a newer passconduit (schema \(userVersion), this one knows \(LibrarySchema.userVersion)); update passconduit",
                                       path: path)
                }
                return known.isSubset(of: applied)
            }
        }
        guard upToDate else { throw OlderSchema() }
    }

    /// `file:` URI of `path` with `immutable=1` (SQLite reads URIs: Debian builds it with USE_URI).
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// A library on a database the caller opened: an in-memory `DatabaseQueue` (tests), a
    /// `DatabasePool`. Same identity check and migrations as a file; the journal mode and any
    /// cross-process locking are the caller's. `name` stands for the path in messages.
    package init(writer: any DatabaseWriter, name: String, options: LibraryOptions = .default) throws {
        self.path = name
        self.options = options
        self.dbQueue = writer
        self.opened = nil
        let deadline = Self.deadline(after: options.retryDeadline)
        try Self.retrying("open", path: name, until: deadline) {
            try self.checkIdentityAndMigrate(switchToWAL: false)
        }
    }

    /// Refuses another program's database and newer schemas, then switches to WAL and migrates.
    /// Nothing is written before the identity check passes.
    private func checkIdentityAndMigrate(switchToWAL: Bool) throws {
        let migrator = LibrarySchema.migrator
        let upToDate = try dbQueue.writeWithoutTransaction { db -> Bool in
            let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            let userVersion = try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            var upToDate = false
            if applicationID == LibrarySchema.applicationID {
                // One read of GRDB's bookkeeping answers both questions: a migration this build
                // does not know means a newer passconduit; every known one applied means
                // `migrate` has nothing to do (then it is not run: its barrier write, CREATE TABLE
                // IF NOT EXISTS and two more reads of the table were ~0.15 M instructions of
                // every filter run, issue 14).
                let applied = try migrator.appliedIdentifiers(db)
                let known = Set(migrator.migrations)
                let superseded = !applied.isSubset(of: known)
                upToDate = known.isSubset(of: applied)
                if userVersion > LibrarySchema.userVersion || superseded {
                    throw LibraryError(.newerSchema,
                                       "was written by a newer passconduit (schema \(userVersion), this one knows \(LibrarySchema.userVersion)); update passconduit",
                                       path: path)
                }
            } else {
                // A fresh file, or one where a killed first open got only as far as GRDB's
                // (empty) bookkeeping table, is ours to set up; anything else is foreign. (The
                // table list is read only here: a library of ours, opened by every filter run,
                // does not need it.)
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
                let onlyBookkeeping = tables.allSatisfy { $0 == "grdb_migrations" }
                let bookkeepingRows = tables.isEmpty || !onlyBookkeeping
                    ? 0 : try Int.fetchOne(db, sql: "SELECT count(*) FROM grdb_migrations") ?? 0
                let bookkeepingEmpty = bookkeepingRows == 0
                guard applicationID == 0, userVersion == 0, onlyBookkeeping, bookkeepingEmpty else {
                    throw LibraryError(.notALibrary,
                                       "is an SQLite database of another program (application_id \(applicationID), \(tables.count) tables), not a pass library; it was left untouched",
                                       path: path)
                }
            }
            guard switchToWAL else { return upToDate }
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw LibraryError(.io, "cannot switch the library to WAL mode (journal_mode is \(mode ?? "unknown"))", path: path)
            }
            return upToDate
        }
        if !upToDate { try migrator.migrate(dbQueue) }
    }

    // MARK: - Transactions

    /// Runs `body` as one IMMEDIATE write transaction named `name` (the name appears in errors),
    /// retrying while other processes hold the library.
    func write<T>(_ name: String, _ body: (Database) throws -> T) throws -> T {
        let deadline = Self.deadline(after: options.retryDeadline)
        return try Self.retrying(name, path: path, until: deadline) {
            try dbQueue.writeWithoutTransaction { db in
                var value: T?
                try db.inTransaction(.immediate) {
                    value = try body(db)
                    return .commit
                }
                guard let value else {
                    throw LibraryError(.io, "\(name): the transaction produced no result", path: path)
                }
                return value
            }
        }
    }

    /// Runs `body` in a read transaction (a consistent snapshot), retrying like `write`.
    func read<T>(_ name: String, _ body: (Database) throws -> T) throws -> T {
        let deadline = Self.deadline(after: options.retryDeadline)
        return try Self.retrying(name, path: path, until: deadline) {
            try dbQueue.read { db in try body(db) }
        }
    }

    /// Retries `body` while SQLite reports the database busy or locked, with a random pause of
    /// 1 to 25 ms (jitter keeps waiting processes from retrying in lockstep); maps every other
    /// SQLite error to a `LibraryError` naming the path.
    /// Deadlines are on the monotonic clock: a wall-clock step (NTP, a suspended laptop) neither
    /// stretches nor cuts a wait.
    static func deadline(after seconds: TimeInterval) -> ContinuousClock.Instant {
        .now + .milliseconds(Int64((max(0, seconds) * 1000).rounded(.up)))
    }

    static func retrying<T>(_ name: String, path: String, until deadline: ContinuousClock.Instant, _ body: () throws -> T) throws -> T {
        while true {
            do {
                return try body()
            } catch let error as DatabaseError {
                switch error.resultCode {
                case .SQLITE_BUSY, .SQLITE_LOCKED:
                    guard ContinuousClock.now < deadline else {
                        throw LibraryError(.busy, "\(name): the library stayed locked by other processes; try again later",
                                           path: path)
                    }
                    usleep(UInt32.random(in: 1_000...25_000))
                default:
                    throw libraryError(for: error, name: name, path: path)
                }
            }
        }
    }

    static func libraryError(for error: DatabaseError, name: String, path: String) -> LibraryError {
        let reason = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return LibraryError(.notALibrary, "is not a pass library (\(name): not an SQLite database, or a damaged one: \(reason)); it was left untouched",
                                path: path)
        case .SQLITE_CORRUPT:
            return LibraryError(.notALibrary, "\(name): the library file is damaged (\(reason)); it was left untouched", path: path)
        case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
            return LibraryError(.cannotCreate, "\(name): cannot open the library for writing (\(reason))", path: path)
        case .SQLITE_FULL:
            return LibraryError(.io, "\(name): the disk is full", path: path)
        default:
            return LibraryError(.io, "\(name): \(reason)", path: path)
        }
    }
}
