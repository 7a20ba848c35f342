import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Serves one pass over HTTP at one unguessable path, once: the first complete download ends it
/// (after a short linger that answers repeats with 410), and a timeout ends it anyway. Any other
/// path is 404, nothing is listed, every connection is bounded in time, bytes and number.
package final class OneShotServer: Sendable {
    package let options: SendOptions
    /// "/" and 32 hex digits: 128 bits from the system's random source.
    package let path: String
    let body: [UInt8]
    let fileName: String
    let state: NIOLockedValueBox<State>
    let report: @Sendable (SendEvent) -> Void
    let group: MultiThreadedEventLoopGroup
    let finished: EventLoopPromise<SendOutcome>

    struct State {
        var downloaded = false
        var connections = 0
        /// Admitted connections that have not yet sent a whole request head, oldest first: the
        /// ones given up when the server is full (an idle crowd must not lock a phone out).
        var idle: [(id: ObjectIdentifier, channel: Channel)] = []
        var server: Channel?
        var outcome: SendOutcome?
    }

    /// - Parameter fileName: the name Content-Disposition gives the download ("ticket.pkpass").
    package init(pass: [UInt8], fileName: String, options: SendOptions, report: @escaping @Sendable (SendEvent) -> Void) {
        self.body = pass
        self.fileName = fileName
        self.options = options
        self.report = report
        var generator = SystemRandomNumberGenerator()
        let token = (0..<2).map { _ in generator.next() as UInt64 }
            .map { String($0, radix: 16) }.map { String(repeating: "0", count: 16 - $0.count) + $0 }.joined()
        self.path = "/" + token
        self.state = NIOLockedValueBox(State())
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.finished = group.next().makePromise(of: SendOutcome.self)
    }

    /// Binds and starts serving; returns the URL to open. Throws `SendFailure` when the address
    /// cannot be bound (and the server is then finished: nothing is left waiting).
    package func start() throws -> String {
        let server = self
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: Int32(options.maxConnections))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(ByteBudget(limit: server.options.maxRequestBytes))
                    var limits = NIOHTTPDecoderLimitConfiguration()
                    limits.maxHeaderFieldSize = 8 * 1024
                    limits.maxHeaderListSize = 12 * 1024
                    limits.maxHeaderFieldCount = 100
                    try sync.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true,
                                                         withEncoderConfiguration: .init(),
                                                         withDecoderLimitConfiguration: limits)
                    try sync.addHandler(PassHandler(server: server))
                }
            }
        let channel: Channel
        do {
            channel = try bootstrap.bind(host: options.host, port: options.port).wait()
        } catch {
            // The promise must be completed before its event loop goes away (NIO traps on a
            // leaked promise in a debug build), and nobody will wait for this server now.
            let failure = SendFailure(bindError: error, host: options.host, port: options.port)
            finished.fail(failure)
            try? group.syncShutdownGracefully()
            throw failure
        }
        state.withLockedValue { $0.server = channel }
        let timeout = options.timeoutSeconds
        group.next().scheduleTask(in: .seconds(timeout)) { server.finish(.timedOut) }
        let port = channel.localAddress?.port ?? options.port
        let shown = options.urlHost ?? options.host
        let host = shown.contains(":") ? "[\(shown)]" : shown
        return "http://\(host):\(port)\(path)"
    }

    /// Blocks until the pass was downloaded (and the linger passed) or the timeout came.
    package func wait() throws -> SendOutcome {
        let outcome = try finished.futureResult.wait()
        try? group.syncShutdownGracefully()
        return outcome
    }

    func finish(_ outcome: SendOutcome) {
        let server: Channel? = state.withLockedValue { s in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            return s.server
        }
        guard let server else { return }
        let promise = finished
        server.close().whenComplete { _ in promise.succeed(outcome) }
    }

    // MARK: - Decisions, made under the lock

    enum Answer { case pass, head, notFound, gone, notAllowed }

    func answer(method: HTTPMethod, uri: String) -> Answer {
        let requested = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? uri
        guard requested == path else { return .notFound }
        guard method == .GET || method == .HEAD else { return .notAllowed }
        if state.withLockedValue({ $0.downloaded }) { return .gone }
        return method == .HEAD ? .head : .pass
    }

    /// The first complete download wins; later ones (finishing at the same time) do not count again.
    func completed(by client: String, userAgent: String?) {
        let first = state.withLockedValue { s -> Bool in
            if s.downloaded { return false }
            s.downloaded = true
            return true
        }
        guard first else { return }
        report(.downloaded(client: client, userAgent: userAgent))
        let server = self
        group.next().scheduleTask(in: .seconds(options.lingerSeconds)) { server.finish(.downloaded) }
    }

    /// False when the server already holds as many connections as it may, all of them busy with
    /// a request. When some of them have sent nothing yet, the oldest of those is closed to make
    /// room: a phone that connects and asks at once is never locked out by idle connections.
    func admit(_ channel: Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (admitted, evicted) = state.withLockedValue { s -> (Bool, Channel?) in
            if s.connections < options.maxConnections {
                s.connections += 1
                s.idle.append((id, channel))
                return (true, nil)
            }
            guard !s.idle.isEmpty else { return (false, nil) }
            let oldest = s.idle.removeFirst()
            s.connections += 1  // the evicted one gives its place back when it is removed
            s.idle.append((id, channel))
            return (true, oldest.channel)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    /// The connection sent a whole request head: it is no longer idle.
    func requested(_ channel: Channel) {
        let id = ObjectIdentifier(channel)
        state.withLockedValue { s in s.idle.removeAll { $0.id == id } }
    }

    func release(_ channel: Channel) {
        let id = ObjectIdentifier(channel)
        state.withLockedValue { s in
            s.connections -= 1
            s.idle.removeAll { $0.id == id }
        }
    }
}
