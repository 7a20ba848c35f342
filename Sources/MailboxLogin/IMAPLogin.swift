#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Checks a user name and password by signing in to the user's own IMAP server, as webmails do
/// (Roundcube, SOGo): `AUTHENTICATE PLAIN` when the server offers it (no quoting, any bytes but
/// NUL), else `LOGIN` with quoted strings or literals; then `LOGOUT`. TLS is never optional where
/// the address asks for it: a server that does not offer STARTTLS is not asked at all (unlike
/// Roundcube, which then carries on in plain text). The whole conversation has one deadline.
/// Nothing of the password is ever part of a result, an error or a log line.
package struct IMAPLogin: Sendable {
    package let server: IMAPServerAddress
    package let timeout: TimeAmount
    let tls: NIOSSLContext

    /// `caFile`: a PEM file of the certificates to trust for the server (a private CA); the
    /// system's roots when nil.
    package init(server: IMAPServerAddress, caFile: String? = nil, timeout: TimeAmount = .seconds(15)) throws(MailboxLoginError) {
        self.server = server
        self.timeout = timeout
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        if let caFile { configuration.trustRoots = .file(caFile) }
        do {
            tls = try NIOSSLContext(configuration: configuration)
        } catch {
            throw MailboxLoginError("The certificates to trust for the IMAP server cannot be read\(caFile.map { " from \($0)" } ?? ""): \(Self.describe(error)).")
        }
    }

    /// `url`: `imap://HOST[:PORT]` or `imaps://HOST[:PORT]`.
    package init(url: String, caFile: String? = nil, timeout: TimeAmount = .seconds(15)) throws(MailboxLoginError) {
        try self.init(server: try IMAPServerAddress(parsing: url), caFile: caFile, timeout: timeout)
    }

    /// Longest user name or password passed on (Roundcube's cap); anything longer is refused unsent.
    package static let maximumLength = 1024

    /// `client`: the visitor the sign-in is for, told to the server with `ID` before the
    /// password is sent (when the server offers `ID`).
    package func check(user: String, password: String, client: IMAPClientAddress? = nil) async -> MailboxLoginResult {
        guard !user.isEmpty, !password.isEmpty,
              user.utf8.count <= Self.maximumLength, password.utf8.count <= Self.maximumLength,
              let plain = IMAPArgument.plainResponse(user: user, password: password),
              let userArgument = IMAPArgument(user), let passwordArgument = IMAPArgument(password)
        else { return .rejected }
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            let (tls, security, hostname) = (self.tls, server.security, serverHostname)
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .connect(host: server.host, port: server.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if security == .implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: hostname))
                        }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            return .unavailable("The mail server \(server) cannot be reached: \(Self.describe(error)).")
        }
        let timedOut = NIOLockedValueBox(false)
        let timer = channel.channel.eventLoop.scheduleTask(in: timeout) {
            timedOut.withLockedValue { $0 = true }
            channel.channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            return try await channel.executeThenClose { inbound, outbound in
                var conversation = Conversation(lines: IMAPLineReader(inbound.makeAsyncIterator()), outbound: outbound)
                return try await conversation.signIn(login: self, channel: channel.channel, plain: plain,
                                                     user: userArgument, password: passwordArgument, client: client)
            }
        } catch {
            if timedOut.withLockedValue({ $0 }) {
                return .unavailable("The mail server \(server) did not answer within \(timeout.nanoseconds / 1_000_000_000) s.")
            }
            return .unavailable("The mail server \(server) could not check the sign-in: \(Self.describe(error)).")
        }
    }

    /// The name TLS checks the certificate against (and sends as SNI): the host, unless it is an
    /// address, which NIOSSL then checks against the peer's address instead.
    var serverHostname: String? {
        let isAddress = server.host.contains(":") || server.host.split(separator: ".").allSatisfy { UInt8($0) != nil }
        return isAddress ? nil : server.host
    }

    func startTLS(on channel: Channel) async throws {
        let (tls, hostname) = (self.tls, serverHostname)
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: hostname), position: .first)
        }.get()
    }

    /// A cause for a sentence: the system's words for a socket error, TLS's for a handshake.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let failure as IMAPFailure:
            switch failure {
            case .closed: return "it closed the connection"
            case .protocolError(let what): return "it sent \(what)"
            }
        case let error as NIOConnectionError:
            if let first = error.connectionErrors.first { return describe(first.error) }
            if error.dnsAError != nil || error.dnsAAAAError != nil { return "its name does not resolve" }
            return "the connection failed"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case ChannelError.connectTimeout:
            return "it did not answer in time"
        case let error as NIOSSLError:
            switch error {
            case .handshakeFailed(let inner):
                let text = String(describing: inner)
                if text.contains("CERTIFICATE_VERIFY_FAILED") { return "its TLS certificate is not one this server trusts" }
                return "the TLS handshake failed"
            case .unableToValidateCertificate: return "its TLS certificate cannot be validated"
            default: return "TLS failed"
            }
        case is NIOSSLExtraError:
            return "its TLS certificate does not name it"
        default:
            return "the connection failed"
        }
    }
}

