import Conduit
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Support

/// Scans in worker processes started by exec (`passconduit scan-worker`), so a crash or a hang in
/// the MIME parser, zip reader, OpenSSL or SQLite costs only the worker, never the message — and
/// a multi-threaded front end (a milter) can use it, which fork without exec cannot.
///
/// Each worker talks over a socketpair on its fd 0: a request is one message, a reply one
/// `FilterReportCodec` record, both framed `<decimal length>:<bytes>`. A worker that answers in
/// time goes back to the pool for the next message; one that is late (`ContinuousClock`), dies or
/// answers nonsense is killed (SIGKILL) and reaped, and the scan fails (the message passes).
/// Workers hold no stdin/stdout/stderr of the host (fds 1 and 2 are /dev/null), start with default
/// signal actions, and exit when their socket closes.
package final class ScanWorkerPool: Sendable {
    /// How to start a worker: the executable, its arguments (after argv[0]) and its environment.
    package struct Command: Sendable, Equatable {
        package var executable: String
        package var arguments: [String]
        package var environment: [String: String]
        /// argv[0] when it is not `executable` (a daemon that execs itself through
        /// `/proc/self/fd/N` still shows its own name in ps).
        package var argv0: String?

        package init(executable: String, arguments: [String], environment: [String: String], argv0: String? = nil) {
            self.executable = executable
            self.arguments = arguments
            self.environment = environment
            self.argv0 = argv0
        }
    }

    package let command: Command
    /// Idle workers kept for the next message; more may run at once (one per concurrent scan).
    package let maxIdle: Int
    /// Told a worker's pid when a scan starts on it and 0 when the scan is over, so a process's
    /// signal handler can kill it (`passconduit filter` ends with 75 on SIGTERM and must not leave it).
    package let busyChanged: @Sendable (Int32) -> Void
    /// Told each time a worker is killed (crashed, late, or broken): the next scan starts a new one.
    package let workerKilled: @Sendable () -> Void

    private struct Worker: Sendable {
        var pid: pid_t
        var socket: Int32
    }
    private let idle = Mutex<[Worker]>([])
    /// Workers in the middle of an exchange (not yet killed, retired or reaped: a pid here is
    /// still this pool's child, a zombie at worst, so `killBusy` cannot hit another process).
    private let busy = Mutex<Set<pid_t>>([])

    package init(command: Command, maxIdle: Int = 1, busyChanged: @escaping @Sendable (Int32) -> Void = { _ in },
                 workerKilled: @escaping @Sendable () -> Void = {}) {
        self.command = command
        self.maxIdle = maxIdle
        self.busyChanged = busyChanged
        self.workerKilled = workerKilled
    }

    deinit { shutdown() }

    /// Scans `message` in a worker, or fails at `deadline`.
    package func scan(_ message: [UInt8], deadline: ContinuousClock.Instant) -> Result<[FilterPassReport], FilterError> {
        scanNoted(message, deadline: deadline).map { $0.reports }
    }

    /// `scan`, with the worker's entry per library (the milter's log line).
    package func scanNoted(_ message: [UInt8], deadline: ContinuousClock.Instant)
        -> Result<(reports: [FilterPassReport], libraries: [FilterLibraryNote]), FilterError> {
        let worker: Worker
        if let reused = idle.withLock({ $0.popLast() }) {
            worker = reused
        } else {
            switch Self.spawn(command) {
            case .success(let started): worker = started
            case .failure(let error): return .failure(error)
            }
        }
        busyChanged(worker.pid)
        defer { busyChanged(0) }
        busy.withLock { _ = $0.insert(worker.pid) }
        let outcome = Self.exchange(worker.socket, request: message, deadline: deadline)
        busy.withLock { _ = $0.remove(worker.pid) }
        switch outcome {
        case .reply(let bytes):
            if let result = FilterReportCodec.decodeNoted(bytes) {
                let kept = idle.withLock { workers -> Bool in
                    guard workers.count < maxIdle else { return false }
                    workers.append(worker)
                    return true
                }
                if !kept { Self.retire(worker) }
                return result
            }
            Self.kill(worker)
            workerKilled()
            return .failure(FilterError(.scanFailed, detail: "scan worker sent \(bytes.count) malformed bytes"))
        case .late:
            Self.kill(worker)
            workerKilled()
            return .failure(FilterError(.deadline, detail: "scan still running at the deadline; worker killed"))
        case .broken(let why):
            let status = Self.kill(worker)
            workerKilled()
            return .failure(FilterError(.scanFailed, detail: "scan worker \(why)\(status.map { ", \($0)" } ?? "")"))
        }
    }

    /// Kills the workers that are scanning (SIGKILL): their scans fail at once instead of at
    /// their deadline (a daemon that stops after answering those messages without a scan).
    package func killBusy() {
        busy.withLock { pids in
            for pid in pids { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Closes the idle workers' sockets (they exit) and reaps them.
    package func shutdown() {
        for worker in idle.withLock({ w -> [Worker] in defer { w.removeAll() }; return w }) { Self.retire(worker) }
    }

    // MARK: - The worker's side

    /// Serves requests on `fd` until it closes: each message through `scan`, each result back as
    /// a reply. `alarmSeconds` bounds each scan by SIGALRM (default action: the worker dies), so a
    /// worker cannot outlive a host that was itself killed by more than that. Returns nil at a
    /// clean end of input, else why serving stopped (the command line makes it the exit status).
    package static func serve(fd: Int32, maxMessageBytes: Int, alarmSeconds: Double,
                              scan: ([UInt8]) -> Result<[FilterPassReport], FilterError>) -> Problem? {
        serve(fd: fd, maxMessageBytes: maxMessageBytes, alarmSeconds: alarmSeconds, scanNoted: { message in
            scan(message).map { (reports: $0, libraries: [FilterLibraryNote]()) }
        })
    }

    /// `serve` for a scan that also says what happened in each library.
    package static func serve(fd: Int32, maxMessageBytes: Int, alarmSeconds: Double,
                              scanNoted scan: ([UInt8]) -> Result<(reports: [FilterPassReport], libraries: [FilterLibraryNote]), FilterError>) -> Problem? {
        while true {
            guard let request = readFrame(fd, maxBytes: maxMessageBytes) else { return nil }
            guard case .some(let message) = request else {
                return Problem(.badData, message: "The scan request is malformed or larger than the limit.")
            }
            alarm(UInt32(min(max(alarmSeconds, 0), 3600).rounded(.up)) + 1)
            let reply: [UInt8]
            switch scan(message) {
            case .success(let outcome): reply = FilterReportCodec.encode(outcome.reports, libraries: outcome.libraries)
            case .failure(let error): reply = FilterReportCodec.encodeFailure(error)
            }
            alarm(0)
            guard writeFrame(fd, reply) else {   // the host went away
                return Problem(.outputFailed, message: "The reply could not be written to the milter.")
            }
        }
    }

    /// nil at a clean end of input (no bytes); `.some(nil)` on a malformed or oversized frame.
    private static func readFrame(_ fd: Int32, maxBytes: Int) -> [UInt8]?? {
        var length = 0
        var digits = 0
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return digits == 0 ? nil : .some(nil) }
            if byte == 0x3A, digits > 0 { break }
            guard byte >= 0x30, byte <= 0x39, digits < 12 else { return .some(nil) }
            length = length * 10 + Int(byte - 0x30)   // at most 12 digits: no overflow
            digits += 1
        }
        guard length <= maxBytes else { return .some(nil) }
        var message = [UInt8](repeating: 0, count: length)
        guard case .success(length) = message.withUnsafeMutableBytes({ FileDescriptorIO.readFully(fd, into: $0) }) else {
            return .some(nil)   // the input ended (or failed) inside the frame
        }
        return .some(message)
    }

    private static func writeFrame(_ fd: Int32, _ body: [UInt8]) -> Bool {
        FileDescriptorIO.writeAll(fd, Array("\(body.count):".utf8) + body, .sendNoSignal) == nil
    }

    // MARK: - The host's side

    private enum Outcome {
        case reply([UInt8])
        case late
        case broken(String)
    }

    /// Sends the request and reads the reply on the non-blocking `socket`, both under `deadline`.
    private static func exchange(_ socket: Int32, request: [UInt8], deadline: ContinuousClock.Instant) -> Outcome {
        let out = Array("\(request.count):".utf8) + request
        var sent = 0
        var received: [UInt8] = []
        var expected: Int? = nil
        // Not zeroed first: recv writes what is read, and only that much is used.
        var chunk = [UInt8](unsafeUninitializedCapacity: 64 << 10) { _, count in count = 64 << 10 }
        while true {
            let left = deadline - .now
            if left <= .zero { return .late }
            let wantsOut = sent < out.count
            var p = pollfd(fd: socket, events: Int16(wantsOut ? POLLOUT : POLLIN), revents: 0)
            let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
            let ready = poll(&p, 1, Int32(min(ms, 3_600_000)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }   // timeout: the loop re-checks the deadline
            if wantsOut {
                // baseAddress is non-nil and `sent` within the buffer: count > sent >= 0.
                let n = out.withUnsafeBytes { send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                if n > 0 { sent += n; continue }
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                return .broken("stopped reading (\(describe(n < 0 ? errno : EIO)))")
            }
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { return .broken(n == 0 ? "closed its socket" : "read failed (\(describe(errno)))") }
            received += chunk[0..<n]
            if expected == nil, let colon = received.firstIndex(of: 0x3A) {
                guard colon > 0, colon <= 9, received[..<colon].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let length = Int(String(decoding: received[..<colon], as: UTF8.self)),
                      length <= Limits.default.filterReportBytes else { return .broken("sent a malformed reply") }
                expected = length
                received.removeSubrange(...colon)
            } else if expected == nil && (received.count > 9 || !received.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })) {
                return .broken("sent a malformed reply")
            }
            if let expected {
                if received.count == expected { return .reply(received) }
                if received.count > expected { return .broken("sent more than it announced") }
            }
        }
    }

    private static let descriptorPrefix = "/proc/self/fd/"

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later; Debian 12 has 2.36),
    /// which Swift's Glibc module does not declare (a GNU extension, behind _GNU_SOURCE): looked
    /// up once by name (RTLD_DEFAULT is the null handle).
    nonisolated(unsafe) private static let addCloseFrom: AddCloseFrom? =
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: AddCloseFrom.self) }

    private static func spawn(_ command: Command) -> Result<Worker, FilterError> {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            return .failure(FilterError(.scanFailed, detail: "socketpair: \(describe(errno))"))
        }
        let (host, child) = (pair[0], pair[1])
        defer { close(child) }
        _ = fcntl(host, F_SETFL, fcntl(host, F_GETFL) | O_NONBLOCK)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, child, 0)   // dup2 clears close-on-exec on fd 0 only
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of the host reaches the worker. SwiftNIO accepts connections without
        // close-on-exec, so without this every worker held every MTA session open when it was
        // started (a session the daemon closed stayed open while a hanging worker lived). An
        // executable given as /proc/self/fd/N (the daemon's kept-open binary) moves to fd 3,
        // which stays open until exec; everything from there up is closed.
        var executable = command.executable
        if executable.hasPrefix(Self.descriptorPrefix), let fd = Int32(executable.dropFirst(Self.descriptorPrefix.count)), fd > 2 {
            posix_spawn_file_actions_adddup2(&actions, fd, 3)
            _ = Self.addCloseFrom?(&actions, 4)
            executable = Self.descriptorPrefix + "3"
        } else {
            _ = Self.addCloseFrom?(&actions, 3)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([command.argv0 ?? command.executable] + command.arguments).map { strdup($0) } + [nil]
        let envp = command.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            close(host)
            return .failure(FilterError(.scanFailed, detail: "cannot start scan worker \(command.executable): \(describe(rc))"))
        }
        return .success(Worker(pid: pid, socket: host))
    }

    /// Kills and reaps `worker`; says how it had ended if it had ended by itself.
    @discardableResult
    private static func kill(_ worker: Worker) -> String? {
        close(worker.socket)
        var status: Int32 = 0
        // Already gone (a crash): its status says how; otherwise it is killed now.
        var reaped = waitpid(worker.pid, &status, WNOHANG)
        let endedByItself = reaped == worker.pid
        if !endedByItself {
            Glibc.kill(worker.pid, SIGKILL)
            repeat { reaped = waitpid(worker.pid, &status, 0) } while reaped < 0 && errno == EINTR
            return nil
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Glibc does not import.
        let signal = status & 0x7F
        return signal != 0 ? "died of signal \(signal)" : "exited \((status >> 8) & 0xFF)"
    }

    /// Closes an idle worker's socket, so it exits, and reaps it.
    private static func retire(_ worker: Worker) {
        close(worker.socket)
        var status: Int32 = 0
        while waitpid(worker.pid, &status, 0) < 0 && errno == EINTR {}
    }

    private static func describe(_ code: Int32) -> String {
        FilterSpool.describe(code)
    }
}
