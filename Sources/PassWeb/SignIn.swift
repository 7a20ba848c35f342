import Support

/// How people sign in to the web wallet (`--auth`).
package enum SignIn: Sendable {
    /// No `--auth`: loopback only, the user's own library, a one-time link printed at start.
    case desktop
    /// `--auth header:NAME --trusted-proxy …`: a reverse proxy names the user in a header,
    /// believed only from the trusted peers.
    case header(name: String, trusted: [AddressRange])
    /// `--auth imap://…|imaps://…`: the login form, checked against the mailbox server.
    case password(server: MailboxServerAddress, checker: any PasswordChecker)

    package var isDesktop: Bool { if case .desktop = self { return true }; return false }
}

/// `--auth` as written, before the composition root builds a checker for it.
package enum SignInOption: Sendable, Equatable {
    case header(name: String)
    case mailbox(MailboxServerAddress)

    /// Parses `header:NAME`, `imap://HOST[:PORT]` or `imaps://HOST[:PORT]`; a sentence when it is neither.
    package static func parse(_ text: String) throws(WebSetupError) -> SignInOption {
        if text.hasPrefix("header:") {
            let name = String(text.dropFirst("header:".count))
            // An HTTP field name is a token (RFC 9110 §5.6.2).
            let token = name.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || "!#$%&'*+-.^_`|~".utf8.contains(b)
            }
            guard !name.isEmpty, name.utf8.count <= 64, token else {
                throw WebSetupError("--auth header:NAME needs a header name such as X-Forwarded-User or Remote-User, not “\(name)”")
            }
            return .header(name: name)
        }
        if text.hasPrefix("imap://") || text.hasPrefix("imaps://") {
            return .mailbox(try MailboxServerAddress.parse(text))
        }
        throw WebSetupError("--auth takes imap://HOST[:PORT], imaps://HOST[:PORT] or header:NAME, not “\(text)”")
    }
}

/// The mailbox server of `--auth imap://HOST[:PORT]` (STARTTLS) or `imaps://HOST[:PORT]` (TLS from
/// the first byte). Plain IMAP without STARTTLS only to a loopback host.
package struct MailboxServerAddress: Sendable, Equatable {
    package enum Security: Sendable, Equatable {
        /// imaps: TLS from the first byte (port 993).
        case tls
        /// imap: STARTTLS before LOGIN, refused if the server does not offer it.
        case startTLS
        /// imap to a loopback host: STARTTLS when offered, else the password goes in the clear
        /// over this machine's own loopback.
        case startTLSIfOffered
    }
    package var host: String
    package var port: Int
    package var security: Security

    package init(host: String, port: Int, security: Security) {
        self.host = host
        self.port = port
        self.security = security
    }

    package static func parse(_ text: String) throws(WebSetupError) -> MailboxServerAddress {
        let implicit = text.hasPrefix("imaps://")
        var rest = Substring(text.dropFirst(implicit ? "imaps://".count : "imap://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?") else {
            throw WebSetupError("--auth \(implicit ? "imaps" : "imap")://HOST[:PORT] names only a server (no user, password or path): “\(text)”")
        }
        let (host, port) = try HostPort.split(rest, defaultPort: implicit ? 993 : 143, what: "--auth")
        let loopback = HostPort.isLoopbackName(host)
        return MailboxServerAddress(host: host, port: port, security: implicit ? .tls : (loopback ? .startTLSIfOffered : .startTLS))
    }
}

/// A problem in how `serve` was asked to run: one sentence, exit 64.
package struct WebSetupError: Error, CustomStringConvertible, Equatable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

extension WebSetupError: ProblemReporting {
    package var problem: Problem { Problem(.badWebSetup, message: description) }
}
