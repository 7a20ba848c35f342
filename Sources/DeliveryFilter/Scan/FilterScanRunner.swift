#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs a scan in the isolation it was given, cut at `deadlineSeconds`.
package struct FilterScanRunner: Sendable {
    package var isolation: FilterScanIsolation
    package var deadlineSeconds: Double
    /// Told the scanning child's pid when it starts and 0 when it is gone, so a process's signal
    /// handler can kill it (`passconduit filter` ends with 75 on SIGTERM and must not leave it).
    package var childChanged: @Sendable (Int32) -> Void

    package init(isolation: FilterScanIsolation, deadlineSeconds: Double,
                 childChanged: @escaping @Sendable (Int32) -> Void = { _ in }) {
        self.isolation = isolation
        self.deadlineSeconds = deadlineSeconds
        self.childChanged = childChanged
    }

    package func run(_ message: [UInt8], makeScanner: @escaping FilterScannerFactory) -> Result<[FilterPassReport], FilterError> {
        switch isolation {
        case .inline:
            return Self.scan(message, makeScanner)
        case .thread:
            return runOnThread(message, makeScanner)
        case .childProcess:
            return Self.isSingleThreaded ? runInChild(message, makeScanner) : runOnThread(message, makeScanner)
        }
    }

    private static func scan(_ message: [UInt8], _ makeScanner: FilterScannerFactory) -> Result<[FilterPassReport], FilterError> {
        do {
            return .success(try makeScanner().scan(message: message))
        } catch {
            return .failure(FilterError(.scanFailed, detail: String(describing: error)))
        }
    }

    // MARK: - Thread

    private final class Box: @unchecked Sendable {   // guarded by `lock`
        let lock = NSLock()
        var result: Result<[FilterPassReport], FilterError>? = nil
        let done = DispatchSemaphore(value: 0)
    }

    private func runOnThread(_ message: [UInt8], _ makeScanner: @escaping FilterScannerFactory) -> Result<[FilterPassReport], FilterError> {
        let box = Box()
        let thread = Thread {
            let r = Self.scan(message, makeScanner)
            box.lock.lock(); box.result = r; box.lock.unlock()
            box.done.signal()
        }
        thread.stackSize = 8 << 20   // deep but bounded recursion in parsers
        thread.start()
        if box.done.wait(timeout: .now() + deadlineSeconds) == .timedOut {
            return .failure(FilterError(.deadline, detail: "scan still running after \(deadlineSeconds) s"))
        }
        box.lock.lock(); defer { box.lock.unlock() }
        return box.result ?? .failure(FilterError(.scanFailed, detail: "scan thread ended without a result"))
    }

    // MARK: - Child process

    /// Whether this process has exactly one thread (`/proc/self/task` has one entry).
    static var isSingleThreaded: Bool {
        guard let dir = opendir("/proc/self/task") else { return false }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(2)) }
            if name.first == 0x2E { continue }   // "." and ".."
            count += 1
        }
        return count == 1
    }

    private func runInChild(_ message: [UInt8], _ makeScanner: FilterScannerFactory) -> Result<[FilterPassReport], FilterError> {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            return .failure(FilterError(.scanFailed, detail: "pipe: \(FilterSpool.describe(errno))"))
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let started = Date()
        let pid = fork()
        if pid < 0 {
            let e = errno
            close(fds[0]); close(fds[1])
            return .failure(FilterError(.scanFailed, detail: "fork: \(FilterSpool.describe(e))"))
        }
        if pid == 0 { Self.childMain(message, makeScanner, resultFD: fds[1], deadline: deadlineSeconds) }

        close(fds[1])
        childChanged(pid)
        defer { childChanged(0); close(fds[0]) }

        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var timedOut = false
        while true {
            let left = deadlineSeconds - Date().timeIntervalSince(started)
            if left <= 0 { timedOut = true; break }
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(left * 1000, 3_600_000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }    // timeout: the loop re-checks the deadline
            let n = chunk.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n > 0 {
                received += chunk[0..<n]
                if received.count > FilterReportCodec.maxEncodedBytes { break }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            break   // EOF (or an error): the child is done writing
        }
        if timedOut || received.count > FilterReportCodec.maxEncodedBytes { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if timedOut {
            return .failure(FilterError(.deadline, detail: "scan still running after \(deadlineSeconds) s; child killed"))
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Glibc does not import.
        let signal = status & 0x7F
        let exitCode = (status >> 8) & 0xFF
        guard signal == 0 else {
            return .failure(FilterError(.scanFailed, detail: "scanning child died of signal \(signal)"))
        }
        guard exitCode == 0 else {
            return .failure(FilterError(.scanFailed, detail: "scanning child exited \(exitCode)"))
        }
        return FilterReportCodec.decode(received)
            ?? .failure(FilterError(.scanFailed, detail: "scanning child sent \(received.count) malformed bytes"))
    }

    /// The child: no stdin/stdout/stderr of the host (so it can never hold the host's pipes or
    /// write into the message), default signal actions, and an alarm so it cannot outlive the
    /// filter by more than a second even if the filter itself is killed.
    private static func childMain(_ message: [UInt8], _ makeScanner: FilterScannerFactory, resultFD: Int32, deadline: Double) -> Never {
        let null = open("/dev/null", O_RDWR)
        if null >= 0 { dup2(null, 0); dup2(null, 1); dup2(null, 2); if null > 2 { close(null) } }
        resetSignalsForChild()
        alarm(UInt32(min(deadline, 3600).rounded(.up)) + 1)
        let bytes: [UInt8]
        switch scan(message, makeScanner) {
        case .success(let reports): bytes = FilterReportCodec.encode(reports)
        case .failure(let error): bytes = FilterReportCodec.encodeFailure(error.detail)
        }
        var done = 0
        while done < bytes.count {
            // baseAddress is non-nil and `done` within the buffer: the loop runs only while count > done >= 0.
            let n = bytes.withUnsafeBytes { write(resultFD, $0.baseAddress! + done, $0.count - done) }
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            _exit(70)
        }
        _exit(0)   // no atexit handlers, no stdio flush: the child shares nothing it should finish
    }

    /// Default actions for the signals a parent may catch or ignore, and nothing blocked.
    private static func resetSignalsForChild() {
        for s in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGPIPE] { signal(s, SIG_DFL) }
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
    }
}

/// Runs the scan under the filter's deadline, isolated so that neither a hang nor a crash in the
/// MIME parser, zip reader, OpenSSL or SQLite can cost the message.
package enum FilterScanIsolation: Sendable {
    /// In a forked child process: a crash or a hang kills only the child, and at the deadline the
    /// child is killed (SIGKILL), so no library work continues after the filter has decided.
    /// Used by `passconduit filter`; fork is only safe while the process has a single thread, so
    /// the runner falls back to `.thread` otherwise.
    case childProcess
    /// On a separate thread, abandoned at the deadline (its results are ignored). For in-process
    /// use (tests, other callers), where forking is not safe.
    case thread
    /// On the caller's thread, no deadline (deterministic tests of the rest of the pipeline).
    case inline
}
