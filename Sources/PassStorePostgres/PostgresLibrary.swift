import Foundation
import PassStore
import PostgresNIO

/// The pass library on a PostgreSQL server (postgres-nio's `PostgresClient`): many users'
/// libraries in one database, each row carrying its `"user"`. Same operations, answers and
/// `LibraryError` kinds as the SQLite `PassLibrary`.
///
/// Writes: every write is one READ COMMITTED transaction that first locks the user's
/// `library_user` row (`SELECT … FOR UPDATE`). So one user's writes are serialized, exactly as
/// SQLite's single writer serializes a library file, from any number of hosts and processes:
/// no lost update (the read-decide-write of `replace`, `acceptOffer` and `stageOffer` happens
/// under the lock), no deadlock (one lock, always taken first), no retry storm (waiters queue
/// on the lock instead of failing and retrying as SERIALIZABLE would), and the change log's
/// per-user sequence (`last_sequence + 1`, taken under the lock) commits in order, so a
/// follower never sees a later number before an earlier one. Different users never wait for
/// each other. Uniqueness is also a constraint ((user, type, serial) on pass and offer,
/// (user, sequence) on the log), so a bug could fail a write but never duplicate a row.
///
/// A connection lost before COMMIT was sent rolls the transaction back on the server: the whole
/// write is retried on a new connection until `retryDeadline` (the lost one is closed and out of
/// the pool first, and no statement is ever sent on a closed connection: see `retire` and
/// `PostgresTransaction.rows`). Lost during COMMIT, the outcome is
/// unknown, so it is reported (`unavailable`) rather than applied twice.
package final class PostgresLibrary: PassLibraryBackend, @unchecked Sendable {
    package let location: String
    package let options: LibraryOptions
    /// Whose library this is (the `"user"` of every row).
    package let user: String
    let server: PostgresLocation
    /// The process's pool for this server (`PostgresPools`), shared with every other library
    /// opened on it; a lease is scoped to `user` before the library's work runs on it.
    let pool: PostgresPools.Pool
    /// The pool's client. Library work goes through `read` and `write`; the store benchmark
    /// (Benchmarks/StoreBench) uses it bare to time a round trip beside the library's operations.
    package var client: PostgresClient { pool.client }
    private let released = Flag()
    package let logger: Logger
    /// The `created_at` of the user's library when it was opened: `isCurrent` compares.
    let createdAt: Double

    /// The LISTEN channel; a commit that logs a change notifies it with the user's name.
    static let channel = "passconduit_changes"

    private init(server: PostgresLocation, user: String, options: LibraryOptions, pool: PostgresPools.Pool, logger: Logger, createdAt: Double) {
        self.createdAt = createdAt
        self.server = server
        self.location = server.display
        self.user = user
        self.options = options
        self.pool = pool
        self.logger = logger
    }

    /// Connects to the server `text` names, checks (and creates or migrates) the schema and the
    /// user's library, then leases the process's pool for that server (`PostgresPools`).
    /// `create: false` refuses a user the database has no library for (the milter's map).
    package static func open(_ text: String, options: LibraryOptions = .default,
                             environment: [String: String] = ProcessInfo.processInfo.environment,
                             create: Bool = true) async throws -> PostgresLibrary {
        let server = try PostgresLocation(text, environment: environment)
        let user = server.libraryUser ?? options.user ?? PostgresLocation.loginName(environment)
        guard !user.isEmpty, !user.utf8.contains(0) else {
            throw LibraryError(.cannotCreate, "no library user: give --user NAME", path: server.display)
        }
        var logger = Logger(label: "passconduit.library.postgresql")
        logger.logLevel = .critical
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0.1, options.retryDeadline) * 1000))
        let setup = PostgresSetup(server: server, user: user, logger: logger, create: create)
        let pool: PostgresPools.Pool
        let createdAt: Double
        if let open = PostgresPools.shared.acquireExisting(server) {
            pool = open
            do {
                createdAt = try await setup.run(until: deadline, on: pool)
            } catch {
                await PostgresPools.shared.release(pool)?.value
                throw error
            }
        } else {
            createdAt = try await setup.run(until: deadline)
            pool = try PostgresPools.shared.acquire(server, options: options, logger: logger)
        }
        return PostgresLibrary(server: server, user: user, options: options, pool: pool, logger: logger, createdAt: createdAt)
    }

    /// The user's library on the server is the one opened: its row is there with the same
    /// `created_at` (a library dropped and made again under the same name has another).
    package func isCurrent() async throws -> Bool {
        let user = self.user
        let now = try await read("check") { tx in try await PostgresSetup.createdAt(tx, user: user) }
        return now == createdAt
    }

    /// Gives back this library's use of the pool; the last library of a server closes its
    /// connections (and this waits for them to close).
    package func close() async {
        guard released.setOnce() else { return }
        await PostgresPools.shared.release(pool)?.value
    }

    deinit {
        if released.setOnce() { PostgresPools.shared.release(pool) }
    }

    // MARK: - Configuration

    static func tls(_ server: PostgresLocation) throws -> (client: PostgresClient.Configuration.TLS, connection: PostgresConnection.Configuration.TLS) {
        var config = TLSConfiguration.makeClientConfiguration()
        switch server.sslMode {
        case .disable:
            return (.disable, .disable)
        case .allow, .prefer, .require:
            // libpq: these encrypt but do not check the certificate (unless a root cert is given
            // for require, which then behaves as verify-ca).
            config.certificateVerification = server.sslRootCert != nil && server.sslMode == .require ? .noHostnameVerification : .none
        case .verifyCA:
            config.certificateVerification = .noHostnameVerification
        case .verifyFull:
            config.certificateVerification = .fullVerification
        }
        if let root = server.sslRootCert, server.sslMode != .allow, server.sslMode != .prefer {
            config.trustRoots = .file(root)
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: config)
        } catch {
            throw LibraryError(.cannotCreate, "cannot set up TLS (sslmode \(server.sslMode.rawValue)): \(error)", path: server.display)
        }
        switch server.sslMode {
        case .allow, .prefer: return (.prefer(config), .prefer(context))
        default: return (.require(config), .require(context))
        }
    }

    /// What every connection announces at start-up: its application name and, for a connection
    /// made for one user's library alone (opening it: `PostgresSetup`), the library user it is
    /// scoped to (`passconduit.user`, which the row-level security policies of schema v3 compare
    /// each row's user with), set in the start-up packet at no round trip. Nil for connections
    /// that serve many users: the process's pool (`PostgresPools` scopes each lease), the web
    /// state, an operator's listing.
    static func startupParameters(_ server: PostgresLocation, scope: String?) -> [(String, String)] {
        var parameters = [("application_name", server.applicationName ?? "passconduit")]
        if let scope { parameters.append(("passconduit.user", scope)) }
        return parameters
    }

    static func clientConfiguration(_ server: PostgresLocation, options: LibraryOptions, scope: String?) throws -> PostgresClient.Configuration {
        var config: PostgresClient.Configuration
        switch server.endpoint {
        case .socket:
            config = .init(unixSocketPath: server.socketPath!, username: server.role, password: server.password, database: server.database)
        case .tcp(let host):
            config = .init(host: host, port: server.port, username: server.role, password: server.password,
                           database: server.database, tls: try tls(server).client)
        }
        config.options.connectTimeout = .seconds(Int64(server.connectTimeout ?? 10))
        config.options.maximumConnections = 4
        config.options.additionalStartupParameters = startupParameters(server, scope: scope)
        config.options.keepAliveBehavior = nil
        return config
    }

    static func connectionConfiguration(_ server: PostgresLocation, scope: String?) throws -> PostgresConnection.Configuration {
        var config: PostgresConnection.Configuration
        switch server.endpoint {
        case .socket:
            config = .init(unixSocketPath: server.socketPath!, username: server.role, password: server.password, database: server.database)
        case .tcp(let host):
            config = .init(host: host, port: server.port, username: server.role, password: server.password,
                           database: server.database, tls: try tls(server).connection)
        }
        config.options.connectTimeout = .seconds(Int64(server.connectTimeout ?? 10))
        config.options.additionalStartupParameters = startupParameters(server, scope: scope)
        return config
    }

    // MARK: - Transactions

    /// Runs `body` as one write transaction holding the user's lock (see the type's comment),
    /// retried on a new connection while the server cannot be reached, drops the connection
    /// before COMMIT, or reports a serialization failure, until `retryDeadline`.
    /// `extra`: time the work itself may take on top of one attempt's limit (a whole library copied).
    func write<T: Sendable>(_ name: String, extra: TimeInterval = 0,
                            _ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        try await attempt(name, extra: extra) { [user, options, logger] connection, commitSent in
            let tx = PostgresTransaction(connection: connection, user: user, logger: logger)
            try await tx.run("BEGIN")
            do {
                let lockWait = Int(max(0.01, options.busyTimeout) * 1000)
                try await tx.run("SET LOCAL lock_timeout = \(lockWait)")
                let locked = try await tx.rows("SELECT 1 FROM passconduit.library_user WHERE name = $1 FOR UPDATE", [user])
                guard !locked.isEmpty else {
                    throw LibraryError(.notALibrary, "\(name): the library of user \(user) is gone from the database")
                }
                let value = try await body(tx)
                commitSent.value = true
                try await tx.run("COMMIT")
                return value
            } catch {
                // A session that is gone rolled back on the server; nothing more to send on it.
                if !commitSent.value && !PostgresFailure(error).connectionLost { _ = try? await tx.run("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs `body` on one connection: in a REPEATABLE READ READ ONLY transaction (one snapshot)
    /// when `snapshot`, else statement by statement. Retried like `write`.
    func read<T: Sendable>(_ name: String, snapshot: Bool = false, extra: TimeInterval = 0,
                           _ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        try await attempt(name, extra: extra) { [user, logger] connection, _ in
            let tx = PostgresTransaction(connection: connection, user: user, logger: logger)
            guard snapshot else { return try await body(tx) }
            try await tx.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let value = try await body(tx)
                try await tx.run("COMMIT")
                return value
            } catch {
                if !PostgresFailure(error).connectionLost { _ = try? await tx.run("ROLLBACK") }
                throw error
            }
        }
    }

    /// The retry loop around one leased connection.
    /// `extra`: time the work itself may take on top of the deadline (a follower's wait, a library copied).
    private func attempt<T: Sendable>(_ name: String, extra: TimeInterval = 0,
                                      _ body: @escaping @Sendable (PostgresConnection, Flag) async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .milliseconds(Int64((max(0.05, options.retryDeadline) + extra) * 1000))
        // One attempt may wait for the user's lock (busyTimeout) and a few round trips; longer means
        // its connection went silent (a network that drops packets without a reset; keep-alive is
        // off), so it is abandoned and the write tried again on another connection. A session the
        // server ends is not silent: its statements fail at once (`PostgresTransaction.rows`) and
        // the connection leaves the pool before the retry (`retire`).
        let attemptLimit = Duration.milliseconds(Int64((max(0.05, options.busyTimeout) + 3 + extra) * 1000))
        let display = location
        var lastProblem = "the server did not answer"
        while true {
            let commitSent = Flag()
            let attemptDeadline = min(deadline, ContinuousClock.now + attemptLimit)
            do {
                return try await Deadline.run(until: attemptDeadline) { [pool, user, logger] in
                    try await pool.client.withConnection { connection in
                        do {
                            try await pool.scope(connection, to: user, logger: logger)
                            return try await body(connection, commitSent)
                        } catch {
                            if PostgresFailure(error).connectionLost {
                                pool.forget(connection)
                                await Self.retire(connection)
                            }
                            throw error
                        }
                    }
                }
            } catch let error as LibraryError {
                throw error.path == nil ? LibraryError(error.kind, error.message, path: display) : error
            } catch is Deadline.Passed {
                if !commitSent.value && ContinuousClock.now < deadline {
                    lastProblem = "the server did not answer within \(attemptLimit)"
                    continue
                }
                if commitSent.value {
                    throw LibraryError(.unavailable, "\(name): the server did not confirm the commit before the deadline; the change may or may not be in the library", path: display)
                }
                throw LibraryError(.unavailable, "\(name): \(lastProblem) (gave up after \(options.retryDeadline) s); nothing was written", path: display)
            } catch {
                let failure = PostgresFailure(error)
                if commitSent.value && failure.connectionLost {
                    throw LibraryError(.unavailable, "\(name): the connection was lost while committing; the change may or may not be in the library (check with `log`)", path: display)
                }
                guard failure.retryable else { throw failure.libraryError(name, location: display) }
                lastProblem = failure.summary
                guard ContinuousClock.now < deadline else {
                    if failure.lockTimeout {
                        throw LibraryError(.busy, "\(name): the library stayed locked by other writers; try again later", path: display)
                    }
                    throw LibraryError(.unavailable, "\(name): \(failure.summary) (gave up after \(options.retryDeadline) s); nothing was written", path: display)
                }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...50)))
            }
        }
    }
}

extension PostgresLibrary {
    /// Gives back a connection whose session is gone only once the pool knows it is closed. The
    /// pool learns of a close from the connection's close future, one event-loop turn after the
    /// connection failed its queries; a lease given back before that would leave a dead connection
    /// idle in the pool, and the next lease (often this write's own retry) would get it. The pool's
    /// close callback was registered when the connection was made, so it has run when ours does.
    static func retire(_ connection: PostgresConnection) async {
        try? await connection.close()
        try? await connection.closeFuture.get()
    }
}
