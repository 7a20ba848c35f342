/// Reads `token`, quoted strings, comments and `; name=value` parameter lists (RFC 2045 §5.1,
/// RFC 2231) from an unfolded header value. Lenient the way mail needs: stray semicolons,
/// unquoted values with tspecials, unterminated quotes and comments all still yield a value.
///
/// Reads the value in place (`HeaderField.withUnfolded`): tokens and values are ranges of it, and
/// only a quoted string with backslash escapes or an RFC 2231 section is copied out. Every
/// Content-Type and Content-Disposition of a scan comes through here, and the copies, the list
/// of pairs and the second dictionary lookup per parameter were half of its cost (issue 17).
struct ParameterScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0

    /// `bytes` must stay valid while the scanner is used.
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    static func lowerString(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBufferPointer { lowerString($0) }
    }

    static func lowerString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        // Names and types are usually lower case already: then no lowered copy is made.
        var upper = false
        for b in bytes where b >= 0x41 && b <= 0x5A { upper = true; break }
        if !upper { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { out in
            for k in 0..<bytes.count { out[k] = ByteClass.lower(bytes[k]) }
            return bytes.count
        }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        if i < bytes.count, bytes[i] == byte { i += 1; return true }
        return false
    }

    /// Skips whitespace and (nested, escaped) comments.
    mutating func skipCFWS() {
        while i < bytes.count {
            let b = bytes[i]
            if ByteClass.isLWSP(b) { i += 1; continue }
            if b == UInt8(ascii: "(") {
                var depth = 0
                while i < bytes.count {
                    let c = bytes[i]
                    if c == UInt8(ascii: "\\") { i += 2; continue }
                    if c == UInt8(ascii: "(") { depth += 1 }
                    if c == UInt8(ascii: ")") { depth -= 1; if depth == 0 { i += 1; break } }
                    i += 1
                }
                i = min(i, bytes.count)
                continue
            }
            return
        }
    }

    /// Moves to the first ';' outside quotes (the start of the parameter list), or the end.
    mutating func skipToFirstParameter() {
        var quoted = false
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { quoted.toggle() }
            if b == UInt8(ascii: ";") && !quoted { return }
            i += 1
        }
    }

    /// A run of token bytes (a view of the input); nil at the end of input.
    mutating func token() -> UnsafeBufferPointer<UInt8>? {
        guard i < bytes.count else { return nil }
        let start = i
        while i < bytes.count, ByteClass.isTokenByte(bytes[i]) { i += 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<i])
    }

    /// A parameter value: a range of the input, or bytes of its own (a quoted string that had
    /// backslash escapes).
    enum Value {
        case span(Range<Int>)
        case owned([UInt8])
    }

    /// Hands the value's bytes to `body` without copying a span.
    func withBytes<R>(of value: Value, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch value {
        case .span(let range): return body(UnsafeBufferPointer(rebasing: bytes[range]))
        case .owned(let owned): return owned.withUnsafeBufferPointer(body)
        }
    }

    /// A quoted string starting at the current '"'; backslash escapes removed. Unterminated runs to the end.
    private mutating func quotedString() -> Value {
        i += 1
        // Usually no backslash before the closing quote: the value is a range of the input.
        var j = i
        while j < bytes.count, bytes[j] != UInt8(ascii: "\""), bytes[j] != UInt8(ascii: "\\") { j += 1 }
        if j == bytes.count || bytes[j] == UInt8(ascii: "\"") {
            let range = i..<j
            i = j < bytes.count ? j + 1 : j
            return .span(range)
        }
        var out = [UInt8]()
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\\"), i + 1 < bytes.count { out.append(bytes[i + 1]); i += 2; continue }
            if b == UInt8(ascii: "\"") { i += 1; return .owned(out) }
            out.append(b)
            i += 1
        }
        return .owned(out)
    }

    /// An unquoted value: up to ';', minus trailing whitespace and a trailing comment.
    private mutating func bareValue() -> Value {
        let start = i
        while i < bytes.count, bytes[i] != UInt8(ascii: ";") { i += 1 }
        // Cut at the first whitespace: `charset=us-ascii (Plain text)` or `format=flowed junk`.
        var end = start
        while end < i, !ByteClass.isWSP(bytes[end]) { end += 1 }
        return .span(start..<end)
    }

    struct Parameters {
        var values: [String: String] = [:]
        var rawBoundary: [UInt8]?
    }

    private struct Section {
        var number: Int
        var extended: Bool
        var value: [UInt8]
    }

    /// Parses `*(";" attribute "=" value)` to the end and assembles RFC 2231 sections; charset
    /// names (RFC 2231 or in RFC 2047 words) that iconv does not know are appended to
    /// `unknownCharsets` in the order met (plain parameters first, then RFC 2231 ones).
    mutating func parameters(unknownCharsets: inout [String]) -> Parameters {
        var result = Parameters()
        var sections: [String: [Section]] = [:]
        var sectionOrder: [String] = []
        while i < bytes.count {
            skipCFWS()
            if consume(UInt8(ascii: ";")) { continue }
            guard i < bytes.count else { break }
            let nameStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "="), bytes[i] != UInt8(ascii: ";"),
                  !ByteClass.isLWSP(bytes[i]) { i += 1 }
            let rawName = UnsafeBufferPointer(rebasing: bytes[nameStart..<i])
            skipCFWS()
            guard consume(UInt8(ascii: "=")) else {
                // `; junk` without '=': skip to the next ';'.
                while i < bytes.count, bytes[i] != UInt8(ascii: ";") { i += 1 }
                continue
            }
            skipCFWS()
            let value = (i < bytes.count && bytes[i] == UInt8(ascii: "\"")) ? quotedString() : bareValue()
            guard !rawName.isEmpty else { continue }
            let name = ParameterScanner.lowerString(rawName)
            // RFC 2231: name*  |  name*N  |  name*N*. Most names have no '*' byte, and then the
            // name has no "*" character either: String.firstIndex(of:) compares whole
            // characters and cost a third of every Content-Type parse (issue 17 profile).
            if rawName.contains(UInt8(ascii: "*")), let star = name.firstIndex(of: "*") {
                let base = String(name[..<star])
                var rest = name[name.index(after: star)...]
                var extended = false
                if rest.hasSuffix("*") { extended = true; rest = rest.dropLast() }
                let number: Int
                if rest.isEmpty { number = 0; extended = true } else if let n = Int(rest), n >= 0, n < 10_000 { number = n } else { continue }
                var list = sections[base] ?? []
                if list.isEmpty { sectionOrder.append(base) }
                if !list.contains(where: { $0.number == number }) {  // a repeated section: the first wins
                    list.append(Section(number: number, extended: extended, value: withBytes(of: value) { Array($0) }))
                }
                sections[base] = list
            } else if result.values[name] == nil {
                // A plain parameter: the first of a name wins; decoded here, in the order met.
                withBytes(of: value) { v in
                    if name == "boundary" { result.rawBoundary = Array(v) }
                    result.values[name] = ParameterScanner.decodePlain(v, unknownCharsets: &unknownCharsets)
                }
            }
        }
        for base in sectionOrder {
            let parts = (sections[base] ?? []).sorted { $0.number < $1.number }
            var charset: String? = nil
            var joined = [UInt8]()
            for (k, part) in parts.enumerated() {
                guard part.number == k else { break }  // a gap ends the value (RFC 2231 §3)
                var value = part.value[...]
                if part.extended {
                    if k == 0 {
                        // charset'language'value; tolerate a missing language part.
                        if let q1 = value.firstIndex(of: UInt8(ascii: "'")) {
                            charset = String(decoding: value[value.startIndex..<q1], as: UTF8.self)
                            let afterCharset = value[(q1 + 1)...]
                            if let q2 = afterCharset.firstIndex(of: UInt8(ascii: "'")) {
                                value = value[(q2 + 1)...]
                            } else {
                                value = afterCharset
                            }
                        }
                    }
                    joined.append(contentsOf: ParameterScanner.percentDecode(value))
                } else {
                    joined.append(contentsOf: value)
                }
            }
            let decoded: String
            if let charset, !charset.isEmpty {
                let reported = Charset.decodeReporting(joined, charset: charset)
                decoded = reported.text
                if !reported.known { unknownCharsets.append(charset) }
            } else {
                decoded = joined.withUnsafeBufferPointer { ParameterScanner.decodePlain($0, unknownCharsets: &unknownCharsets) }
            }
            if base == "boundary", result.rawBoundary == nil { result.rawBoundary = joined }
            result.values[base] = decoded  // RFC 2231 form wins over the plain one
        }
        return result
    }

    /// A plain parameter value: RFC 2047 words decoded (common in name=/filename=), raw 8-bit read leniently.
    static func decodePlain(_ value: UnsafeBufferPointer<UInt8>, unknownCharsets: inout [String]) -> String {
        var k = 0
        while k + 1 < value.count {
            if value[k] == UInt8(ascii: "="), value[k + 1] == UInt8(ascii: "?") {
                return EncodedWords.decode(Array(value)[...], unknownCharsets: &unknownCharsets)
            }
            k += 1
        }
        return Charset.decodeLenient(value)
    }

    static func percentDecode(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(value.count)
        var j = value.startIndex
        while j < value.endIndex {
            if value[j] == UInt8(ascii: "%"), j + 2 < value.endIndex,
               let hi = ByteClass.hexValue(value[j + 1]), let lo = ByteClass.hexValue(value[j + 2]) {
                out.append(hi << 4 | lo)
                j += 3
            } else {
                out.append(value[j])
                j += 1
            }
        }
        return out
    }
}
