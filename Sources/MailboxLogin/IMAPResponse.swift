/// One response line from an IMAP server (RFC 9051 §7), as much of it as a login needs.
package enum IMAPResponse: Sendable, Equatable {
    /// `tag OK|NO|BAD [CODE …] text`: the end of a command. `code` is the response code's atom,
    /// upper-cased (`AUTHENTICATIONFAILED`, `UNAVAILABLE`), when there is one.
    case tagged(tag: String, status: Status, code: String?)
    /// `* …`: data or a status the server sends on its own (greeting, CAPABILITY, BYE).
    case untagged(status: Status?, capabilities: [String]?)
    /// `+ …`: the server waits for the rest of a command (a literal, an AUTHENTICATE response).
    case continuation

    package enum Status: String, Sendable, Equatable { case ok = "OK", no = "NO", bad = "BAD", bye = "BYE", preauth = "PREAUTH" }

    /// Parses one line without its CRLF; nil for a line that is none of the three.
    package static func parse(_ line: [UInt8]) -> IMAPResponse? {
        let text = String(decoding: line, as: UTF8.self)
        if text == "+" || text.hasPrefix("+ ") { return .continuation }
        var words = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count >= 2 else { return nil }
        let tag = String(words.removeFirst())
        let status = Status(rawValue: words[0].uppercased())
        let rest = words.count > 1 ? String(words[1]) : ""
        if tag == "*" {
            if status == nil, words[0].uppercased() == "CAPABILITY" {
                return .untagged(status: nil, capabilities: rest.split(separator: " ").map { $0.uppercased() })
            }
            return .untagged(status: status, capabilities: status == nil ? nil : capabilities(inCode: rest))
        }
        guard let status, status == .ok || status == .no || status == .bad else { return nil }
        return .tagged(tag: tag, status: status, code: code(of: rest))
    }

    /// The atom of a `[CODE …]` at the start of a status text, upper-cased.
    static func code(of text: String) -> String? {
        guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else { return nil }
        let inside = text[text.index(after: text.startIndex)..<close]
        return inside.split(separator: " ").first.map { $0.uppercased() }
    }

    /// The capabilities of a `[CAPABILITY …]` code (a greeting or a login's OK may carry one).
    static func capabilities(inCode text: String) -> [String]? {
        guard code(of: text) == "CAPABILITY", let close = text.firstIndex(of: "]") else { return nil }
        let inside = text[text.index(after: text.startIndex)..<close]
        return inside.split(separator: " ").dropFirst().map { $0.uppercased() }
    }

    /// The byte count of a literal that a line announces at its end (`… {12}`), which the next
    /// bytes carry and which are not lines of their own.
    package static func literalLength(atEndOf line: [UInt8]) -> Int? {
        guard line.last == UInt8(ascii: "}"), let open = line.lastIndex(of: UInt8(ascii: "{")) else { return nil }
        var digits = line[(open + 1)..<(line.count - 1)]
        if digits.last == UInt8(ascii: "+") { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }
}
