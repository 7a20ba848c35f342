import Foundation
import PassStore
import PostgresNIO

/// One connection pool per server, database and role for the whole process (issue 39 item 4).
///
/// Before, every opened library kept a `PostgresClient` of its own, scoped to its user in the
/// start-up packet, with up to four connections for the library's life. `serve` keeps a library
/// open per signed-in person, so a default `max_connections` of 100 was used up by about 25
/// people at once. Now every library of the process leases from the one pool of its server,
/// and a leased connection is scoped to the library's user before its first statement
/// (`scope(_:to:)`): connections no longer grow with the number of people.
///
/// Row-level security still holds for every statement: a lease is scoped before the library's
/// work runs on it, every lease goes through `PostgresLibrary.attempt`, and the scope a
/// connection carries is remembered per connection, so only a connection last scoped to someone
/// else pays the one extra round trip.
final class PostgresPools: @unchecked Sendable {
    static let shared = PostgresPools()

    /// What makes two libraries' connections interchangeable: everything of the location but
    /// the library user.
    struct Key: Hashable {
        var endpoint: String
        var port: Int
        var role: String
        var password: String?
        var database: String
        var sslMode: String
        var sslRootCert: String?
        var connectTimeout: Int?
        var applicationName: String?

        init(_ server: PostgresLocation) {
            switch server.endpoint {
            case .socket(let folder): endpoint = "socket:" + folder
            case .tcp(let host): endpoint = "tcp:" + host
            }
            port = server.port
            role = server.role
            password = server.password
            database = server.database
            sslMode = server.sslMode.rawValue
            sslRootCert = server.sslRootCert
            connectTimeout = server.connectTimeout
            applicationName = server.applicationName
        }
    }

    /// One server's pool and the libraries using it.
    final class Pool: @unchecked Sendable {
        let key: Key
        let client: PostgresClient
        fileprivate var runTask: Task<Void, Never>?
        fileprivate var holders = 0
        private let lock = NSLock()
        /// The library user each connection of the pool was last scoped to, by connection id.
        private var scopes: [Int: String] = [:]

        fileprivate init(key: Key, client: PostgresClient) {
            self.key = key
            self.client = client
        }

        /// Scopes `connection` to `user` (`passconduit.user`, which the row-level security
        /// policies compare each row's user with) unless it is scoped to `user` already. Set for
        /// the session, outside any transaction, so no rollback undoes it; a connection that
        /// fails here is forgotten and retried by the caller like any lost connection.
        func scope(_ connection: PostgresConnection, to user: String, logger: Logger) async throws {
            let id = connection.id
            if lock.withLock({ scopes[id] }) == user { return }
            lock.withLock { _ = scopes.removeValue(forKey: id) }
            let tx = PostgresTransaction(connection: connection, user: user, logger: logger)
            try await tx.run("SELECT set_config('passconduit.user', $1, false)", [user])
            lock.withLock { scopes[id] = user }
        }

        /// Forgets a connection leaving the pool (closed after its session was lost).
        func forget(_ connection: PostgresConnection) {
            let id = connection.id
            lock.withLock { _ = scopes.removeValue(forKey: id) }
        }
    }

    /// Connections one process keeps to one server at most, whatever the number of libraries.
    static let maximumConnections = 8

    private let lock = NSLock()
    private var pools: [Key: Pool] = [:]

    /// The pool of `server`'s database and role, made on first use; each `acquire` is matched
    /// by one `release`.
    func acquire(_ server: PostgresLocation, options: LibraryOptions, logger: Logger) throws -> Pool {
        let key = Key(server)
        if let pool = acquireExisting(server) { return pool }
        var configuration = try PostgresLibrary.clientConfiguration(server, options: options, scope: nil)
        configuration.options.maximumConnections = Self.maximumConnections
        let made = Pool(key: key, client: PostgresClient(configuration: configuration, backgroundLogger: logger))
        return lock.withLock {
            if let pool = pools[key] {
                pool.holders += 1
                return pool
            }
            made.holders = 1
            made.runTask = Task { [client = made.client] in await client.run() }
            pools[key] = made
            return made
        }
    }

    /// The pool of `server`'s database and role if the process has one open (one more use of
    /// it, matched by one `release`); nil otherwise.
    func acquireExisting(_ server: PostgresLocation) -> Pool? {
        let key = Key(server)
        return lock.withLock {
            guard let pool = pools[key] else { return nil }
            pool.holders += 1
            return pool
        }
    }

    /// Gives back one use of `pool`; the last use closes its connections. The returned task
    /// ends when they are closed (nil while others still use the pool).
    @discardableResult
    func release(_ pool: Pool) -> Task<Void, Never>? {
        lock.withLock { () -> Task<Void, Never>? in
            pool.holders -= 1
            guard pool.holders == 0 else { return nil }
            if pools[pool.key] === pool { pools[pool.key] = nil }
            let task = pool.runTask
            pool.runTask = nil
            task?.cancel()
            return task
        }
    }
}
