#if canImport(Glibc)
import Glibc
#endif

/// The filter scans in its own process (a second process start cost more than the whole scan),
/// and keeps the promise the scan worker kept: a crash or a hang in the MIME parser, zip reader,
/// OpenSSL or SQLite costs the scan, never the message.
///
/// While armed, a crash signal (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS; a
/// Swift trap is one of these) or the deadline (an interval timer, SIGALRM) ends the process from
/// the signal handler: the message unchanged on stdout and exit 0 — or with `--fail-closed` the
/// `4.3.0` line on stderr and exit 75 — and the log line, as the worker's failure would have had
/// it. The handler runs on its own stack (a stack overflow is a crash too) and only calls
/// write(2), open(2), poll(2), clock_gettime(2) and _exit(2) on buffers prepared before arming:
/// the message is a read-only copy (mprotect), so a scan that scribbles over memory cannot change
/// the bytes that are delivered. SQLite's journal undoes a transaction cut short.
enum FilterScanGuard {
    private struct State {
        var message: UnsafeRawBufferPointer
        var mapping: UnsafeMutableRawPointer
        var mappingSize: Int
        var failClosed: Bool
        var logPath: UnsafeMutablePointer<CChar>?
        /// Everything of the log line before the error: timestamp, pid, result, bytes.
        var logHead: UnsafeMutableRawBufferPointer
        var started: timespec
        var scratch: UnsafeMutablePointer<UInt8>
        /// The host's stdout and stderr, moved aside while the scan runs (it sees /dev/null: no
        /// library's stray output can land in the message or on stderr).
        var stdout: Int32
        var stderr: Int32
    }

