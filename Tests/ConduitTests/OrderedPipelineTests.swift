import Foundation
import XCTest
@testable import Conduit

/// The worker pipeline behind `scan` on several cores (issue 17): results in input order whatever
/// finishes first, no batch barrier (a slow item does not stop the other worker), and a bounded
/// window of items and bytes in flight.
final class OrderedPipelineTests: XCTestCase {
    /// Counters shared by the test's closures on several threads.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var processed = Set<Int>()
        private var bytesOut = 0
        func done(_ i: Int, bytes: Int) { lock.lock(); processed.insert(i); bytesOut += bytes; lock.unlock() }
        func isDone(_ i: Int) -> Bool { lock.lock(); defer { lock.unlock() }; return processed.contains(i) }
        var processedBytes: Int { lock.lock(); defer { lock.unlock() }; return bytesOut }
    }

    func testResultsAreReportedInInputOrderWhateverFinishesFirst() {
        for workers in [1, 2, 3] {
            var taken = 0
            var reported: [Int] = []
            OrderedPipeline.run(
                workers: workers, window: 32, windowBytes: 1 << 20,
                next: { () -> (item: Int, bytes: Int)? in
                    guard taken < 400 else { return nil }
                    taken += 1
                    return (taken - 1, 100)
                },
                process: { (i: Int) -> Int in
                    // Early items of each stretch of 10 are the slowest: later ones finish first.
                    usleep(UInt32((10 - i % 10) * 50))
                    return i * 3
                },
                report: { reported.append($0) })
            XCTAssertEqual(reported, (0..<400).map { $0 * 3 }, "workers: \(workers)")
        }
    }

    /// Item 0 finishes only once item 100 has been processed: a pipeline that waits for a whole
    /// batch (64 items) before starting the next could never get there and would run into the
    /// timeout; a window of 256 lets the second worker go on.
    func testASlowItemDoesNotStopTheOtherWorker() {
        let shared = Shared()
        var taken = 0
        var reported: [Int] = []
        let waitedTooLong = Shared()
        OrderedPipeline.run(
            workers: 2, window: 256, windowBytes: 1 << 20,
            next: { () -> (item: Int, bytes: Int)? in
                guard taken < 200 else { return nil }
                taken += 1
                return (taken - 1, 10)
            },
            process: { (i: Int) -> Int in
                if i == 0 {
                    let deadline = Date().addingTimeInterval(30)
                    while !shared.isDone(100) {
                        if Date() > deadline { waitedTooLong.done(0, bytes: 0); break }
                        usleep(1000)
                    }
                }
                shared.done(i, bytes: 10)
                return i
            },
            report: { reported.append($0) })
        XCTAssertFalse(waitedTooLong.isDone(0), "item 100 was not processed while item 0 was in progress")
        XCTAssertEqual(reported, Array(0..<200))
    }

    /// While every worker is stuck, the calling thread takes items only until the window is full:
    /// never more than `window` items taken and not reported, never a new item while
    /// `windowBytes` or more are held unprocessed. Items wait until exactly that many are taken.
    func testTheWindowBoundsItemsAndBytesInFlight() {
        for (window, windowBytes, itemBytes) in [(16, 1 << 20, 1000), (256, 50_000, 1000), (64, 10_000, 4000)] {
            let fill = min(window, (windowBytes + itemBytes - 1) / itemBytes)
            let shared = Shared()
            let waitedTooLong = Shared()
            var taken = 0
            var reported = 0
            var worstItems = 0
            var worstBytes = 0
            OrderedPipeline.run(
                workers: 2, window: window, windowBytes: windowBytes,
                next: { () -> (item: Int, bytes: Int)? in
                    guard taken < 1000 else { return nil }
                    worstItems = max(worstItems, taken - reported + 1)
                    worstBytes = max(worstBytes, taken * itemBytes - shared.processedBytes)
                    taken += 1
                    shared.done(-taken, bytes: 0)  // "taken items" as negative numbers
                    return (taken - 1, itemBytes)
                },
                process: { (i: Int) -> Int in
                    // Nothing finishes before the calling thread has filled the window.
                    let deadline = Date().addingTimeInterval(30)
                    while !shared.isDone(-fill) {
                        if Date() > deadline { waitedTooLong.done(0, bytes: 0); break }
                        usleep(1000)
                    }
                    shared.done(i, bytes: itemBytes)
                    return i
                },
                report: { _ in reported += 1 })
            XCTAssertEqual(reported, 1000)
            XCTAssertFalse(waitedTooLong.isDone(0), "the window \(window)/\(windowBytes) never took \(fill) items")
            XCTAssertLessThanOrEqual(worstItems, window, "items in flight, window \(window)/\(windowBytes)")
            // A new item is taken only while less than windowBytes is held.
            XCTAssertLessThan(worstBytes, windowBytes, "bytes held when an item was taken, window \(windowBytes)")
        }
    }

    /// The workers run at the calling thread's priority: `nice passconduit scan` niced only the
    /// calling thread while Dispatch's default-QoS thread went back to nice 0. Run on a thread of
    /// its own (Linux: nice is per thread, and an unprivileged one cannot lower it again).
    func testWorkersKeepTheCallingThreadsNiceValue() throws {
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var values: [pthread_t: Set<Int32>] = [:]   // thread -> nice values seen
            var caller: Int32 = 0
        }
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            errno = 0
            let base = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, base + 3)
            seen.caller = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
            var taken = 0
            OrderedPipeline.run(
                workers: 3, window: 64, windowBytes: 1 << 20,
                next: { () -> (item: Int, bytes: Int)? in
                    guard taken < 300 else { return nil }
                    taken += 1
                    return (taken, 1)
                },
                process: { (i: Int) -> Int in
                    let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                    let tid = pthread_self()
                    seen.lock.lock(); seen.values[tid, default: []].insert(nice); seen.lock.unlock()
                    usleep(200)
                    return i
                },
                report: { _ in })
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertGreaterThan(seen.values.count, 1, "more than one thread scanned")
        XCTAssertEqual(Set(seen.values.values.flatMap { $0 }), [seen.caller], "nice values by thread: \(seen.values)")
    }
}
