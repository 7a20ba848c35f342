import Foundation
import GRDB
import XCTest
@testable import PassStore

/// Waiting for other processes is bounded: past the busy timeout a write retries, and past the
/// retry deadline it fails with `busy` (a temporary failure), never with a raw "database is locked".
final class BusyTests: XCTestCase {
    /// Holds the library's write lock through a separate SQLite connection for `seconds`;
    /// the returned semaphore is signalled once it let go.
    private func holdWriteLock(_ path: String, for seconds: Double) throws -> DispatchSemaphore {
        let holder = try DatabaseQueue(path: path)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            try? holder.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                started.signal()
                usleep(UInt32(seconds * 1_000_000))
                try db.execute(sql: "COMMIT")
            }
            finished.signal()
        }
        thread.start()
        started.wait()
        return finished
    }

    func testWriteWaitsOutALockHeldLongerThanTheBusyTimeout() throws {
        // Given a library whose busy timeout (50 ms) is shorter than another writer's transaction (400 ms)
        let dir = TempDir()
        let library = try makeLibrary(dir) { $0.busyTimeout = 0.05; $0.retryDeadline = 10 }
        let released = try holdWriteLock(dir.library, for: 0.4)
        // When a pass is added meanwhile
        try library.add(Synthetic.record("1"))
        released.wait()
        // Then it waited for the lock, held when it was called, and succeeded
        XCTAssertEqual(try library.count(), 1)
    }

    func testWriteGivesUpWithBusyAfterTheRetryDeadline() throws {
        let dir = TempDir()
        let library = try makeLibrary(dir) { $0.busyTimeout = 0.05; $0.retryDeadline = 0.2 }
        let released = try holdWriteLock(dir.library, for: 3)
        assertLibraryError(.busy, try library.stageOffer(Synthetic.record("1")))
        // It gave up while the other writer still held the lock
        XCTAssertEqual(released.wait(timeout: .now()), .timedOut)
        released.wait()
        XCTAssertEqual(try library.offers(), [])
    }

    func testOpenGivesUpWithBusyWhileAnotherProcessHoldsTheOpenLock() throws {
        // Given another open file description holding the migration flock
        let dir = TempDir()
        _ = try makeLibrary(dir)
        let fd = open(dir.library + ".lock", O_RDWR)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        // When the library is opened with a short deadline, it fails busy in bounded time
        let began = Date()
        assertLibraryError(.busy, try makeLibrary(dir) { $0.retryDeadline = 0.2 })
        XCTAssertLessThan(Date().timeIntervalSince(began), 2)
        // And opens as soon as the lock is free
        flock(fd, LOCK_UN)
        XCTAssertNoThrow(try makeLibrary(dir))
    }
}
