import Foundation
import PassStore
import PassStorePostgres
import PostgresNIO

/// The PostgreSQL yardsticks beside the library's own times: the bare round trip (`SELECT 1`)
/// on the library's own `PostgresClient`, and what issuing many requests at once buys over one
/// after another. postgres-nio sends one query at a time on a connection (the next waits in its
/// queue for ReadyForQuery), so "at once" overlaps work only across the pool's connections
/// (`maximumConnections`, 4) and saves the caller's turn-around between queries on one.
enum RoundTrips {
    static func run(_ pg: PostgresLibrary, samples: Int, probes: [PassRecord]) async throws {
        let client = pg.client, logger = pg.logger

        // 1. One leased connection, one query after another: the bare round trip.
        let bare = try await client.withConnection { connection in
            var times: [Duration] = []
            for _ in 0..<samples {
                let start = ContinuousClock.now
                try await selectOne(connection, logger)
                times.append(ContinuousClock.now - start)
            }
            return times
        }
        line("SELECT 1, one connection, sequential", bare)

        // 2. Through the pool, one after another: a lease per query, as the library does.
        var pooled: [Duration] = []
        for _ in 0..<samples {
            let start = ContinuousClock.now
            try await drain(client.query("SELECT 1", logger: logger))
            pooled.append(ContinuousClock.now - start)
        }
        line("SELECT 1, pool lease per query, sequential", pooled)

        // 3. All at once on that one connection: queued by postgres-nio, one on the wire at a time.
        let oneAtOnce = try await client.withConnection { connection in
            try await wall(samples) { try await selectOne(connection, logger) }
        }
        // 4. All at once through the pool: up to maximumConnections in flight.
        let poolAtOnce = try await wall(samples) { try await drain(client.query("SELECT 1", logger: logger)) }
        let sequentialTotal = bare.reduce(Duration.zero, +)
        print("SELECT 1 x \(samples): sequential \(Bench.fmt(sequentialTotal)) (\(Bench.fmt(sequentialTotal / samples)) each); "
              + "at once on one connection \(Bench.fmt(oneAtOnce)) (\(Bench.fmt(oneAtOnce / samples)) each); "
              + "at once through the pool \(Bench.fmt(poolAtOnce)) (\(Bench.fmt(poolAtOnce / samples)) each)")

        // 5. The library's contains: one after another, then all at once (the pool's connections in parallel).
        let seqStart = ContinuousClock.now
        for probe in probes { _ = try await pg.contains(probe) }
        let sequential = ContinuousClock.now - seqStart
        let atOnce = try await wall(probes.count) { i in _ = try await pg.contains(probes[i]) }
        print("contains x \(probes.count): sequential \(Bench.fmt(sequential)) (\(Bench.fmt(sequential / probes.count)) each); "
              + "all issued at once \(Bench.fmt(atOnce)) (\(Bench.fmt(atOnce / probes.count)) each); "
              + String(format: "%.2fx the throughput", seconds(sequential) / seconds(atOnce)))
        print("summary_pg rtt_median=\(Bench.ms(Bench.percentile(bare, 0.5))) rtt_p99=\(Bench.ms(Bench.percentile(bare, 0.99))) "
              + "pooled_rtt_median=\(Bench.ms(Bench.percentile(pooled, 0.5))) "
              + "contains_seq_each=\(Bench.ms(sequential / probes.count)) contains_at_once_each=\(Bench.ms(atOnce / probes.count))")
    }

    static func selectOne(_ connection: PostgresConnection, _ logger: Logger) async throws {
        try await drain(connection.query("SELECT 1", logger: logger))
    }

    static func drain(_ rows: PostgresRowSequence) async throws {
        for try await _ in rows {}
    }

    /// Wall time of `count` calls of `body` all started at once.
    static func wall(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Duration {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count { group.addTask { try await body(i) } }
            try await group.waitForAll()
        }
        return ContinuousClock.now - start
    }

    static func wall(_ count: Int, _ body: @escaping @Sendable () async throws -> Void) async throws -> Duration {
        try await wall(count) { (_: Int) in try await body() }
    }

    static func line(_ name: String, _ times: [Duration]) {
        print("\(name): n=\(times.count) median \(Bench.fmt(Bench.percentile(times, 0.5))) p90 \(Bench.fmt(Bench.percentile(times, 0.9))) p99 \(Bench.fmt(Bench.percentile(times, 0.99)))")
    }

    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }
}
