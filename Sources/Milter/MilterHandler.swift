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

    /// Sent when the stop's grace period is over. A message being scanned is answered now,
    /// unscanned; a message still arriving is answered unscanned at its end of message (the MTA
    /// may change headers only then, and asks for an answer only then). Either way the answer
    /// removes forged fields of our names (or is 4xx with --on-error tempfail): closing the
    /// session instead would leave the message to the MTA's milter_default_action, which is
    /// accept in the shipped recipe, and the forged fields would be delivered.
    struct GraceOver {}

    private let server: MilterServer
    private let session: MilterSession
    private let id: Int
    private var scanning = false
    private var draining = false
    private var graceOver = false
    /// The message being scanned: its forged fields of our names (what an answer without the
    /// scan removes), its queue id, and whether it was already answered without the scan.
    private var inScan: (removals: [HeaderEdits.Removal], queueID: String?, answered: Bool)?
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
            if graceOver {
                // The daemon is stopping and its grace period is over: no scan, an answer now.
                answerUnscanned(removals: removals(of: message), queueID: message.queueID, context: context)
                end(context, reason: nil)
            } else {
                scan(message, context: context)
            }
        }
    }

    /// The forged fields of our names the answer removes (none when headers are off, or the MTA
    /// did not grant header changes: then there is nothing we may change).
    private func removals(of message: MilterMessage) -> [HeaderEdits.Removal] {
        server.settings.filter.headers && session.actions.contains(.wanted) ? message.ownFields : []
    }

    /// Answers the message without its scan: forged fields removed and accepted unchanged, or
    /// 4xx with --on-error tempfail; one log line says why.
    private func answerUnscanned(removals: [HeaderEdits.Removal], queueID: String?, context: ChannelHandlerContext) {
        let onError = server.settings.onError
        let replies = MilterVerdict.unscannedReplies(removals: removals, onError: onError, leadingSpace: session.leadingSpace)
        var line = "session=\(id) result=\(onError == .tempfail ? "tempfail" : "unchanged") error=stopping"
        if let queueID { line += " queue=\(queueID)" }
        line += " removed=\(onError == .tempfail ? 0 : removals.count) detail=\"the daemon stopped before the message was scanned\""
        server.log(line)
        guard context.channel.isActive else { return }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: replies)), promise: nil)
    }

    private func scan(_ message: MilterMessage, context: ChannelHandlerContext) {
        scanning = true
        let (settings, workers) = server.current
        let queued = NIODeadline.now()
        let leadingSpace = session.leadingSpace
        let canEdit = session.actions.contains(.wanted)
        inScan = (removals(of: message), message.queueID, false)
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
        let pending = inScan
        inScan = nil
        // Answered already (the grace period ended during the scan): the MTA has its answer.
        if pending?.answered == true { return }
        let replies: [UInt8]
        switch result {
        case .success(let verdict):
            replies = verdict.replies
            server.record(verdict, session: id)
        case .failure(let error):
            // The scan threads are gone (the daemon is stopping): the message passes unchanged,
            // without forged fields of our names (or 4xx with --on-error tempfail).
            let onError = server.settings.onError
            replies = MilterVerdict.unscannedReplies(removals: pending?.removals ?? [], onError: onError, leadingSpace: session.leadingSpace)
            server.log("session=\(id) result=\(onError == .tempfail ? "tempfail" : "unchanged") error=scan-failed detail=\"\(FilterLog.printable("\(error)"))\"")
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
        } else if event is GraceOver {
            draining = true
            graceOver = true
            if scanning, let pending = inScan, !pending.answered {
                inScan?.answered = true
                answerUnscanned(removals: pending.removals, queueID: pending.queueID, context: context)
                end(context, reason: nil)
            } else if !scanning && session.message == nil {
                end(context, reason: nil)
            }
            // A message still arriving is answered at its end of message (handle).
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
