#if canImport(Glibc)
import Glibc
#endif
import DeliveryFilter
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The daemon: accepts MTA connections (one `MilterHandler` each, up to `maxSessions`), runs the
/// scans on a few threads of their own, logs one line per message, reloads its settings on
/// request, and stops gently: no new sessions, idle ones closed, busy ones closed after the
/// message they are handling.
package final class MilterServer: Sendable {
    private let state: NIOLockedValueBox<State>
    let group: MultiThreadedEventLoopGroup
    let scanPool: NIOThreadPool
    private let stopped: EventLoopPromise<Void>
    /// The counters `--metrics` serves (kept whether or not they are served: a few increments).
    package let metrics: MilterMetrics

    private struct State {
        var settings: MilterSettings
        /// The scan workers for `settings`; replaced on reload (the old pool's workers end when
        /// their last scan does and the pool is released).
        var workers: ScanWorkerPool
        var log: FilterLog
        var listener: Channel?
        var metricsListener: Channel?
        var sessions: [Int: Channel] = [:]
        var nextID = 1
        var draining = false
        var boundAddress: SocketAddress?
        var address: MilterAddress?
    }

    /// Where the daemon listens (nil before `start`).
    var listeningAddress: MilterAddress? { state.withLockedValue { $0.address } }

    package init(settings: MilterSettings, eventLoopThreads: Int = 1) {
        let log = Self.log(for: settings)
        let metrics = MilterMetrics()
        self.metrics = metrics
        state = NIOLockedValueBox(State(settings: settings, workers: Self.workers(for: settings, metrics: metrics), log: log))
        group = MultiThreadedEventLoopGroup(numberOfThreads: eventLoopThreads)
        scanPool = NIOThreadPool(numberOfThreads: max(1, settings.scanThreads))
        scanPool.start()
        stopped = group.next().makePromise()
    }

    package var settings: MilterSettings { state.withLockedValue { $0.settings } }

    /// The daemon's log: `milter.log` in the state folder, or syslog, or none. Syslog without a
    /// daemon on its socket would lose every line in silence: the lines go to standard error
    /// instead (the journal, under systemd), and the daemon says so there once.
    package static func log(for settings: MilterSettings) -> FilterLog {
        var log = FilterLog(destination: settings.filter.log, environment: settings.environment)
        log.path = FilterEnvironment.stateDirectory(settings.environment).map { $0 + "/milter.log" }
        log.verbose = settings.filter.verbose
        if settings.filter.log == .syslog, let problem = FilterLog.syslogProblem(environment: settings.environment) {
            log.syslogToStandardError = true
            let first = syslogWarned.withLockedValue { warned in
                defer { warned = true }
                return !warned
            }
            if first {
                let text = "passconduit milter: --log syslog: \(problem); the log lines go to standard error instead\n"
                let bytes = Array(text.utf8)
                _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            }
        }
        return log
    }

    /// Whether the missing syslog socket was already told on standard error (once per process).
    private static let syslogWarned = NIOLockedValueBox(false)

    /// The settings and the scan workers a message's scan uses, taken together.
    var current: (settings: MilterSettings, workers: ScanWorkerPool) {
        state.withLockedValue { ($0.settings, $0.workers) }
    }

    private static func workers(for settings: MilterSettings, metrics: MilterMetrics) -> ScanWorkerPool {
        ScanWorkerPool(command: settings.worker, maxIdle: max(1, settings.scanThreads), workerKilled: { metrics.workerKilled() })
    }

    /// Serves the metrics on `host`:`port` (`--metrics`) on the daemon's event loops.
    package func serveMetrics(host: String, port: Int) throws {
        let channel = try metrics.serve(host: host, port: port, group: group)
        state.withLockedValue { $0.metricsListener = channel }
        log("metrics on http://\(host.contains(":") ? "[\(host)]" : host):\(channel.localAddress?.port ?? port)/metrics")
    }

    /// New settings for the next messages (SIGHUP). Sessions keep their negotiated limits.
    /// A reload whose scan worker cannot start (or answer a message without a pass) is refused:
    /// the old settings and workers stay, and the log says why.
    @discardableResult
    package func reload(_ settings: MilterSettings) -> Bool {
        let workers = Self.workers(for: settings, metrics: metrics)
        let probe = MilterScanRequest.encode(libraries: [], message: Array("Subject: passconduit reload probe\r\n\r\nprobe\r\n".utf8))
        if case .failure(let problem) = workers.scan(probe, deadline: .now + .seconds(10)) {
            workers.shutdown()
            log("reload refused, keeping the old settings: a scan worker cannot start: \(problem)")
            return false
        }
        let old = state.withLockedValue { s -> ScanWorkerPool in
            let old = s.workers
            s.settings = settings
            s.workers = workers
            s.log.destination = settings.filter.log
            s.log.verbose = settings.filter.verbose
            s.log.syslogToStandardError = Self.log(for: settings).syslogToStandardError
            return old
        }
        old.shutdown()   // its idle workers end now; busy ones when their scan is done and the pool is freed
        log("reloaded settings")
        return true
    }

    /// The port actually bound (for `inet:0@…`).
    package var port: Int? { state.withLockedValue { $0.boundAddress?.port } }

    /// Binds and starts accepting. Throws when the address cannot be bound.
    package func start(listening address: MilterAddress) throws {
        let server = self
        let timeout = settings.sessionTimeoutSeconds
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let id = server.admit(channel) else {
                        channel.close(promise: nil)
                        return
                    }
                    let sync = channel.pipeline.syncOperations
                    // After the decoder, the timeout counts whole packets, not bytes: a peer that
                    // drips one byte at a time (or sends half a packet and stops) is cut off too.
                    try sync.addHandler(ByteToMessageHandler(MilterPacketDecoder()))
                    try sync.addHandler(IdleStateHandler(readTimeout: .nanoseconds(Int64(timeout * 1e9))))
                    try sync.addHandler(MilterHandler(server: server, id: id))
                }
            }
        let channel: Channel
        switch address {
        case .unix(let path):
            Self.removeStaleSocket(path)
            // Bound under a name of its own, then renamed once its owner, group and mode are set:
            // the socket never stands under its name open to more than it should be, and a client
            // (or a test) that waits for the name finds it ready. A path with no room for the
            // suffix (sun_path holds 107 bytes) is bound in place.
            let staging = path + ".new"
            let bound = staging.utf8.count < 108 ? staging : path
            if bound != path { Self.removeStaleSocket(bound) }
            channel = try bootstrap.bind(unixDomainSocketPath: bound).wait()
            func fail(_ what: String) throws -> Never {
                let reason = String(cString: strerror(errno))
                try? channel.close().wait()
                _ = unlink(bound)
                throw SocketSetupError(description: "\(what): \(reason)")
            }
            let settings = self.settings
            if settings.socketGroup != nil || settings.socketOwner != nil,
               chown(bound, settings.socketOwner ?? uid_t.max, settings.socketGroup ?? gid_t.max) != 0 {
                let owner = settings.socketOwner.map { "the owner \($0)" }
                let group = settings.socketGroup.map { "the group \($0)" }
                try fail("cannot give the socket \([owner, group].compactMap { $0 }.joined(separator: " and "))")
            }
            if chmod(bound, settings.socketMode) != 0 {
                try fail("cannot set the socket's mode \(String(settings.socketMode, radix: 8))")
            }
            if bound != path, rename(bound, path) != 0 {
                try fail("cannot move the socket to \(path)")
            }
        case .inet(let host, let port):
            channel = try bootstrap.bind(host: host, port: port).wait()
        }
        state.withLockedValue { $0.listener = channel; $0.boundAddress = channel.localAddress; $0.address = address }
        log("listening on \(address)")
    }

    /// Blocks until `stop` has finished.
    package func wait() {
        try? stopped.futureResult.wait()
    }

    /// Stops accepting, closes idle sessions, lets busy ones finish their message, and after
    /// `graceSeconds` answers what is left without a scan (forged fields of our names removed):
    /// a message being scanned at once, one still arriving at its end, for at most
    /// `lastCallSeconds` more; a session still open then is closed (an MTA that has not sent the
    /// end of its message by then gets its own milter_default_action).
    package func stop(graceSeconds: Double, lastCallSeconds: Double = MilterServer.lastCallSeconds) {
        let (listener, sessions) = state.withLockedValue { s -> (Channel?, [Channel]) in
            guard !s.draining else { return (nil, []) }
            s.draining = true
            return (s.listener, Array(s.sessions.values))
        }
        guard let listener else { return }
        log("stopping: \(sessions.count) open session(s)")
        state.withLockedValue { $0.metricsListener }?.close(promise: nil)
        let promise = stopped
        listener.close().whenComplete { _ in
            for channel in sessions { channel.pipeline.fireUserInboundEventTriggered(MilterHandler.Drain()) }
            let graceOver = NIODeadline.now() + .nanoseconds(Int64(graceSeconds * 1e9))
            self.closeWhenDone(graceOver: graceOver, lastCall: graceOver + .nanoseconds(Int64(lastCallSeconds * 1e9)), promise: promise)
        }
    }

    /// Seconds after the grace period an MTA has to send the end of a message still arriving.
    package static let lastCallSeconds = 10.0

    /// Polls until every session has ended; at `graceOver` tells the sessions left to answer
    /// without a scan; at `lastCall` closes what is left.
    private func closeWhenDone(graceOver: NIODeadline, lastCall: NIODeadline, told: Bool = false, promise: EventLoopPromise<Void>) {
        let left = state.withLockedValue { Array($0.sessions.values) }
        let now = NIODeadline.now()
        if left.isEmpty || now >= lastCall {
            if !left.isEmpty { log("stopped waiting: \(left.count) session(s) closed in the middle of a message") }
            for channel in left { channel.close(promise: nil) }
            promise.succeed(())
            return
        }
        var told = told
        if !told && now >= graceOver {
            told = true
            log("grace period over: \(left.count) session(s) answered without a scan")
            for channel in left { channel.pipeline.fireUserInboundEventTriggered(MilterHandler.GraceOver()) }
        }
        group.next().scheduleTask(in: .milliseconds(50)) {
            self.closeWhenDone(graceOver: graceOver, lastCall: lastCall, told: told, promise: promise)
        }
    }

    /// Frees the threads after `wait`.
    package func shutdown() {
        // Complete the stop promise on every path (a start that could not listen never stopped):
        // a promise left pending is a "leaking promise" trap in a debug build. A second
        // completion is ignored.
        stopped.succeed(())
        try? stopped.futureResult.wait()
        // Scans still running past the grace period were answered without them: end them now.
        state.withLockedValue { $0.workers }.killBusy()
        try? scanPool.syncShutdownGracefully()
        state.withLockedValue { $0.workers }.shutdown()
        try? group.syncShutdownGracefully()
    }

    // MARK: - Sessions and the log

    private func admit(_ channel: Channel) -> Int? {
        if let remote = channel.remoteAddress, let ip = remote.ipAddress {
            let allowed = state.withLockedValue { $0.settings.allowedClients }
            guard MilterAccess.admits(ip, allowed: allowed) else {
                log("refused a connection from \(ip): not loopback, and no --allow names it")
                return nil
            }
        }
        return state.withLockedValue { s in
            guard !s.draining, s.sessions.count < s.settings.maxSessions else { return nil }
            let id = s.nextID
            s.nextID += 1
            s.sessions[id] = channel
            return id
        }
    }

    func sessionEnded(_ id: Int) {
        state.withLockedValue { _ = $0.sessions.removeValue(forKey: id) }
    }

    package var openSessions: Int { state.withLockedValue { $0.sessions.count } }

    /// The message's one log line: the filter's line plus recipients and libraries.
    func record(_ verdict: MilterVerdict, session: Int) {
        metrics.record(verdict)
        var line = FilterLog.line(for: verdict.plan, elapsed: verdict.elapsed, wroteOutput: true,
                                  verbose: settings.filter.verbose)
        if let skipped = verdict.skipped { line += " scan=\(skipped)" }
        line += " session=\(session)"
        if let queueID = verdict.queueID { line += " queue=\(queueID)" }
        line += " rcpts=\(verdict.recipients) libraries=\(verdict.libraries)"
        log(line, stamped: true)
    }

    func log(_ line: String, stamped: Bool = false) {
        let log = state.withLockedValue { $0.log }
        log.record(stamped ? line : FilterLog.timestampedLine(line))
    }

    /// A socket bound, but its group or mode could not be set (the daemon does not start).
    struct SocketSetupError: Error, CustomStringConvertible {
        var description: String
    }

    private static func removeStaleSocket(_ path: String) {
        var st = stat()
        if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK { _ = unlink(path) }
    }
}
