import NIOCore
import NIOHTTPTypes

/// Time limits on what a client sends, which Hummingbird's `idleTimeout` does not give: a client
/// that trickles a request head one byte at a time (slow-loris) is never idle, and each such
/// connection holds one of `maxConnections` places. A request head must be complete within
/// `headSeconds` of the connection opening or of the previous answer's end, and its body within
/// `bodySeconds` of its head; otherwise the connection is closed. While an answer is being made
/// (an update check may take a while) no limit runs.
final class RequestDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let headSeconds: Double
    let bodySeconds: Double
    private var deadline: Scheduled<Void>?

    init(headSeconds: Double, bodySeconds: Double) {
        self.headSeconds = headSeconds
        self.bodySeconds = bodySeconds
    }

    private func arm(_ context: ChannelHandlerContext, seconds: Double) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
            channel.close(promise: nil)
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context, seconds: headSeconds)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, seconds: bodySeconds)
        case .body: break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, seconds: headSeconds) }
        context.write(data, promise: promise)
    }
}
