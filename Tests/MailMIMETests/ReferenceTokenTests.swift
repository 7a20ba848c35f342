import XCTest
@testable import MailMIME
import TestRandom

/// Transfer-encoding tokens compared on their bytes and file names trimmed on their bytes
/// (issue 17) against the String versions they replaced.
final class ReferenceTokenTests: XCTestCase {
    static func referenceEncoding(_ value: ArraySlice<UInt8>) -> TransferEncoding {
        var start = value.startIndex
        while start < value.endIndex, ByteClass.isLWSP(value[start]) { start += 1 }
        var stop = start
        while stop < value.endIndex, value[stop] != UInt8(ascii: ";"), value[stop] != UInt8(ascii: "("), !ByteClass.isLWSP(value[stop]) { stop += 1 }
        switch String(decoding: value[start..<stop].map(ByteClass.lower), as: UTF8.self) {
        case "", "7bit", "7-bit": return .sevenBit
        case "8bit", "8-bit": return .eightBit
        case "binary": return .binary
        case "base64": return .base64
        case "quoted-printable": return .quotedPrintable
        case "x-uuencode", "x-uue", "uuencode", "x-uu", "uue": return .uuencode
        case let other: return .other(other)
        }
    }

    func testTransferEncodingMatchesTheReference() {
        let pieces = ["7bit", "7-BIT", "8bit", "8-bit", "Binary", "BASE64", "base", "64", "quoted-printable", "Quoted-Printable",
                      "x-uuencode", "X-UUE", "uuencode", "x-uu", "uue", "uu", "x-", " ", "\t", "\r\n ", ";", "(c)", "junk", "\u{e9}", "İ", ""]
        var rng = SeededGenerator(state: 0x7E_2045)
        var values = pieces
        for _ in 0..<5000 {
            values.append((0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined())
        }
        for value in values {
            let bytes = Array(("X" + value).utf8)
            XCTAssertEqual(TransferEncoding(headerValue: bytes[1...]), Self.referenceEncoding(bytes[1...]), value.debugDescription)
        }
    }

    static func referenceTrim(_ text: String) -> String {
        var s = Substring(text)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }

    func testTrimmingWhitespaceMatchesTheReference() {
        let alphabet: [Character] = [" ", "\t", "a", "Z", ".", "\r\n", "\n", "\u{0B}", "\u{A0}", "\u{3000}", "é", " \u{301}", "\u{1F600}"]
        var rng = SeededGenerator(state: 0x7A1B)
        var ascii = 0
        for _ in 0..<5000 {
            let text = String((0..<Int.random(in: 0...10, using: &rng)).map { _ in alphabet[Int.random(in: 0..<(Bool.random(using: &rng) ? 7 : alphabet.count), using: &rng)] })
            XCTAssertEqual(text.trimmingWhitespace(), Self.referenceTrim(text), text.debugDescription)
            if text.asciiTrimmingWhitespace() != nil { ascii += 1 }
        }
        XCTAssertGreaterThan(ascii, 1000)
        XCTAssertEqual(" \u{301}x ".trimmingWhitespace(), " \u{301}x", "a space carrying a combining mark is not a space")
    }
}
