import Foundation
import XCTest
@testable import MailMIME
import TestRandom

/// Content-Type and Content-Disposition parsing in place (issue 17) against the copying parser it
/// replaced: same type, parameters, boundary bytes and unknown charsets (in the same order) on
/// every such field of the test fixtures and on random values made to hit every branch.
final class ReferenceParameterTests: XCTestCase {
    struct Parsed: Equatable {
        var type: ContentType?
        var parametersOnly: [String: String]
        var disposition: ContentDisposition
        var unknown: [[String]]
    }

    static func reference(_ raw: ArraySlice<UInt8>) -> Parsed {
        var unknown: [[String]] = []
        var type: ContentType?
        do {
            var scanner = ReferenceParameterScanner(HeaderField.unfold(raw))
            scanner.skipCFWS()
            if let t = scanner.token(), !t.isEmpty {
                scanner.skipCFWS()
                if scanner.consume(UInt8(ascii: "/")) {
                    scanner.skipCFWS()
                    if let s = scanner.token(), !s.isEmpty {
                        let params = scanner.parameters()
                        unknown.append(params.unknownCharsets)
                        type = ContentType(type: ReferenceParameterScanner.lowerString(t), subtype: ReferenceParameterScanner.lowerString(s),
                                           parameters: params.values, boundary: params.rawBoundary)
                    }
                }
            }
            if type == nil { unknown.append([]) }
        }
        var scanner = ReferenceParameterScanner(HeaderField.unfold(raw))
        scanner.skipToFirstParameter()
        let only = scanner.parameters()
        unknown.append(only.unknownCharsets)
        scanner = ReferenceParameterScanner(HeaderField.unfold(raw))
        scanner.skipCFWS()
        let kind = scanner.token().map(ReferenceParameterScanner.lowerString) ?? ""
        let params = scanner.parameters()
        unknown.append(params.unknownCharsets)
        return Parsed(type: type, parametersOnly: only.values, disposition: ContentDisposition(kind: kind, parameters: params.values), unknown: unknown)
    }

    static func current(_ raw: ArraySlice<UInt8>) -> Parsed {
        var unknown: [[String]] = [[], [], []]
        let type = ContentType.parse(raw, unknownCharsets: &unknown[0])
        let only = ContentType.parseParametersOnly(raw, unknownCharsets: &unknown[1])
        let disposition = ContentDisposition.parse(raw, unknownCharsets: &unknown[2])
        return Parsed(type: type, parametersOnly: only, disposition: disposition, unknown: unknown)
    }

    func check(_ raw: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        // Also from a slice that does not start at index 0 (fields are slices of a message).
        let padded = Array("X-Pad: 1\n".utf8) + raw
        let expected = Self.reference(raw[...])
        XCTAssertEqual(Self.current(raw[...]), expected, "\(String(decoding: raw, as: UTF8.self).debugDescription)", file: file, line: line)
        XCTAssertEqual(Self.current(padded[9...]), expected, file: file, line: line)
    }

    func testFixtureFieldsMatchTheReference() throws {
        let root = fixtureURL("")
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }
        var checked = 0
        for url in files where !url.hasDirectoryPath {
            let bytes = Array(try Data(contentsOf: url))
            // Every Content-Type / Content-Disposition field with its folded lines.
            var i = 0
            while i < bytes.count {
                let lineEnd = bytes[i...].firstIndex(of: 0x0A) ?? bytes.count
                let line = bytes[i..<lineEnd]
                let lower = line.prefix(20).map(ByteClass.lower)
                var valueStart: Int? = nil
                if lower.starts(with: Array("content-type:".utf8)) { valueStart = i + 13 }
                if lower.starts(with: Array("content-disposition:".utf8)) { valueStart = i + 20 }
                var end = lineEnd
                if let start = valueStart {
                    while end + 1 < bytes.count, bytes[end + 1] == 0x20 || bytes[end + 1] == 0x09 {
                        end = bytes[(end + 1)...].firstIndex(of: 0x0A) ?? bytes.count
                    }
                    check(Array(bytes[start..<end]))
                    checked += 1
                }
                i = end + 1
            }
        }
        XCTAssertGreaterThan(checked, 500)
    }

    static let pieces: [String] = [
        "text", "/", "plain", "Multipart", "mixed", " ", "\t", "\r\n ", "\n\t", ";", ";;", "=", "\"", "\\", "(", ")", "(a (nested) comment)",
        "charset", "CharSet", "boundary", "BOUNDARY", "name", "filename", "name*", "name*0", "name*1", "name*0*", "name*1*", "name*2",
        "title*x", "name*99999", "*", "'", "''", "utf-8''", "UTF-8'de'", "x-unknown-cs''", "iso-8859-1''", "%C3%BC", "%FC", "%zz", "%4",
        "us-ascii", "x-unknown", "=?utf-8?q?a_b?=", "=?x-bogus?B?YWJj?=", "=?iso-8859-1?Q?caf=E9?=", "=?", "?=", "\u{e9}", "\u{fc}",
        "\"quoted value\"", "\"esc\\\"aped\"", "\"unterminated", "attachment", "inline", "value with space", "a.pkpass", "@", ",", ":",
        "\u{1F600}", "junk", "==", "=_b?c",
    ]

    func testMimeTypeJoinsTypeAndSubtype() {
        XCTAssertEqual(ContentType(type: "text", subtype: "plain").mimeType, "text/plain")
        XCTAssertEqual(ContentType(type: "application", subtype: "vnd.openxmlformats-officedocument.wordprocessingml.document").mimeType,
                       "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        XCTAssertEqual(ContentType(type: "t\u{eb}xt", subtype: "").mimeType, "t\u{eb}xt/")
        XCTAssertEqual(ContentType(type: "", subtype: "\u{1F600}").mimeType, "/\u{1F600}")
    }

    func testRandomValuesMatchTheReference() {
        var rng = SeededGenerator(state: 0x17_2231)
        for _ in 0..<6000 {
            var text = ""
            for _ in 0..<Int.random(in: 0...16, using: &rng) { text += Self.pieces[Int.random(in: 0..<Self.pieces.count, using: &rng)] }
            var bytes = Array(text.utf8)
            if Int.random(in: 0..<8, using: &rng) == 0 { bytes.append(UInt8.random(in: 0x80...0xFF, using: &rng)) }
            check(bytes)
        }
        check([])
        check(Array("text/plain; charset=\"us-ascii\"; name=\"a \\\"q\\\" b\"; boundary=\"=_x\"".utf8))
    }
}

/// The ParameterScanner before issue 17 (a copy of the unfolded value, a [UInt8] per value), kept
/// as the reference for the in-place one.
/// Reads `token`, quoted strings, comments and `; name=value` parameter lists (RFC 2045 §5.1,
/// RFC 2231) from an unfolded header value. Lenient the way mail needs: stray semicolons,
/// unquoted values with tspecials, unterminated quotes and comments all still yield a value.
struct ReferenceParameterScanner {
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
            let name = ReferenceParameterScanner.lowerString(rawName)
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
            result.values[name] = ReferenceParameterScanner.decodePlain(value, unknownCharsets: &result.unknownCharsets)
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
                    joined.append(contentsOf: ReferenceParameterScanner.percentDecode(value))
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
                decoded = ReferenceParameterScanner.decodePlain(joined, unknownCharsets: &result.unknownCharsets)
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
