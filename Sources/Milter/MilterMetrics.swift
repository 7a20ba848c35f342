import DeliveryFilter
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus

/// The daemon's counters in the Prometheus text format (swift-prometheus's registry), served on
/// their own listener (`--metrics HOST:PORT`, `GET /metrics`), apart from the MTA's socket. They
/// count, never name: no address, subject or library location is a label.
package final class MilterMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let scanSeconds: DurationHistogram
    private let workerKills: Counter
    /// Counters already made, by metric name and label value: the registry's `makeCounter`
    /// builds a descriptor and takes its lock each time, and every message counts at least once.
    private let counters = NIOLockedValueBox<[String: Counter]>([:])

    package init() {
        scanSeconds = registry.makeDurationHistogram(
            descriptor: Self.name("passconduit_milter_scan_seconds", "Time from a message's end to the milter's answer (queueing and scan)."),
            buckets: [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                      .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10)])
        workerKills = registry.makeCounter(descriptor: Self.name("passconduit_milter_worker_restarts_total", "Scan workers killed (a crash, a hang past the deadline, a broken answer); the next scan starts a new one."))
    }

    /// A metric's whole name (no namespace or unit added) and its HELP line.
    static func name(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// One message's verdict into the counters.
    func record(_ verdict: MilterVerdict) {
        let result: String
        switch verdict.plan.output {
        case .nothing: result = "tempfail"
        case .unchanged: result = verdict.skipped == "skipped-not-local" ? "not-local" : "unchanged"
        case .rewritten: result = "headers"
        }
        count("passconduit_milter_messages_total", "Messages answered, by what was done to them.", "result", result)
        for report in verdict.plan.reports {
            count("passconduit_milter_passes_total", "Passes found, by verdict (a valid pass by its library state when there is one).", "verdict", report.category)
        }
        for note in verdict.plan.libraries {
            if let error = note.error {
                count("passconduit_milter_library_errors_total", "Recipient libraries that could not be used, by error code.", "code", error.code.rawValue)
                continue
            }
            for entry in note.outcome.split(separator: ",") {
                let action = entry.split(separator: "/").last.map(String.init) ?? String(entry)
                count("passconduit_milter_library_outcomes_total", "What was done in a recipient's library per pass (offered, updated, none), or no-library.", "action", action)
            }
        }
        if let error = verdict.plan.error {
            count("passconduit_milter_errors_total", "Messages whose scan failed or ran out of time, by error code.", "code", error.code.rawValue)
        }
        scanSeconds.recordNanoseconds(Int64((max(0, verdict.elapsed) * 1e9).rounded()))
    }

    /// Adds one to the counter `name` with the one label `label`=`value`.
    private func count(_ name: String, _ help: String, _ label: String, _ value: String) {
        let key = name + "\u{0}" + value
        let counter = counters.withLockedValue { made -> Counter in
            if let counter = made[key] { return counter }
            let counter = registry.makeCounter(descriptor: Self.name(name, help), labels: [(label, value)])
            made[key] = counter
            return counter
        }
        counter.increment()
    }

    /// A scan worker was killed.
    func workerKilled() { workerKills.increment() }

    /// The text format, as `GET /metrics` answers it.
    package func text() -> [UInt8] { registry.emitToBuffer() }

    /// Binds `host`:`port` and answers `GET /metrics` (anything else: 404) until `group` stops.
    func serve(host: String, port: Int, group: any EventLoopGroup) throws -> Channel {
        let metrics = self
        return try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsHandler(metrics: metrics))
                }
            }
            .bind(host: host, port: port).wait()
    }
}

/// One HTTP connection to the metrics listener.
final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let metrics: MilterMetrics
    private var path: String?
    private var keepAlive = false

    init(metrics: MilterMetrics) { self.metrics = metrics }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            path = head.method == .GET ? String(head.uri.prefix { $0 != "?" }) : nil
            keepAlive = head.isKeepAlive
        case .body:
            break
        case .end:
            let found = path == "/metrics"
            let body = found ? metrics.text() : Array("not found: the metrics are at /metrics\n".utf8)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: found ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(body.count)")
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: found ? .ok : .notFound, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
            let keep = keepAlive
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keep { bound.value.close(promise: nil) }
            }
            path = nil
        }
    }
}