    nonisolated(unsafe) private static var state: State?
    nonisolated(unsafe) private static var altStack: UnsafeMutableRawPointer?
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]
    static let scratchBytes = 2048

    /// Runs `body` guarded. `message` is the whole message (what "unchanged" writes); `logLine`
    /// builds the log line's head for a given result (`unchanged` or `tempfail`), or nil for no log.
    static func run<T>(message: [UInt8], deadlineSeconds: Double, failClosed: Bool, logPath: String?,
                       logHead: (_ result: String) -> String, _ body: () throws -> T) rethrows -> T {
        // The head is only written to a log file (syslog and none get no line from the handler).
        guard arm(message: message, deadlineSeconds: deadlineSeconds, failClosed: failClosed, logPath: logPath,
                  logHead: logPath == nil ? "" : logHead(failClosed ? "tempfail" : "unchanged")) else {
            return try body()   // no memory for the copy: scan unguarded rather than not at all
        }
        defer { disarm() }
        return try body()
    }

    private static func arm(message: [UInt8], deadlineSeconds: Double, failClosed: Bool, logPath: String?, logHead: String) -> Bool {
        let size = max(message.count, 1)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mappingSize = (size + page - 1) / page * page
        let mapping = mmap(nil, mappingSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapping, mapping != MAP_FAILED else { return false }
        message.withUnsafeBytes { if let base = $0.baseAddress { mapping.copyMemory(from: base, byteCount: $0.count) } }
        _ = mprotect(mapping, mappingSize, PROT_READ)
        if altStack == nil {
            let stackSize = 64 << 10
            if let stack = malloc(stackSize) {
                var ss = stack_t(ss_sp: stack, ss_flags: 0, ss_size: stackSize)
                if sigaltstack(&ss, nil) == 0 { altStack = stack } else { free(stack) }
            }
        }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let savedOut = fcntl(1, F_DUPFD_CLOEXEC, 3), savedErr = fcntl(2, F_DUPFD_CLOEXEC, 3)
        if null >= 0 && savedOut >= 0 && savedErr >= 0 { dup2(null, 1); dup2(null, 2) }
        if null >= 0 { close(null) }
        var started = timespec()
        clock_gettime(CLOCK_MONOTONIC, &started)
        state = State(message: UnsafeRawBufferPointer(start: mapping, count: message.count), mapping: mapping, mappingSize: mappingSize,
                      failClosed: failClosed, logPath: logPath.map { strdup($0) }, logHead: copy(Array(logHead.utf8)), started: started,
                      scratch: .allocate(capacity: scratchBytes), stdout: savedOut >= 0 ? savedOut : 1, stderr: savedErr >= 0 ? savedErr : 2)
        for s in crashSignals + [SIGALRM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = filterScanGuardHandler
            action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
            sigfillset(&action.sa_mask)
            sigaction(s, &action, nil)
        }
        let micros = Int((min(max(deadlineSeconds, 0), 3600) * 1_000_000).rounded(.up))
        var timer = itimerval(it_interval: timeval(), it_value: timeval(tv_sec: micros / 1_000_000, tv_usec: max(micros % 1_000_000, micros == 0 ? 1 : 0)))
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
        return true
    }

    private static func disarm() {
        var off = itimerval()
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &off, nil)
        signal(SIGALRM, SIG_IGN)
        for s in crashSignals { signal(s, SIG_DFL) }
        guard let s = state else { return }
        state = nil
        if s.stdout != 1 { dup2(s.stdout, 1); close(s.stdout) }
        if s.stderr != 2 { dup2(s.stderr, 2); close(s.stderr) }
        munmap(s.mapping, s.mappingSize)
        free(s.logPath)
        s.logHead.deallocate()
        s.scratch.deallocate()
    }

    private static func copy(_ bytes: [UInt8]) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        buffer.copyBytes(from: bytes)
        return buffer
    }

    /// The handler's work; async-signal-safe (no allocation: the scratch buffer was allocated at arming).
    fileprivate static func fired(_ signal: Int32) {
        guard let s = state else { _exit(ExitStatus75) }
        FilterSignals.beginOutput()   // a SIGTERM now no longer cuts the message short
        var line = Scratch(s.scratch, capacity: scratchBytes)
        line.append(UnsafeRawBufferPointer(s.logHead))
        if signal == SIGALRM {
            line.append(" error=deadline detail=\"scan still running at the deadline; scan abandoned\"")
        } else {
            line.append(" error=scan-failed detail=\"the scan crashed (signal ")
            line.append(number: Int(signal))
            line.append(")\"")
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let tenths = max(0, (Int(now.tv_sec) - Int(s.started.tv_sec)) * 10_000 + (Int(now.tv_nsec) - Int(s.started.tv_nsec)) / 100_000)
        line.append(" ms=")
        line.append(number: tenths / 10)
        line.append(".")
        line.append(number: tenths % 10)
        line.append("\n")
        if let path = s.logPath {
            let flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
            var fd = open(path, flags, 0o600)
            if fd < 0 && errno == ENOENT {
                // The first message ever: make the folders (0700) as FilterLog does, then retry.
                var i = 1
                while path[i] != 0 {
                    if path[i] == 0x2F { path[i] = 0; _ = mkdir(path, 0o700); path[i] = 0x2F }
                    i += 1
                }
                fd = open(path, flags, 0o600)
            }
            if fd >= 0 { writeAll(fd, UnsafeRawBufferPointer(start: s.scratch, count: line.count)); close(fd) }
        }
        if s.failClosed {
            var err = Scratch(s.scratch, capacity: scratchBytes)
            err.append(signal == SIGALRM ? "4.3.0 passconduit filter: deadline: scan still running at the deadline\n"
                                         : "4.3.0 passconduit filter: scan-failed: the scan crashed\n")
            writeAll(s.stderr, UnsafeRawBufferPointer(start: s.scratch, count: err.count))
            _exit(ExitStatus75)
        }
        _exit(writeAll(s.stdout, s.message) ? 0 : ExitStatus75)
    }

    private static let ExitStatus75: Int32 = 75

    /// write(2) all of `bytes`, waiting when `fd` is non-blocking and full.
    @discardableResult
    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let n = write(fd, base + done, bytes.count - done)
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 1000)
                continue
            }
            return false
        }
        return true
    }

    /// Appends to a fixed buffer without allocating (StaticString and digits only).
    private struct Scratch {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0
        init(_ base: UnsafeMutablePointer<UInt8>, capacity: Int) { self.base = base; self.capacity = capacity }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            for b in bytes where count < capacity { base[count] = b; count += 1 }
        }
        mutating func append(_ text: StaticString) {
            append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        mutating func append(number: Int) {
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var n = max(number, 0), k = 0
            withUnsafeMutableBytes(of: &digits) { d in
                repeat { d[k] = UInt8(48 + n % 10); n /= 10; k += 1 } while n > 0 && k < 20
                while k > 0 && count < capacity { k -= 1; base[count] = d[k]; count += 1 }
            }
        }
    }
}

private func filterScanGuardHandler(_ signal: Int32) {
    FilterScanGuard.fired(signal)
}
