import Foundation
import PassStore
import PostgresNIO

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

    /// Returns the user's library's `created_at`: which library of that name was opened (one
    /// dropped and made again has another).
    ///
    /// `pool`: the process's pool of this server when another library opened it already (a
    /// server opening one library per person): the work runs on a lease of it, scoped to the
    /// user, rather than on a connection of its own, so people signing in at once do not each
    /// add a connection to the server's count. The first library of a server opens on a plain
    /// connection, whose errors are the server's own.
    func run(until deadline: ContinuousClock.Instant, on pool: PostgresPools.Pool? = nil) async throws -> Double {
        let display = server.display
        let configuration = try PostgresLibrary.connectionConfiguration(server, scope: user)
        var lastProblem = "the server did not answer"
        while true {
            // Set once the server accepted this attempt's connection: a session lost after that
            // (pg_terminate_backend, a restart) is tried again, whatever the error says.
            let connected = Flag()
            do {
                return try await Deadline.run(until: deadline) { [self, logger] in
                    if let pool {
                        return try await pool.client.withConnection { connection in
                            connected.value = true
                            do {
                                try await pool.scope(connection, to: user, logger: logger)
                                return try await setUp(PostgresTransaction(connection: connection, user: user, logger: logger))
                            } catch {
                                if PostgresFailure(error).connectionLost {
                                    pool.forget(connection)
                                    await PostgresLibrary.retire(connection)
                                }
                                throw error
                            }
                        }
                    }
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                    connected.value = true
                    do {
                        let created = try await setUp(PostgresTransaction(connection: connection, user: user, logger: logger))
                        try? await connection.close()
                        return created
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                }
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

    private func setUp(_ tx: PostgresTransaction) async throws -> Double {
        if let created = try await isReady(tx) { return created }
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
            _ = try await schemaVersion(tx)
            let applied = try await Self.appliedVersions(tx)
            for migration in PostgresSchema.migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
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
            let created = try await Self.createdAt(tx, user: user)
            try await tx.run("COMMIT")
            guard let created else { throw LibraryError(.notFound, "the database holds no library for user \(user)") }
            return created
        } catch {
            _ = try? await tx.run("ROLLBACK")
            throw error
        }
    }

    /// The user's library's `created_at` when the schema is current and the user has a library
    /// (nothing to write); nil otherwise. Throws for another program's `passconduit` schema and
    /// for a newer schema.
    private func isReady(_ tx: PostgresTransaction) async throws -> Double? {
        guard try await schemaVersion(tx) != nil, try await Self.appliedVersions(tx) == PostgresSchema.known else { return nil }
        return try await Self.createdAt(tx, user: user)
    }

    /// The versions of the migrations the database has recorded (they need not be contiguous).
    static func appliedVersions(_ tx: PostgresTransaction) async throws -> Set<Int> {
        Set(try await tx.rows("SELECT version FROM passconduit.migration").map { try $0.decode(Int.self) })
    }

    /// When `user`'s library was made; nil when the database holds none.
    static func createdAt(_ tx: PostgresTransaction, user: String) async throws -> Double? {
        try await tx.rows("SELECT created_at FROM passconduit.library_user WHERE name = $1", [user]).first?.decode(Double.self)
    }

    /// The schema's version, nil when there is no `passconduit` schema yet.
    private func schemaVersion(_ tx: PostgresTransaction) async throws -> Int? {
        let row = try await tx.rows("""
            SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'passconduit'),
                   to_regclass('passconduit.migration') IS NOT NULL,
                   (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'passconduit'),
                   (SELECT bool_and(has_schema_privilege(oid, 'USAGE')) FROM pg_namespace WHERE nspname = 'passconduit')
            """)[0]
        let (schemas, hasMigration, relations, usable) = try row.decode((Int, Bool, Int, Bool?).self)
        guard schemas > 0 else { return nil }
        guard usable ?? true else {
            // A role of its own for the milter or the web wallet that was never given its rights:
            // its catalog lookups see the tables, but not what they are.
            throw LibraryError(.cannotCreate, "open: the role may not do this: it has no rights on the schema “passconduit” (the library's owner gives them with passconduit library grant)")
        }
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
        let unknown = try await Self.appliedVersions(tx).subtracting(PostgresSchema.known)
        if version > PostgresSchema.newest || !unknown.isEmpty {
            throw LibraryError(.newerSchema, "was written by a newer passconduit (schema \(version), this one knows \(PostgresSchema.newest)); update passconduit on this host")
        }
        return version
    }
}
