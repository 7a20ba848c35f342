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
/// the message, the log line's head and the handler's state are one read-only mapping (mprotect,
/// checked), headed by a magic number and the lengths, so a scan that scribbles over memory can
/// neither change the bytes that are delivered nor point the handler at others: it then exits 75
/// with no output. The handlers in place before arming are restored after. SQLite's journal
/// undoes a transaction cut short.
enum FilterScanGuard {
    /// The head of the protected mapping: what the handler needs, written once at arming and then
    /// read-only with the message after it. The magic and the check (the magic mixed with every
    /// length) let the handler tell its state from memory a scan scribbled over or a pointer it
    /// bent: a mismatch exits 75 with no output (the mail host retries), never delivers garbage.
    private struct Header {
        static let magic: UInt64 = 0x7061_7373_636F_6E64   // "passcond"
        var magic: UInt64
        var mappingSize: Int
        var messageOffset: Int
        var messageCount: Int
        var logHeadOffset: Int
        var logHeadCount: Int
        /// 0 when there is no log file; else a NUL-terminated path of `logPathCount` bytes.
        var logPathOffset: Int
        var logPathCount: Int
        var failClosed: Int32
        /// The host's stdout and stderr, moved aside while the scan runs (it sees /dev/null: no
        /// library's stray output can land in the message or on stderr).
        var stdout: Int32
        var stderr: Int32
        var started: timespec
        var check: UInt64

        func computedCheck() -> UInt64 {
            var value = Self.magic
            for n in [mappingSize, messageOffset, messageCount, logHeadOffset, logHeadCount, logPathOffset, logPathCount] {
                value = (value &* 0x100_0000_01B3) ^ UInt64(bitPattern: Int64(n))
            }
            return value ^ UInt64(UInt32(bitPattern: failClosed)) ^ (UInt64(UInt32(bitPattern: stdout)) << 32) ^ UInt64(UInt32(bitPattern: stderr))
        }

        /// Whether every range lies inside the mapping and the check holds.
        var isIntact: Bool {
            guard magic == Self.magic, check == computedCheck(), mappingSize > 0 else { return false }
            func inside(_ offset: Int, _ count: Int) -> Bool {
                offset >= MemoryLayout<Header>.size && count >= 0 && offset <= mappingSize && count <= mappingSize - offset
            }
            return inside(messageOffset, messageCount) && inside(logHeadOffset, logHeadCount)
                && (logPathOffset == 0 || (inside(logPathOffset, logPathCount + 1) && logPathCount < pathScratchBytes))
        }
    }

