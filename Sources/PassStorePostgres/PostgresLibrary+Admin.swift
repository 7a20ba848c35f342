import Foundation
import PassStore
import PostgresNIO

/// A library's life on a server, for an operator (`passconduit library list|drop`): which users
/// the database holds a library for, and erasing one user's library with every row of it.
extension PostgresLibrary {
    /// The users the database at `text` holds a library for, sorted; empty when it holds no
    /// passconduit schema at all. Reads only.
    package static func users(_ text: String, options: LibraryOptions = .default,
                              environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> [String] {
        try await withOperatorConnection(text, "list", options: options, environment: environment) { tx in
            let present = try await tx.rows("SELECT to_regclass('passconduit.library_user') IS NOT NULL")[0].decode(Bool.self)
            var names: [String] = []
            if present {
                for row in try await tx.rows(#"SELECT name FROM passconduit.library_user ORDER BY name COLLATE "C""#) {
                    names.append(try row.decode(String.self))
                }
            }
            return names
        }
    }

    /// Runs an operator's command (`name`) on one plain connection that no library user scopes:
    /// the server's errors become the library's sentences, and it gives up at the retry deadline.
    static func withOperatorConnection<T: Sendable>(_ text: String, _ name: String, options: LibraryOptions, environment: [String: String],
                                                    _ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        let server = try PostgresLocation(text, environment: environment)
        let display = server.display
        var logger = Logger(label: "passconduit.library.postgresql")
        logger.logLevel = .critical
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0.1, options.retryDeadline) * 1000))
        let configuration = try connectionConfiguration(server, scope: nil)
        do {
            return try await Deadline.run(until: deadline) { [logger] in
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                do {
                    let value = try await body(PostgresTransaction(connection: connection, user: "", logger: logger))
                    try? await connection.close()
                    return value
                } catch {
                    try? await connection.close()
                    throw error
                }
            }
        } catch let error as LibraryError {
            throw error.path == nil ? LibraryError(error.kind, error.message, path: display) : error
        } catch is Deadline.Passed {
            throw LibraryError(.unavailable, "\(name): the server did not answer; gave up", path: display)
        } catch {
            let failure = PostgresFailure(error)
            if failure.sqlState == nil, failure.connectionLost || failure.code == .connectionError {
                throw LibraryError(.unavailable, "\(name): cannot reach the PostgreSQL server: \(failure.underlying.flatMap(PostgresFailure.words) ?? failure.summary)", path: display)
            }
            throw failure.libraryError(name, location: display)
        }
    }

    /// What `drop` erased.
    package struct Erased: Sendable, Equatable {
        package var passes = 0
        package var offers = 0
        package var changes = 0
    }

    /// Erases this user's library: every pass and kept version, every offer, the change log, the
    /// web-service state and registrations, and the user's row itself, in one transaction under
    /// the user's lock (a writer that comes after finds the library gone). Other users' rows are
    /// not touched (every statement names the user). The library must not be used afterwards.
    @discardableResult
    package func drop() async throws -> Erased {
        try await write("drop") { tx in
            let user = tx.user
            let counts = try await tx.rows("""
                SELECT (SELECT count(*) FROM passconduit.pass WHERE "user" = $1),
                       (SELECT count(*) FROM passconduit.offer WHERE "user" = $1),
                       (SELECT count(*) FROM passconduit.change_log WHERE "user" = $1)
                """, [user])[0]
            let (passes, offers, changes) = try counts.decode((Int, Int, Int).self)
            // Children before parents (the foreign keys): fields, log, offers, versions, passes,
            // then the blobs they all point to, the web-service tables, and the user.
            for table in ["change_field", "change_log", "offer", "pass_version", "pass", "pass_blob",
                          "web_service_state", "web_service_registration", "web_service_tag", "share_link",
                          "notice_sent", "notice", "library_user"] {
                let column = table == "library_user" ? "name" : #""user""#
                try await tx.run("DELETE FROM passconduit.\(table) WHERE \(column) = $1", [user])
            }
            return Erased(passes: passes, offers: offers, changes: changes)
        }
    }
}
