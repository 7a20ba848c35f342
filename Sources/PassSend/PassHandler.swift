import NIOCore
import NIOHTTP1

/// One connection: one request, one answer, then close. Serves the pass only at the server's path.
final class PassHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let server: OneShotServer
    var head: HTTPRequestHead?
    var answered = false
    var admitted = false
    var deadline: Scheduled<Void>?
    var headDeadline: Scheduled<Void>?
    /// The whole pass went to the socket; it counts as downloaded when the client then closes
    /// cleanly (FIN). A client that vanishes with bytes unread resets the connection instead.
    var written: (client: String, userAgent: String?)?
    var failed = false
    var closedByUs = false

    init(server: OneShotServer) { self.server = server }

    func handlerAdded(context: ChannelHandlerContext) {
        // Every connection ends after connectionSeconds, whatever it is doing.
        let channel = context.channel
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(server.options.connectionSeconds)) { [self] in
            closedByUs = true
            channel.close(promise: nil)
        }
        // A request head comes at once from a real client; a connection that sends none within
        // headSeconds only holds a place.
        headDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(server.options.headSeconds)) { [self] in
            guard head == nil else { return }
            closedByUs = true
            channel.close(promise: nil)
        }
        admitted = server.admit(channel)
        if !admitted { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let written {
            if !failed && !closedByUs {
                server.completed(by: written.client, userAgent: written.userAgent)
            } else {
                server.report(.interrupted(client: written.client))
            }
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        headDeadline?.cancel()
        if admitted { server.release(context.channel) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            headDeadline?.cancel()
            server.requested(context.channel)
        case .body: break  // a GET has no body; whatever comes is dropped (and counted by ByteBudget)
        case .end: respond(context: context)
        }
    }

    func respond(context: ChannelHandlerContext) {
        guard let head, !answered else { return }
        answered = true
        let client = context.remoteAddress?.ipAddress ?? "an unknown address"
        var headers = HTTPHeaders([("Connection", "close"), ("Cache-Control", "no-store"),
                                   ("X-Content-Type-Options", "nosniff")])
        let status: HTTPResponseStatus
        var payload: [UInt8] = []
        switch server.answer(method: head.method, uri: head.uri) {
        case .pass, .head:
            status = .ok
            headers.add(name: "Content-Type", value: "application/vnd.apple.pkpass")
            headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(server.fileName)\"")
            headers.add(name: "Content-Length", value: String(server.body.count))
            if head.method == .GET { payload = server.body }
        case .notFound:
            status = .notFound
            payload = Array("Not found.\n".utf8)
        case .gone:
            status = .gone
            payload = Array("This pass was already sent; it is served once.\n".utf8)
        case .notAllowed:
            status = .methodNotAllowed
            headers.add(name: "Allow", value: "GET, HEAD")
            payload = Array("Only GET and HEAD.\n".utf8)
        }
        if status != .ok {
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(payload.count))
            server.report(.refused(client: client, status: Int(status.code)))
        }
        let isDownload = status == .ok && head.method == .GET
        let userAgent = head.headers.first(name: "User-Agent")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !payload.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: payload)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success where isDownload:
                // Our side is done; the client's close (after reading it all) completes the download.
                written = (client, userAgent)
                channel.close(mode: .output).assumeIsolated().whenFailure { [self] _ in
                    closedByUs = true
                    channel.close(promise: nil)
                }
            case .success:
                closedByUs = true
                channel.close(promise: nil)
            case .failure:
                if isDownload { server.report(.interrupted(client: client)) }
                failed = true
                channel.close(promise: nil)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        failed = true
        context.close(promise: nil)
    }
}

/// Closes a connection that sends more than `limit` bytes: a GET is a few hundred bytes, so huge
/// paths, huge headers or a body stream are cut off before they cost memory.
final class ByteBudget: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let limit: Int
    var received = 0

    init(limit: Int) { self.limit = limit }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytes
        guard received <= limit else {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}