/// One sign-in, command by command.
private struct Conversation {
    var lines: IMAPLineReader
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    mutating func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Reads to the tagged answer of `tag`, collecting any capabilities announced on the way.
    mutating func answer(to tag: String, capabilities: inout [String]?) async throws -> (IMAPResponse.Status, String?) {
        while true {
            switch try await lines.nextResponse() {
            case .tagged(let got, let status, let code) where got == tag: return (status, code)
            case .untagged(.bye, _): throw IMAPFailure.closed
            case .untagged(_, let announced?): capabilities = announced
            default: continue
            }
        }
    }

    /// Waits for `+`; a tagged answer instead ends the command (returned).
    mutating func continuation(or tag: String) async throws -> (IMAPResponse.Status, String?)? {
        while true {
            switch try await lines.nextResponse() {
            case .continuation: return nil
            case .tagged(let got, let status, let code) where got == tag: return (status, code)
            case .untagged(.bye, _): throw IMAPFailure.closed
            default: continue
            }
        }
    }

    mutating func signIn(login: IMAPLogin, channel: Channel, plain: String,
                         user: IMAPArgument, password: IMAPArgument, client: IMAPClientAddress?) async throws -> MailboxLoginResult {
        let server = login.server
        var capabilities: [String]?
        switch try await lines.nextResponse() {
        case .untagged(.ok, let announced): capabilities = announced
        case .untagged(.bye, _): return .unavailable("The mail server \(server) refused the connection.")
        case .untagged(.preauth, _):
            return .unavailable("The mail server \(server) signs everyone in without a password, so it cannot check one.")
        default: throw IMAPFailure.protocolError("no IMAP greeting")
        }
        if server.security == .startTLS {
            try await send("s1 STARTTLS\r\n")
            var ignored: [String]?
            let (status, _) = try await answer(to: "s1", capabilities: &ignored)
            guard status == .ok else {
                return .unavailable("The mail server \(server) does not offer STARTTLS, and a password is never sent to it in plain text.")
            }
            guard !lines.hasBufferedBytes else { throw IMAPFailure.protocolError("plain-text bytes after agreeing to STARTTLS") }
            try await login.startTLS(on: channel)
            capabilities = nil  // RFC 9051 §6.2.1: what was said before TLS does not count
        }
        if capabilities == nil {
            try await send("c1 CAPABILITY\r\n")
            _ = try await answer(to: "c1", capabilities: &capabilities)
        }
        let offered = Set(capabilities ?? [])
        if let client, offered.contains("ID") {
            // Whatever the server answers (it may ignore the fields), the sign-in goes on.
            try await send("i1 ID \(client.idParameters)\r\n")
            var ignored: [String]?
            _ = try await self.answer(to: "i1", capabilities: &ignored)
        }
        let answer: (IMAPResponse.Status, String?)
        if offered.contains("AUTH=PLAIN") {
            if offered.contains("SASL-IR") {
                try await send("a1 AUTHENTICATE PLAIN \(plain)\r\n")
            } else {
                try await send("a1 AUTHENTICATE PLAIN\r\n")
                if let early = try await continuation(or: "a1") { return Self.result(early, server: server) }
                try await send("\(plain)\r\n")
            }
            answer = try await self.answer(to: "a1", capabilities: &capabilities)
        } else if !offered.contains("LOGINDISABLED") {
            try await send("a1 LOGIN ")
            for (index, argument) in [user, password].enumerated() {
                let end = index == 0 ? " " : "\r\n"
                switch argument {
                case .quoted(let text): try await send(text + end)
                case .literal(let bytes):
                    try await send("{\(bytes.count)}\r\n")
                    if let early = try await continuation(or: "a1") { return Self.result(early, server: server) }
                    try await outbound.write(ByteBuffer(bytes: bytes))
                    try await send(end)
                }
            }
            answer = try await self.answer(to: "a1", capabilities: &capabilities)
        } else {
            return .unavailable("The mail server \(server) offers no password sign-in over this connection.")
        }
        try? await send("z1 LOGOUT\r\n")
        return Self.result(answer, server: server)
    }

    /// OK signs in; NO and BAD refuse; the RFC 5530 codes for a server's own trouble are not the
    /// person's fault and say so.
    static func result(_ answer: (IMAPResponse.Status, String?), server: IMAPServerAddress) -> MailboxLoginResult {
        switch answer {
        case (.ok, _): return .accepted
        case (_, "UNAVAILABLE"?), (_, "SERVERBUG"?), (_, "INUSE"?):
            return .unavailable("The mail server \(server) cannot check sign-ins right now.")
        default: return .rejected
        }
    }
}
