import Foundation

/// A user name or password as an IMAP `astring` argument (RFC 9051 §4.3): a quoted string when
/// every byte is printable ASCII, else a synchronising literal `{n}` whose bytes follow once the
/// server says `+`. CR, LF and NUL cannot be sent at all (they could end the command early or
/// smuggle a second one), so a value holding one is refused before anything is sent.
package enum IMAPArgument: Sendable, Equatable {
    case quoted(String)
    case literal([UInt8])

    package init?(_ value: String) {
        let bytes = Array(value.utf8)
        guard !bytes.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) else { return nil }
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            var quoted = "\""
            for character in value {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            self = .quoted(quoted + "\"")
        } else {
            self = .literal(bytes)
        }
    }

    /// The SASL PLAIN initial response (RFC 4616) for `user` and `password`, base64: no quoting
    /// needed, any bytes but NUL. Nil when either holds a NUL or a line break.
    package static func plainResponse(user: String, password: String) -> String? {
        let user = Array(user.utf8), password = Array(password.utf8)
        guard !user.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }), !password.contains(0) else { return nil }
        return Data([0] + user + [0] + password).base64EncodedString()
    }
}
