#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import XCTest
@testable import DeliveryFilter

/// The pool against real processes: small shell workers that speak the frame protocol on fd 0
/// (or fail to).
/// The real worker (`passconduit scan-worker`) is exercised through the binary in EndToEndTests.
final class ScanWorkerPoolTests: XCTestCase {
    private let message = Array("Subject: x\n\nbody\n".utf8)

    private func pool(_ script: String, busy: @escaping @Sendable (Int32) -> Void = { _ in }) -> ScanWorkerPool {
        ScanWorkerPool(command: .init(executable: "/bin/bash", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"]),
                       busyChanged: busy)
    }

    private var soon: ContinuousClock.Instant { .now + .seconds(10) }

    /// Answers each request (`<length>:<bytes>`) with an empty report list until its socket closes.
    private let echoWorker = #"while IFS= read -r -d ":" n; do head -c "$n" >/dev/null; printf '3:R0:' >&0; done"#

    func testAWorkerAnswersAndIsReusedForTheNextMessage() {
        let pids = Mutex<[Int32]>([])
        let p = pool(echoWorker) { pid in if pid != 0 { pids.withLock { $0.append(pid) } } }
        XCTAssertEqual(try p.scan(message, deadline: soon).get(), [])
        XCTAssertEqual(try p.scan(Array(repeating: 0x61, count: 1 << 20), deadline: soon).get(), [])
        let seen = pids.withLock { $0 }
        XCTAssertEqual(seen.count, 2)
        XCTAssertEqual(seen.first, seen.last)
        p.shutdown()
        XCTAssertEqual(kill(seen[0], 0), -1, "the worker was not reaped at shutdown")
    }

    func testAWorkerThatNeverAnswersIsKilledAtTheDeadline() {
        let pids = Mutex<[Int32]>([])
        let p = pool("sleep 30") { pid in if pid != 0 { pids.withLock { $0.append(pid) } } }
        let result = p.scan(message, deadline: .now + .milliseconds(100))
        XCTAssertEqual(result.failureCode, .deadline)
        let pid = pids.withLock { $0.first } ?? 0
        XCTAssertGreaterThan(pid, 0)
        XCTAssertEqual(kill(pid, 0), -1, "the late worker still exists")
        XCTAssertEqual(errno, ESRCH)
    }

    func testAWorkerThatDiesOrAnswersNonsenseFailsTheScanAndANewOneIsStarted() {
        for script in ["exit 3", "kill -SEGV $$", "printf '5:hello' >&0; cat >/dev/null", "printf 'xyz' >&0; cat >/dev/null",
                       "printf '9:R0:' >&0" /* shorter than announced, then EOF */] {
            let p = pool(script)
            XCTAssertEqual(p.scan(message, deadline: soon).failureCode, .scanFailed, script)
            XCTAssertEqual(p.scan(message, deadline: soon).failureCode, .scanFailed, script)
        }
    }

    func testAScanErrorInTheWorkerComesBackAsAFailure() {
        let p = pool(#"IFS= read -r -d ":" n; head -c "$n" >/dev/null; printf '7:E3:why,' >&0; cat >/dev/null"#)
        guard case .failure(let error) = p.scan(message, deadline: soon) else { return XCTFail("no failure") }
        XCTAssertEqual(error.code, .scanFailed)
        XCTAssertEqual(error.detail, "why")
    }

    func testAMissingExecutableFailsTheScan() {
        let p = ScanWorkerPool(command: .init(executable: "/nonexistent/passconduit", arguments: [], environment: [:]))
        XCTAssertEqual(p.scan(message, deadline: soon).failureCode, .scanFailed)
    }
}

private extension Result where Failure == FilterError {
    var failureCode: FilterError.Code? {
        if case .failure(let e) = self { return e.code }
        return nil
    }
}
