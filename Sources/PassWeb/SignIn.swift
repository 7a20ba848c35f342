import Support

/// How people sign in to the web wallet (`--auth`).
package enum SignIn: Sendable {
    /// No `--auth`: loopback only, the user's own library, a one-time link printed at start.
    case desktop
    /// `--auth header:NAME --trusted-proxy …`: a reverse proxy names the user in a header,
    /// believed only from the trusted peers.
    case header(name: String, trusted: [AddressRange])
    /// `--auth imap://…|imaps://…`: the login form, checked against the mailbox server.
    case password(checker: any PasswordChecker)

    package var isDesktop: Bool { if case .desktop = self { return true }; return false }
}

/// `--auth` as written, before the composition root builds a checker for it.
package enum SignInOption: Sendable, Equatable {
    case header(name: String)
    /// The mailbox server's URL as written: the composition root parses it, once, into the
    /// IMAP client's address (MailboxLogin's `IMAPServerAddress`), which says what is wrong with it.
    case mailbox(url: String)

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
            return .mailbox(url: text)
        }
        throw WebSetupError("--auth takes imap://HOST[:PORT], imaps://HOST[:PORT] or header:NAME, not “\(text)”")
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