    /// The protected mapping while armed (the only writable state the handler reads: a pointer).
    nonisolated(unsafe) private static var page: UnsafeMutableRawPointer?
    /// Writable buffers the handler builds its lines and the log path's folders in.
    nonisolated(unsafe) private static var scratch: UnsafeMutablePointer<UInt8>?
    nonisolated(unsafe) private static var pathScratch: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var altStack: UnsafeMutableRawPointer?
    /// The handlers that were in place before arming, restored at disarming.
    nonisolated(unsafe) private static var savedActions: UnsafeMutablePointer<sigaction>?
    static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]
    static var guardedSignals: [Int32] { crashSignals + [SIGALRM] }
    static let scratchBytes = 2048
    static let pathScratchBytes = 4096

    /// Runs `body` guarded. `message` is the whole message (what "unchanged" writes); `logLine`
    /// builds the log line's head for a given result (`unchanged` or `tempfail`), or nil for no log.
    static func run<T>(message: [UInt8], deadlineSeconds: Double, failClosed: Bool, logPath: String?,
                       logHead: (_ result: String) -> String, _ body: () throws -> T) rethrows -> T {
        // The head is only written to a log file (syslog and none get no line from the handler).
        guard arm(message: message, deadlineSeconds: deadlineSeconds, failClosed: failClosed, logPath: logPath,
                  logHead: logPath == nil ? "" : logHead(failClosed ? "tempfail" : "unchanged")) else {
            return try body()   // no memory for the copy, or no read-only page: scan unguarded rather than not at all
        }
        defer { disarm() }
        return try body()
    }

    private static func arm(message: [UInt8], deadlineSeconds: Double, failClosed: Bool, logPath: String?, logHead: String) -> Bool {
        let head = Array(logHead.utf8)
        let path = logPath.map { Array($0.utf8) }
        if let path, path.count >= pathScratchBytes { return false }
        // Header, log head, log path and NUL, then the message (16-byte aligned pieces).
        func aligned(_ n: Int) -> Int { (n + 15) & ~15 }
        let headOffset = aligned(MemoryLayout<Header>.size)
        let pathOffset = aligned(headOffset + head.count)
        let messageOffset = aligned(pathOffset + (path.map { $0.count + 1 } ?? 0))
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mappingSize = (messageOffset + max(message.count, 1) + page - 1) / page * page
        let mapping = mmap(nil, mappingSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapping, mapping != MAP_FAILED else { return false }
        head.withUnsafeBytes { if let base = $0.baseAddress { (mapping + headOffset).copyMemory(from: base, byteCount: $0.count) } }
        if let path {
            path.withUnsafeBytes { if let base = $0.baseAddress { (mapping + pathOffset).copyMemory(from: base, byteCount: $0.count) } }
            (mapping + pathOffset + path.count).storeBytes(of: 0, as: UInt8.self)
        }
        message.withUnsafeBytes { if let base = $0.baseAddress { (mapping + messageOffset).copyMemory(from: base, byteCount: $0.count) } }
        if scratch == nil { scratch = .allocate(capacity: scratchBytes) }
        if pathScratch == nil { pathScratch = .allocate(capacity: pathScratchBytes) }
        if savedActions == nil { savedActions = .allocate(capacity: guardedSignals.count) }
        if altStack == nil {
            let stackSize = 64 << 10
            if let stack = malloc(stackSize) {
                var ss = stack_t(ss_sp: stack, ss_flags: 0, ss_size: stackSize)
                if sigaltstack(&ss, nil) == 0 { altStack = stack } else { free(stack) }
            }
        }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let savedOut = fcntl(1, F_DUPFD_CLOEXEC, 3), savedErr = fcntl(2, F_DUPFD_CLOEXEC, 3)
        var started = timespec()
        clock_gettime(CLOCK_MONOTONIC, &started)
        var header = Header(magic: Header.magic, mappingSize: mappingSize, messageOffset: messageOffset, messageCount: message.count,
                            logHeadOffset: headOffset, logHeadCount: head.count, logPathOffset: path == nil ? 0 : pathOffset,
                            logPathCount: path?.count ?? 0, failClosed: failClosed ? 1 : 0,
                            stdout: savedOut >= 0 ? savedOut : 1, stderr: savedErr >= 0 ? savedErr : 2, started: started, check: 0)
        header.check = header.computedCheck()
        mapping.storeBytes(of: header, as: Header.self)
        // Read-only from here, or no guard at all: a writable copy would not keep its promise.
        guard mprotect(mapping, mappingSize, PROT_READ) == 0 else {
            if savedOut >= 0 { close(savedOut) }
            if savedErr >= 0 { close(savedErr) }
            if null >= 0 { close(null) }
            munmap(mapping, mappingSize)
            return false
        }
        if null >= 0 && savedOut >= 0 && savedErr >= 0 { dup2(null, 1); dup2(null, 2) }
        if null >= 0 { close(null) }
        Self.page = mapping
        for (index, s) in guardedSignals.enumerated() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = filterScanGuardHandler
            action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
            sigfillset(&action.sa_mask)
            sigaction(s, &action, savedActions! + index)
        }
        let micros = Int((min(max(deadlineSeconds, 0), 3600) * 1_000_000).rounded(.up))
        var timer = itimerval(it_interval: timeval(), it_value: timeval(tv_sec: micros / 1_000_000, tv_usec: max(micros % 1_000_000, micros == 0 ? 1 : 0)))
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &timer, nil)
        return true
    }

    private static func disarm() {
        var off = itimerval()
        setitimer(__itimer_which_t(ITIMER_REAL.rawValue), &off, nil)
        // The handlers that were there before (SIG_DFL for a plain run), not a guess at them.
        if let savedActions {
            for (index, s) in guardedSignals.enumerated() { sigaction(s, savedActions + index, nil) }
        }
        guard let mapping = page else { return }
        page = nil
        let header = mapping.load(as: Header.self)
        if header.stdout != 1 { dup2(header.stdout, 1); close(header.stdout) }
        if header.stderr != 2 { dup2(header.stderr, 2); close(header.stderr) }
        munmap(mapping, header.mappingSize)
    }

    /// For the `scribble` fault only: bends the handler's pointer to writable memory, as a scan
    /// scribbling over the process could (the handler must then refuse to deliver anything).
    static func scribbleForTests() {
        guard let scratch else { return }
        scratch.initialize(repeating: 0x5A, count: scratchBytes)
        page = UnsafeMutableRawPointer(scratch)
    }

    /// The handler's work; async-signal-safe (no allocation: the buffers were allocated at arming).
    fileprivate static func fired(_ signal: Int32) {
        guard let mapping = page, let scratch, let pathScratch else { _exit(ExitStatus75) }
        let s = mapping.load(as: Header.self)
        guard s.isIntact else { _exit(ExitStatus75) }   // not our state: deliver nothing, let the host retry
        FilterSignals.beginOutput()   // a SIGTERM now no longer cuts the message short
        var line = Scratch(scratch, capacity: scratchBytes)
        line.append(UnsafeRawBufferPointer(start: mapping + s.logHeadOffset, count: s.logHeadCount))
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
        if s.logPathOffset != 0 {
            // The path into writable scratch: the folders are made by cutting it at each "/".
            let path = pathScratch
            (mapping + s.logPathOffset).withMemoryRebound(to: CChar.self, capacity: s.logPathCount + 1) {
                path.update(from: $0, count: s.logPathCount + 1)
            }
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
            if fd >= 0 { writeAll(fd, UnsafeRawBufferPointer(start: scratch, count: line.count)); close(fd) }
        }
        if s.failClosed != 0 {
            var err = Scratch(scratch, capacity: scratchBytes)
            err.append(signal == SIGALRM ? "4.3.0 passconduit filter: deadline: scan still running at the deadline\n"
                                         : "4.3.0 passconduit filter: scan-failed: the scan crashed\n")
            writeAll(s.stderr, UnsafeRawBufferPointer(start: scratch, count: err.count))
            _exit(ExitStatus75)
        }
        _exit(writeAll(s.stdout, UnsafeRawBufferPointer(start: mapping + s.messageOffset, count: s.messageCount)) ? 0 : ExitStatus75)
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
