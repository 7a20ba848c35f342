/// An IMAP server named by `imap://HOST[:PORT]` (STARTTLS, required unless HOST is loopback) or
/// `imaps://HOST[:PORT]` (TLS from the first byte). A URL with a user, password, path or query is
/// refused: the server is all it names, so it can be printed anywhere.
package struct IMAPServerAddress: Sendable, Equatable, CustomStringConvertible {
    package enum Security: Sendable, Equatable {
        /// TLS from the first byte (`imaps://`, port 993 by default).
        case implicitTLS
        /// `STARTTLS` before anything else is sent (`imap://` to a host that is not loopback).
        case startTLS
        /// Plain text: `imap://` to a loopback address only, where nothing crosses a network.
        case plainLoopback
    }

    package let host: String
    package let port: Int
    package let security: Security

    package var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(security == .implicitTLS ? "imaps" : "imap")://\(shown):\(port)"
    }

    /// A server given by its parts: what a URL parses to, or STARTTLS to a loopback address (which
    /// a URL never asks for, but a test of the STARTTLS conversation on this machine does).
    package init(host: String, port: Int, security: Security) {
        self.host = host
        self.port = port
        self.security = security
    }

    /// Parses `text`; the error is a sentence naming what is wrong, for `--auth`.
    package init(parsing text: String) throws(MailboxLoginError) {
        let scheme: String
        let rest: Substring
        if let range = text.range(of: "://") {
            scheme = text[..<range.lowerBound].lowercased()
            rest = text[range.upperBound...]
        } else {
            throw MailboxLoginError("“\(text)” is not an IMAP server: write imap://HOST[:PORT] or imaps://HOST[:PORT].")
        }
        guard scheme == "imap" || scheme == "imaps" else {
            throw MailboxLoginError("“\(scheme)://” is not an IMAP server: write imap://HOST[:PORT] or imaps://HOST[:PORT].")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        guard !authority.isEmpty else { throw MailboxLoginError("The IMAP server URL names no host.") }
        guard !authority.contains("@") else {
            throw MailboxLoginError("The IMAP server URL must not carry a user or password: each person signs in with their own.")
        }
        guard !authority.contains("/"), !authority.contains("?"), !authority.contains("#") else {
            throw MailboxLoginError("The IMAP server URL names a server only (no path or query): imap://HOST[:PORT].")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw MailboxLoginError("The IMAP server's IPv6 address lacks its closing “]”.")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw MailboxLoginError("Unexpected text after the IMAP server's address.") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:_".contains($0)) }) else {
            throw MailboxLoginError("The IMAP server's host name is not valid.")
        }
        var port = scheme == "imaps" ? 993 : 143
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw MailboxLoginError("The IMAP server's port must be a number from 1 to 65535.")
            }
            port = value
        }
        self.host = host.lowercased()
        self.port = port
        if scheme == "imaps" {
            security = .implicitTLS
        } else {
            security = Self.isLoopback(self.host) ? .plainLoopback : .startTLS
        }
    }

    /// `localhost`, 127.0.0.0/8 or ::1: a connection that never leaves this machine.
    package static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }
}
