/// Reads `token`, quoted strings, comments and `; name=value` parameter lists (RFC 2045 §5.1,
/// RFC 2231) from an unfolded header value. Lenient the way mail needs: stray semicolons,
/// unquoted values with tspecials, unterminated quotes and comments all still yield a value.
struct ParameterScanner {
    private let bytes: [UInt8]
    private var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func lowerString(_ bytes: ArraySlice<UInt8>) -> String {
        // Names and types are usually lower case already: then no lowered copy is made.
        if !bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.map(ByteClass.lower), as: UTF8.self)
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

    /// A run of token bytes; nil at the end of input.
    mutating func token() -> ArraySlice<UInt8>? {
        guard i < bytes.count else { return nil }
        let start = i
        while i < bytes.count, ByteClass.isTokenByte(bytes[i]) { i += 1 }
        return bytes[start..<i]
    }

    /// A quoted string starting at the current '"'; backslash escapes removed. Unterminated runs to the end.
    private mutating func quotedString() -> [UInt8] {
        i += 1
        // Usually no backslash before the closing quote: one copy of the run, no byte-wise appends.
        var j = i
        while j < bytes.count, bytes[j] != UInt8(ascii: "\""), bytes[j] != UInt8(ascii: "\\") { j += 1 }
        if j == bytes.count || bytes[j] == UInt8(ascii: "\"") {
            let out = Array(bytes[i..<j])
            i = j < bytes.count ? j + 1 : j
            return out
        }
        var out = [UInt8]()
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\\"), i + 1 < bytes.count { out.append(bytes[i + 1]); i += 2; continue }
            if b == UInt8(ascii: "\"") { i += 1; return out }
            out.append(b)
            i += 1
        }
        return out
    }

    /// An unquoted value: up to ';', minus trailing whitespace and a trailing comment.
    private mutating func bareValue() -> [UInt8] {
        let start = i
        while i < bytes.count, bytes[i] != UInt8(ascii: ";") { i += 1 }
        var end = i
        // Cut at the first whitespace: `charset=us-ascii (Plain text)` or `format=flowed junk`.
        if let ws = bytes[start..<end].firstIndex(where: ByteClass.isWSP) { end = ws }
        return Array(bytes[start..<end])
    }

    struct Parameters {
        var values: [String: String] = [:]
        var rawBoundary: [UInt8]?
        /// Charset names (RFC 2231 or in RFC 2047 words) that iconv does not know, in order met.
        var unknownCharsets: [String] = []
    }

    private struct Section {
        var number: Int
        var extended: Bool
        var value: [UInt8]
    }

    /// Parses `*(";" attribute "=" value)` to the end and assembles RFC 2231 sections.
    mutating func parameters() -> Parameters {
        var plain: [(String, [UInt8])] = []
        var sections: [String: [Section]] = [:]
        var sectionOrder: [String] = []
        while i < bytes.count {
            skipCFWS()
            if consume(UInt8(ascii: ";")) { continue }
            guard i < bytes.count else { break }
            let nameStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "="), bytes[i] != UInt8(ascii: ";"),
                  !ByteClass.isLWSP(bytes[i]) { i += 1 }
            let rawName = bytes[nameStart..<i]
            skipCFWS()
            guard consume(UInt8(ascii: "=")) else {
                // `; junk` without '=': skip to the next ';'.
                while i < bytes.count, bytes[i] != UInt8(ascii: ";") { i += 1 }
                continue
            }
            skipCFWS()
            let value: [UInt8] = (i < bytes.count && bytes[i] == UInt8(ascii: "\"")) ? quotedString() : bareValue()
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
                    list.append(Section(number: number, extended: extended, value: value))
                }
                sections[base] = list
            } else {
                plain.append((name, value))
            }
        }
        var result = Parameters()
        for (name, value) in plain where result.values[name] == nil {
            if name == "boundary" { result.rawBoundary = value }
            result.values[name] = ParameterScanner.decodePlain(value, unknownCharsets: &result.unknownCharsets)
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
                if !reported.known { result.unknownCharsets.append(charset) }
            } else {
                decoded = ParameterScanner.decodePlain(joined, unknownCharsets: &result.unknownCharsets)
            }
            if base == "boundary", result.rawBoundary == nil { result.rawBoundary = joined }
            result.values[base] = decoded  // RFC 2231 form wins over the plain one
        }
        return result
    }

    /// A plain parameter value: RFC 2047 words decoded (common in name=/filename=), raw 8-bit read leniently.
    static func decodePlain(_ value: [UInt8], unknownCharsets: inout [String]) -> String {
        if EncodedWords.mayContainWords(value[...]) { return EncodedWords.decode(value[...], unknownCharsets: &unknownCharsets) }
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
