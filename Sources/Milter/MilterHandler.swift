import DeliveryFilter
import NIOCore

/// One MTA connection on the event loop: packets in, replies out. At end of message the scan runs
/// on the server's scan threads; packets that arrive meanwhile wait (a few at most: the MTA waits
/// for the answer), and the session reads nothing more until the answer is sent.
final class MilterHandler: ChannelInboundHandler {
    typealias InboundIn = MilterPacket
    typealias OutboundOut = ByteBuffer

    /// Sent down the pipeline when the daemon stops: an idle session closes at once, a busy one
    /// after the message it is handling.
    struct Drain {}

    private let server: MilterServer
    private let session: MilterSession
    private let id: Int
    private var scanning = false
    private var draining = false
    private var waiting: [MilterPacket] = []
    static let maxWaitingPackets = 64

    init(server: MilterServer, id: Int) {
        self.server = server
        self.id = id
        self.session = MilterSession(limits: server.settings.sessionLimits)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let packet = unwrapInboundIn(data)
        if scanning {
            waiting.append(packet)
            if waiting.count > Self.maxWaitingPackets { end(context, reason: "the MTA kept talking during a scan") }
            return
        }
        handle(packet, context: context)
    }

    private func handle(_ packet: MilterPacket, context: ChannelHandlerContext) {
        switch session.receive(packet) {
        case .none:
            break
        case .send(let bytes):
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        case .close(let reason):
            end(context, reason: reason)
        case .endOfMessage(let message):
            scan(message, context: context)
        }
    }

    private func scan(_ message: MilterMessage, context: ChannelHandlerContext) {
        scanning = true
        let (settings, workers) = server.current
        let queued = NIODeadline.now()
        let leadingSpace = session.leadingSpace
        let canEdit = session.actions.contains(.wanted)
        let transfer = UnsafeMessage(message)   // handed to one scan thread, then dropped
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        server.scanPool.runIfActive(eventLoop: context.eventLoop) { () -> MilterVerdict in
            let started = NIODeadline.now()
            let waited = Double((started - queued).nanoseconds) / 1e9
            var verdict = MilterVerdict.decide(transfer.message, settings: settings, pool: workers, leadingSpace: leadingSpace,
                                               canEdit: canEdit, waited: waited)
            verdict.elapsed = Double((NIODeadline.now() - queued).nanoseconds) / 1e9
            return verdict
        }.whenComplete { result in
            let (handler, context) = bound.value
            handler.finish(result, context: context)
        }
    }

    private func finish(_ result: Result<MilterVerdict, any Error>, context: ChannelHandlerContext) {
        scanning = false
        let replies: [UInt8]
        switch result {
        case .success(let verdict):
            replies = verdict.replies
            server.record(verdict, session: id)
        case .failure(let error):
            // The scan threads are gone (the daemon is stopping): the message passes unchanged.
            replies = server.settings.onError == .tempfail ? MilterSession.packet(.tempfail) : MilterSession.packet(.continue)
            server.log("session=\(id) result=unchanged error=scan-failed detail=\"\(error)\"")
        }
        guard context.channel.isActive else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: replies)), promise: nil)
        if draining { end(context, reason: nil); return }
        while !scanning, !waiting.isEmpty, context.channel.isActive {
            handle(waiting.removeFirst(), context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Drain {
            draining = true
            if !scanning && session.message == nil { end(context, reason: nil) }
        } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, !scanning {
            end(context, reason: "no packet for \(server.settings.sessionTimeoutSeconds) s")
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        end(context, reason: "\(error)")
    }

    /// On TCP, every read re-arms TCP_QUICKACK. Postfix writes the no-reply packets (recipients,
    /// header fields, body chunks) back to back and then end-of-message; Nagle on its side holds
    /// the last small write until the earlier ones are acknowledged, and Linux delays that ACK (up
    /// to 40 ms) when nothing goes back. Benchmarks/milter on loopback TCP lost a third of
    /// Postfix's messages per second to that wait; on a Unix socket there is none.
    func channelReadComplete(context: ChannelHandlerContext) {
        if isTCP, let options = context.channel.syncOptions {
            try? options.setOption(Self.quickAck, value: 1)
        }
        context.fireChannelReadComplete()
    }

    private lazy var isTCP: Bool = {
        switch server.listeningAddress { case .inet: return true; default: return false }
    }()
    private static let quickAck = ChannelOptions.Types.SocketOption(level: .init(rawValue: 6), name: .init(rawValue: 12))   // IPPROTO_TCP, TCP_QUICKACK

    func channelInactive(context: ChannelHandlerContext) {
        server.sessionEnded(id)
        context.fireChannelInactive()
    }

    private func end(_ context: ChannelHandlerContext, reason: String?) {
        if let reason, context.channel.isActive {
            server.log("session=\(id) result=session-closed reason=\"\(FilterLog.printable(reason))\"")
        }
        context.close(promise: nil)
    }
}

/// A message handed from the event loop to one scan thread and back: never touched by two
/// threads at once (the session reads nothing while the scan runs).
struct UnsafeMessage: @unchecked Sendable {
    let message: MilterMessage
    init(_ message: MilterMessage) { self.message = message }
}
