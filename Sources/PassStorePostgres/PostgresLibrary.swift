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
    /// The connection pool. Library work goes through `read` and `write`; the store benchmark
    /// (Benchmarks/StoreBench) uses it bare to time a round trip beside the library's operations.
    package let client: PostgresClient
    private let runTask: Task<Void, Never>
    package let logger: Logger

    /// The LISTEN channel; a commit that logs a change notifies it with the user's name.
    static let channel = "passconduit_changes"

    private init(server: PostgresLocation, user: String, options: LibraryOptions, client: PostgresClient, logger: Logger) {
        self.server = server
        self.location = server.display
        self.user = user
        self.options = options
        self.client = client
        self.logger = logger
        runTask = Task { await client.run() }
    }

    /// Connects to the server `text` names, checks (and creates or migrates) the schema and the
    /// user's library, then keeps a connection pool for the library's operations.
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
        try await PostgresSetup(server: server, user: user, logger: logger, create: create).run(until: deadline)
        let client = PostgresClient(configuration: try clientConfiguration(server, options: options), backgroundLogger: logger)
        return PostgresLibrary(server: server, user: user, options: options, client: client, logger: logger)
    }

    package func close() async {
        runTask.cancel()
        await runTask.value
    }

    deinit { runTask.cancel() }

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

    static func clientConfiguration(_ server: PostgresLocation, options: LibraryOptions) throws -> PostgresClient.Configuration {
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
        config.options.additionalStartupParameters = [("application_name", server.applicationName ?? "passconduit")]
        config.options.keepAliveBehavior = nil
        return config
    }

    static func connectionConfiguration(_ server: PostgresLocation) throws -> PostgresConnection.Configuration {
        var config: PostgresConnection.Configuration
        switch server.endpoint {
        case .socket:
            config = .init(unixSocketPath: server.socketPath!, username: server.role, password: server.password, database: server.database)
        case .tcp(let host):
            config = .init(host: host, port: server.port, username: server.role, password: server.password,
                           database: server.database, tls: try tls(server).connection)
        }
        config.options.connectTimeout = .seconds(Int64(server.connectTimeout ?? 10))
        config.options.additionalStartupParameters = [("application_name", server.applicationName ?? "passconduit")]
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
                return try await Deadline.run(until: attemptDeadline) { [client] in
                    try await client.withConnection { connection in
                        do {
                            return try await body(connection, commitSent)
                        } catch {
                            if PostgresFailure(error).connectionLost { await Self.retire(connection) }
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

/// A one-way flag shared with a transaction body (set once COMMIT has been sent).
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = false
    var value: Bool {
        get { lock.lock(); defer { lock.unlock() }; return _value }
        set { lock.lock(); _value = newValue; lock.unlock() }
    }
}

/// Races work against a deadline without waiting for the work to notice: a query on a silent
/// connection may not end for minutes, and the caller must still get its answer in time.
enum Deadline {
    struct Passed: Error {}

    static func run<T: Sendable>(until deadline: ContinuousClock.Instant,
                                 _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once<T>()
        let worker = Task {
            do { once.finish(.success(try await work())) } catch { once.finish(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if once.finish(.failure(Passed())) { worker.cancel() }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in once.set(continuation) }
        } onCancel: {
            if once.finish(.failure(CancellationError())) { worker.cancel() }
        }
    }

    final class Once<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, any Error>?
        private var done = false
        private var early: Result<T, any Error>?

        func set(_ c: CheckedContinuation<T, any Error>) {
            lock.lock()
            if let early { lock.unlock(); c.resume(with: early); return }
            continuation = c
            lock.unlock()
        }

        @discardableResult
        func finish(_ result: Result<T, any Error>) -> Bool {
            lock.lock()
            guard !done else { lock.unlock(); return false }
            done = true
            if let c = continuation {
                continuation = nil
                lock.unlock()
                c.resume(with: result)
            } else {
                early = result
                lock.unlock()
            }
            return true
        }
    }
}

/// A statement was not sent: its connection had already closed (the session ended).
struct ConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the connection had closed" }
}

/// What a postgres-nio error means for the library: whether trying again can help, and the
/// sentence for the person (the server's own message, never the password).
struct PostgresFailure {
    var sqlState: String?
    var serverMessage: String?
    var code: PSQLError.Code?
    var underlying: String?

    init(_ error: any Error) {
        if error is ConnectionClosed {
            code = .serverClosedConnection
            underlying = "\(error)"
        } else if let e = error as? PSQLError {
            code = e.code
            sqlState = e.serverInfo?[.sqlState]
            serverMessage = e.serverInfo?[.message]
            underlying = e.underlying.map { "\($0)" }
        } else {
            underlying = "\(error)"
        }
    }

    /// The connection is gone (server shut down, backend terminated, network cut).
    var connectionLost: Bool {
        if let code, code == .serverClosedConnection || code == .clientClosedConnection || code == .connectionError
            || code == .uncleanShutdown { return true }
        if let sqlState, sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" { return true }
        return false
    }

    var lockTimeout: Bool { sqlState == "55P03" }

    /// Serialization failure, deadlock, lock wait, a lost connection, a server starting up.
    var retryable: Bool {
        if connectionLost || lockTimeout { return true }
        if let sqlState, sqlState == "40001" || sqlState == "40P01" { return true }
        return false
    }

    var summary: String {
        if let serverMessage { return "the server said: \(serverMessage)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "") }
        // postgres-nio's description of a PSQLError is a fixed generic sentence, and its code and
        // underlying error are Swift names ("connectionError", "ChannelError.ioOnClosedChannel"):
        // a person reads what happened in words.
        let what: String
        switch code {
        case .serverClosedConnection?: what = "the server closed the connection"
        case .uncleanShutdown?: what = "the connection broke off"
        case .clientClosedConnection?: what = "the connection was closed"
        default: what = "the connection failed"
        }
        if let cause = underlying.flatMap(Self.words) { return "\(what): \(cause)" }
        return code == nil && underlying == nil ? "the server could not be used" : what
    }

    /// An underlying error's description as words: the system's text for its errno ("connection
    /// refused"), "the connection was closed" for NIO's closed channel; nil when it says nothing more.
    static func words(_ description: String) -> String? {
        if let range = description.range(of: "errno: "),
           let number = Int32(description[range.upperBound...].prefix(while: \.isNumber)) {
            return String(cString: strerror(number)).lowercased()
        }
        if description.contains("ioOnClosedChannel") || description.contains("alreadyClosed") || description.contains("eof") {
            return "the connection was closed"
        }
        if description.contains("connectTimeout") || description.contains("timeout") { return "no answer in time" }
        // Anything else that reads like a Swift value ("Module.Type.case(…)") is left out.
        if description.contains("(") || description.contains(".") && !description.contains(" ") { return nil }
        return description
    }

    func libraryError(_ name: String, location: String) -> LibraryError {
        switch sqlState {
        case "25006"?:
            return LibraryError(.unavailable, "\(name): the server is read-only (a standby, or default_transaction_read_only); nothing was written", path: location)
        case "28P01"?, "28000"?:
            return LibraryError(.unavailable, "\(name): the server refused the login: \(serverMessage ?? "authentication failed")", path: location)
        case "3D000"?:
            return LibraryError(.cannotCreate, "\(name): \(serverMessage ?? "the database does not exist")", path: location)
        case "42501"?:
            return LibraryError(.cannotCreate, "\(name): the role may not do this: \(serverMessage ?? "permission denied")", path: location)
        case "53100"?:
            return LibraryError(.io, "\(name): the server's disk is full", path: location)
        default:
            break
        }
        if let code, code == .authMechanismRequiresPassword {
            return LibraryError(.unavailable, "\(name): the server asks for a password and none was given (in the location or PGPASSFILE)", path: location)
        }
        if connectionLost || sqlState == nil {
            return LibraryError(.unavailable, "\(name): \(summary); nothing was written", path: location)
        }
        return LibraryError(.io, "\(name): \(summary)", path: location)
    }
}

/// One leased connection inside a transaction (or a plain read), with the user's name for the
/// `"user"` column. Statements are written with `$n` placeholders and an argument array.
struct PostgresTransaction: Sendable {
    let connection: PostgresConnection
    let user: String
    let logger: Logger

    typealias Value = (any PostgresThrowingDynamicTypeEncodable)?

    static func bindings(_ values: [Value]) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            if let value { try binds.append(value) } else { binds.appendNull() }
        }
        return binds
    }

    /// Runs a statement and collects its rows.
    ///
    /// The statement is handed to the connection on the connection's own event loop, and only
    /// while the connection is open there. postgres-nio (1.33.2) writes a query into its channel
    /// without a write promise: written after the channel closed (a terminated session, a server
    /// restart), it reaches no handler, is dropped, and its caller waits forever. The channel
    /// removes its handlers one event-loop turn after it stops being active, so on the event loop
    /// "still active" means the handler is there to answer: with rows, or with the error that
    /// ended the session. A closed connection fails at once with `ConnectionClosed`.
    func rows(_ sql: String, _ values: [Value] = []) async throws -> [PostgresRow] {
        let query = PostgresQuery(unsafeSQL: sql, binds: try Self.bindings(values))
        let connection = self.connection, logger = self.logger
        return try await connection.eventLoop.flatSubmit { () -> EventLoopFuture<[PostgresRow]> in
            guard !connection.isClosed else { return connection.eventLoop.makeFailedFuture(ConnectionClosed()) }
            return connection.query(query, logger: logger).map(\.rows)
        }.get()
    }

    /// Runs a statement whose rows do not matter.
    func run(_ sql: String, _ values: [Value] = []) async throws {
        _ = try await rows(sql, values)
    }
}

/// Opening: reach the server with one plain connection (its errors are the server's own, where
/// a pool would only back off and retry), then check the schema, create or migrate it, and make
/// sure the user has a library. Reads first, so a current library on a read-only server opens
/// without writing; creation and migration run under an advisory lock, so many processes may
/// open a fresh database at once.
struct PostgresSetup {
    let server: PostgresLocation
    let user: String
    let logger: Logger
    let create: Bool

    /// Any number the advisory lock of schema changes is taken on ("PCLB" as in SQLite's application_id).
    static let lockKey: Int64 = 0x5043_4C42

    func run(until deadline: ContinuousClock.Instant) async throws {
        let display = server.display
        let configuration = try PostgresLibrary.connectionConfiguration(server)
        var lastProblem = "the server did not answer"
        while true {
            // Set once the server accepted this attempt's connection: a session lost after that
            // (pg_terminate_backend, a restart) is tried again, whatever the error says.
            let connected = Flag()
            do {
                try await Deadline.run(until: deadline) { [self, logger] in
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                    connected.value = true
                    do {
                        try await setUp(PostgresTransaction(connection: connection, user: user, logger: logger))
                        try? await connection.close()
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                }
                return
            } catch let error as LibraryError {
                throw error.path == nil ? LibraryError(error.kind, error.message, path: display) : error
            } catch is Deadline.Passed {
                throw LibraryError(.unavailable, "open: \(lastProblem); gave up", path: display)
            } catch {
                let failure = PostgresFailure(error)
                // A server starting up or a connection dropped after it was made is worth another
                // try (a dropped session often carries no SQLSTATE: serverClosedConnection); a
                // refused connection (server down), a refused login or a missing database is not.
                let worthRetrying = failure.sqlState == "57P03" || failure.sqlState == "40001" || failure.sqlState == "40P01"
                    || (failure.connectionLost && (failure.sqlState != nil || connected.value))
                guard worthRetrying, ContinuousClock.now < deadline else {
                    if failure.sqlState == nil, failure.connectionLost || failure.code == .connectionError {
                        throw LibraryError(.unavailable, "open: cannot reach the PostgreSQL server: \(failure.underlying.flatMap(PostgresFailure.words) ?? failure.summary)", path: display)
                    }
                    throw failure.libraryError("open", location: display)
                }
                lastProblem = failure.summary
                try? await Task.sleep(for: .milliseconds(Int.random(in: 20...100)))
            }
        }
    }

    private func setUp(_ tx: PostgresTransaction) async throws {
        if try await isReady(tx) { return }
        try await tx.run("BEGIN")
        do {
            try await tx.run("SELECT pg_advisory_xact_lock($1)", [Self.lockKey])
            if try await schemaVersion(tx) == nil {
                // Opening an existing library (a reader, the milter's map, a copy's source)
                // creates nothing, not even the schema.
                guard create else {
                    throw LibraryError(.notFound, "the database holds no passconduit library (no library for user \(user))")
                }
                try await tx.run("CREATE SCHEMA IF NOT EXISTS passconduit")
                try await tx.run("""
                    CREATE TABLE passconduit.migration (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        application text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now())
                    """)
            }
            let version = try await schemaVersion(tx) ?? 0
            for migration in PostgresSchema.migrations where migration.version > version {
                // One statement per message: the extended protocol takes no lists.
                for statement in migration.sql.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
                    try await tx.run(String(statement))
                }
                try await tx.run("INSERT INTO passconduit.migration (version, name, application) VALUES ($1, $2, $3)",
                                 [migration.version, migration.name, PostgresSchema.application])
            }
            if try await tx.rows("SELECT 1 FROM passconduit.library_user WHERE name = $1", [user]).isEmpty {
                guard create else {
                    throw LibraryError(.notFound, "the database holds no library for user \(user)")
                }
                try await tx.run("""
                    INSERT INTO passconduit.library_user (name, created_at) VALUES ($1, extract(epoch from now()))
                    ON CONFLICT (name) DO NOTHING
                    """, [user])
            }
            try await tx.run("COMMIT")
        } catch {
            _ = try? await tx.run("ROLLBACK")
            throw error
        }
    }

    /// True when the schema is current and the user has a library (nothing to write). Throws
    /// for another program's `passconduit` schema and for a newer schema.
    private func isReady(_ tx: PostgresTransaction) async throws -> Bool {
        guard let version = try await schemaVersion(tx), version == PostgresSchema.newest else { return false }
        return try await !tx.rows("SELECT 1 FROM passconduit.library_user WHERE name = $1", [user]).isEmpty
    }

    /// The schema's version, nil when there is no `passconduit` schema yet.
    private func schemaVersion(_ tx: PostgresTransaction) async throws -> Int? {
        let row = try await tx.rows("""
            SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'passconduit'),
                   to_regclass('passconduit.migration') IS NOT NULL,
                   (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'passconduit')
            """)[0]
        let (schemas, hasMigration, relations) = try row.decode((Int, Bool, Int).self)
        guard schemas > 0 else { return nil }
        guard hasMigration else {
            if relations == 0 { return nil }
            throw LibraryError(.notALibrary, "the schema “passconduit” in this database belongs to another program (\(relations) tables, no passconduit migrations); it was left untouched")
        }
        let info = try await tx.rows("SELECT coalesce(max(version), 0), count(*) FILTER (WHERE application <> $1) FROM passconduit.migration",
                                     [PostgresSchema.application])[0]
        let (version, foreign) = try info.decode((Int, Int).self)
        guard foreign == 0 else {
            throw LibraryError(.notALibrary, "the schema “passconduit” in this database belongs to another program; it was left untouched")
        }
        if version > PostgresSchema.newest {
            throw LibraryError(.newerSchema, "was written by a newer passconduit (schema \(version), this one knows \(PostgresSchema.newest)); update passconduit on this host")
        }
        return version
    }
}
