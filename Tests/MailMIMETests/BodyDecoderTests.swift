import Foundation
import XCTest
@testable import MailMIME
import TestRandom

/// BodyDecoder decodes a prefix, then the rest, and the two steps together give exactly what one
/// whole decode gives while reading each input byte once.
final class BodyDecoderTests: XCTestCase {
    func randomBytes(_ count: Int, _ rng: inout SeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// Base64 with line breaks, and now and then junk a tolerant decoder skips (spaces, '*', CRLF).
    func base64Body(_ data: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var out: [UInt8] = []
        for (k, c) in Data(data).base64EncodedString(options: .lineLength76Characters).utf8.enumerated() {
            if k % 97 == 0 && Bool.random(using: &rng) { out += Array(" *\r\n".utf8).shuffled(using: &rng).prefix(2) }
            out.append(c)
        }
        return out + Array("\r\n".utf8)
    }

    func quotedPrintableBody(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var line = 0
        let hex = Array("0123456789ABCDEF".utf8)
        for b in data {
            if b >= 33 && b <= 126 && b != UInt8(ascii: "=") { out.append(b); line += 1 }
            else { out += [UInt8(ascii: "="), hex[Int(b >> 4)], hex[Int(b & 15)]]; line += 3 }
            if line >= 72 { out += Array("=\r\n".utf8); line = 0 }
        }
        return out
    }

    func check(_ raw: [UInt8], _ encoding: TransferEncoding, prefix: Int, file: StaticString = #filePath, line: UInt = #line) {
        let whole = TransferDecoder.decode(raw[...], encoding: encoding)
        var decoder = BodyDecoder(raw[...], encoding: encoding)
        let head = decoder.prefix(prefix)
        XCTAssertEqual(Array(head), Array(whole.prefix(prefix)), "prefix \(prefix) of \(encoding)", file: file, line: line)
        XCTAssertEqual(decoder.finish(), whole, "\(encoding), prefix \(prefix) then the rest", file: file, line: line)
        XCTAssertLessThanOrEqual(decoder.inputBytesRead, raw.count, file: file, line: line)
    }

    func testPrefixThenRestIsTheWholeDecodeForBase64AndQuotedPrintable() {
        var rng = SeededGenerator(state: 17)
        for size in [0, 1, 2, 3, 4, 5, 57, 100, 4095, 4096, 4097, 70_000] {
            let data = randomBytes(size, &rng)
            for prefix in [0, 1, 3, 4, 5, 64, 4096, 65_536, 200_000] {
                check(base64Body(data, &rng), .base64, prefix: prefix)
                check(quotedPrintableBody(data), .quotedPrintable, prefix: prefix)
            }
        }
    }

    func testTrailingGroupsPaddingAndJunkAfterIt() {
        for text in ["aGk", "aGk=", "aGk=\nthis is a trailing signature", "UEsD\r\nBBQ*AAA !", "YQ", "Y", "====", "=YWJj"] {
            for prefix in 0...6 { check(Array(text.utf8), .base64, prefix: prefix) }
        }
        for text in ["a=  \r\nb", "=4", "=", "abc=3D=3", "=\n=\r\n=41"] {
            for prefix in 0...4 { check(Array(text.utf8), .quotedPrintable, prefix: prefix) }
        }
    }

    func testEachInputByteIsReadOnce() {
        var rng = SeededGenerator(state: 3)
        let raw = base64Body(randomBytes(100_000, &rng), &rng)
        var decoder = BodyDecoder(raw[...], encoding: .base64)
        XCTAssertEqual(decoder.prefix(4096).count, 4096)
        let afterPrefix = decoder.inputBytesRead
        XCTAssertLessThan(afterPrefix, 4096 / 3 * 4 + 200, "the prefix reads only what it needs")
        _ = decoder.finish()
        XCTAssertEqual(decoder.inputBytesRead, raw.count, "prefix and rest together read the input once")
    }

    func testUnencodedBodyPrefixIsASliceOfTheMessage() {
        let raw = Array("PK\u{3}\u{4} binary".utf8)
        var decoder = BodyDecoder(raw[...], encoding: .binary)
        XCTAssertEqual(Array(decoder.prefix(4)), Array(raw.prefix(4)))
        XCTAssertEqual(decoder.inputBytesRead, 0, "nothing copied for the prefix")
        XCTAssertEqual(decoder.finish(), raw)
    }
}
