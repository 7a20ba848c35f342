/// A parsed message: its top-level header fields, every part in document order and the defects
/// found. Bodies are decoded only when asked for (`decodedBody(of:)`, `decodedPrefix(of:maxBytes:)`).
package struct MIMEMessage: Sendable {
    /// Top-level fields in order, duplicates kept. Made from the header section when asked: a
    /// scan asks only for a message holding a candidate part, and making every field of every
    /// message showed in the profile of a mailbox scan (issue 17).
    package var headers: [HeaderField] {
        guard let range = headerRange else { return [] }
        return HeaderBlock.fields(in: buffers[0], range: range, maxBytes: headerLimit)
    }
    /// The root entity's header section in `buffers[0]`; nil when the message has no part.
    let headerRange: Range<Int>?
    /// Bytes of header section read into `headers` (`MIMELimits.maxHeaderBytes`).
    let headerLimit: Int
    /// Flat, document order; `parts[0]` is the root entity.
    package var parts: [MIMEPart]
    /// Every defect of the message and of its parts (each part also lists its own).
    package var defects: [MIMEDefect]
    /// `buffers[0]` is the input; later buffers hold decoded encapsulated messages.
    package var buffers: [[UInt8]]

    /// The first field named `name` (case-insensitive), unfolded and RFC 2047 decoded.
    package func header(_ name: String) -> String? {
        guard let range = headerRange else { return nil }
        return HeaderBlock.firstField(named: name, in: buffers[0], range: range, maxBytes: headerLimit)?.value
    }

    /// Every field named `name`, in order.
    package func headers(named name: String) -> [HeaderField] {
        headers.filter { Self.sameName($0.name, name) }
    }

    /// Field names compared ASCII-case-insensitively on their bytes: no lowercased copies of
    /// every field name of every message (it showed in the scan profile).
    static func sameName(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for k in 0..<x.count {
                    let p = x[k], q = y[k]
                    if p == q { continue }
                    // Only ASCII letters fold: p | 0x20 == q | 0x20 within a...z.
                    guard p | 0x20 == q | 0x20, (0x61...0x7A).contains(p | 0x20) else { return false }
                }
                return true
            }
        }
    }

    package var messageID: String? {
        guard let raw = header("Message-ID") else { return nil }
        let trimmed = raw.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    package var subject: String? { header("Subject") }

    /// The part's header fields, parsed on demand from its header range.
    package func headerFields(of part: MIMEPart) -> [HeaderField] {
        HeaderBlock.fields(in: buffers[part.buffer], range: part.headerRange, maxBytes: Int.max)
    }

    /// The body bytes as they are in the message (still transfer-encoded).
    package func rawBody(of part: MIMEPart) -> ArraySlice<UInt8> {
        buffers[part.buffer][part.bodyRange]
    }

    /// The body transfer-decoded (base64, quoted-printable, uuencode); other encodings unchanged.
    package func decodedBody(of part: MIMEPart) -> [UInt8] {
        TransferDecoder.decode(rawBody(of: part), encoding: part.transferEncoding)
    }

    /// At most `maxBytes` of the decoded body, reading only the input that needs: for content sniffing.
    package func decodedPrefix(of part: MIMEPart, maxBytes: Int) -> [UInt8] {
        TransferDecoder.decodePrefix(rawBody(of: part), encoding: part.transferEncoding, maxBytes: maxBytes)
    }

    /// A decoder for the part's body that decodes a prefix first and the rest only if asked,
    /// reading each input byte once (content sniffing, then opening, of one candidate part).
    package func bodyDecoder(of part: MIMEPart) -> BodyDecoder {
        BodyDecoder(rawBody(of: part), encoding: part.transferEncoding)
    }

    /// The leaf parts: neither containers nor encapsulated messages.
    package var leaves: [MIMEPart] {
        parts.filter { !$0.isMultipart && !$0.isEncapsulatedMessage }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        if let trimmed = asciiTrimmingWhitespace() { return trimmed }
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }

    /// `trimmingWhitespace()` for an ASCII string, nil for any other. An ASCII string's characters
    /// are its bytes (CR LF aside, which is neither space nor tab), so it is trimmed on the bytes,
    /// and not copied when there is nothing to trim (issue 17: a file name of every named part).
    func asciiTrimmingWhitespace() -> String? {
        var copy = self
        return copy.withUTF8 { p -> String? in
            guard let kept = ByteClass.asciiBlankTrimmed(p) else { return nil }
            if kept.count == p.count { return self }
            return String(decoding: UnsafeBufferPointer(rebasing: p[kept]), as: UTF8.self)
        }
    }
}
