import Foundation
import PostgresTestKit
import XCTest
@testable import PassStore
import PassStorePostgres

/// `pg_terminate_backend` while writers run: another session ends every library session of the
/// database again and again (connections idle in the pool, inside transactions, waiting for the
/// user's lock, committing). Every operation must either commit whole or report an error, no
/// row may be half-written, the change log must hold exactly one entry per committed operation
/// with no gap in its sequence, and no operation may hang on a connection the server ended.
final class PostgresTerminateTests: XCTestCase {
    /// What one writer did: the log entries its committed operations caused.
    struct Done: Sendable {
        var entries: [Entry] = []
        var passes: [PassID: String] = [:]
        var offers: [PassID: String] = [:]
        var reported = 0
        var slowest: TimeInterval = 0
    }

    struct Entry: Hashable, Sendable {
        var kind: ChangeKind
        var id: PassID
        var sha256: String?
    }

    func testTerminatedSessionsMidRunLeaveNothingHalfWritten() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        var options = LibraryOptions()
        options.user = "alice"
        options.retryDeadline = 30
        options.busyTimeout = 5
        let library = try await PostgresLibrary.open(server.location(database: database), options: options)
        let writers = 6, ops = 24
        let terminator = Terminator(server: server, database: database)
        let started = Date()
        let done = try await withThrowingTaskGroup(of: Done.self) { group in
            for w in 0..<writers {
                group.addTask { try await Self.write(library, writer: w, ops: ops) }
            }
            var all: [Done] = []
            for try await d in group { all.append(d) }
            return all
        }
        let (terminated, rounds) = terminator.stop()
        let elapsed = Date().timeIntervalSince(started)

        let expected = done.flatMap(\.entries)
        let log = try await library.changes(after: 0, limit: 10_000)
        XCTAssertEqual(log.map(\.sequence), Array(1...Int64(max(1, log.count))), "the log's sequence has no gap and no repeat")
        XCTAssertEqual(log.count, writers * ops, "one entry per committed operation")
        XCTAssertEqual(Self.counted(log.map { Entry(kind: $0.kind, id: $0.passID, sha256: $0.sha256) }), Self.counted(expected),
                       "the log holds exactly the committed operations")
        let stored = try await library.passes()
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0.sha256) }),
                       done.reduce(into: [:]) { $0.merge($1.passes) { a, _ in a } })
        let offers = try await library.offers()
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: offers.map { ($0.passID, $0.sha256) }),
                       done.reduce(into: [:]) { $0.merge($1.offers) { a, _ in a } })
        let problems = try await library.check()
        XCTAssertEqual(problems, [])
        let slowest = done.map(\.slowest).max() ?? 0
        // A retry after a lost connection takes milliseconds; a connection that went silent would
        // cost an attempt limit (busyTimeout + 3 s) or the whole retry deadline.
        XCTAssertLessThan(slowest, 6, "an operation waited on a connection the server had ended")
        XCTAssertGreaterThan(terminated, 0, "no session was terminated: the test proved nothing")
        print("PostgreSQL, \(writers) writers x \(ops) operations, \(terminated) sessions terminated in \(rounds) rounds: "
              + "\(String(format: "%.2f", elapsed)) s, \(done.map(\.reported).reduce(0, +)) errors reported and retried, "
              + "slowest operation \(String(format: "%.2f", slowest)) s")
        await library.close()
    }

    static func counted(_ entries: [Entry]) -> [Entry: Int] {
        entries.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// One writer: add a pass, replace it, stage an offer, remove the pass added before, in turn.
    /// A failed operation is retried until it is known to have committed (as the delivery filter's
    /// mail is retried); an outcome reported unknown is looked up in the library first.
    static func write(_ library: PostgresLibrary, writer w: Int, ops: Int) async throws -> Done {
        var done = Done()
        let type = "pass.test.terminate\(w)"
        func once(_ entry: Entry, _ body: () async throws -> Void, applied: () async throws -> Bool) async throws {
            let start = Date()
            defer { done.slowest = max(done.slowest, Date().timeIntervalSince(start)) }
            while true {
                do {
                    try await body()
                    break
                } catch let error as LibraryError where error.kind == .unavailable || error.kind == .busy {
                    done.reported += 1
                    if error.description.contains("may or may not"), try await applied() { break }
                }
            }
            done.entries.append(entry)
        }
        for k in 0..<ops {
            switch k % 4 {
            case 0:
                let r = Synthetic.record(type, "\(k)", size: 3000)
                try await once(Entry(kind: .add, id: r.id, sha256: r.sha256), { try await library.add(r) },
                               applied: { try await library.contains(r) == .contained })
                done.passes[r.id] = r.sha256
            case 1:
                let r = Synthetic.record(type, "\(k - 1)", version: 2, size: 3000)
                try await once(Entry(kind: .replace, id: r.id, sha256: r.sha256), { try await library.replace(with: r) },
                               applied: { try await library.contains(r) == .contained })
                done.passes[r.id] = r.sha256
            case 2:
                let r = Synthetic.record("pass.test.offer", "w\(w)-\(k)", size: 3000)
                try await once(Entry(kind: .offer, id: r.id, sha256: r.sha256), { try await library.stageOffer(r) },
                               applied: { try await library.offers().contains { $0.passID == r.id } })
                done.offers[r.id] = r.sha256
            default:
                guard k >= 7 else {
                    // Nothing added before the first pass to remove: add one more instead.
                    let r = Synthetic.record(type, "\(k)", size: 3000)
                    try await once(Entry(kind: .add, id: r.id, sha256: r.sha256), { try await library.add(r) },
                                   applied: { try await library.contains(r) == .contained })
                    done.passes[r.id] = r.sha256
                    continue
                }
                let id = PassID(passTypeIdentifier: type, serialNumber: "\(k - 7)")
                let sha = done.passes[id]
                try await once(Entry(kind: .remove, id: id, sha256: sha), { try await library.remove(id) },
                               applied: { try await library.pass(id) == nil })
                done.passes[id] = nil
            }
        }
        return done
    }
}

/// The other session, on a thread of its own (psql runs to its end there): every session of the
/// database ended (`pg_terminate_backend`), up to 12 times, 150 ms apart, until stopped.
private final class Terminator: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var sessions = 0, rounds = 0
    private let done = DispatchSemaphore(value: 0)

    init(server: PostgresTestServer, database: String) {
        Thread.detachNewThread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.15)
                lock.lock(); let stop = stopped || rounds == 12; lock.unlock()
                if stop { break }
                let ended = (try? server.terminateSessions(of: database)) ?? 0
                lock.lock(); sessions += ended; rounds += 1; lock.unlock()
            }
            done.signal()
        }
    }

    /// Stops the rounds; how many sessions were ended in how many rounds.
    func stop() -> (sessions: Int, rounds: Int) {
        lock.lock(); stopped = true; lock.unlock()
        done.wait()
        lock.lock(); defer { lock.unlock() }
        return (sessions, rounds)
    }
}
