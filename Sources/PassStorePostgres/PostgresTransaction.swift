import Foundation
import PassStore
import PostgresNIO

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
