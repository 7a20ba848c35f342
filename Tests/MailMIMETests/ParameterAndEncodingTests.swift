import XCTest
@testable import MailMIME

final class ParameterAndEncodingTests: XCTestCase {
    private func type(_ s: String) -> ContentType? { ContentType.parse(Array(s.utf8)[...]) }

    func testContentTypeWithCommentsQuotedStringsAndCase() {
        let t = type(" Text/HTML (a comment) ; CharSet = \"UTF-8\" (another); name=\"a \\\"q\\\" b.html\";;format=flowed (junk)")
        XCTAssertEqual(t?.mimeType, "text/html")
        XCTAssertEqual(t?.charset, "UTF-8")
        XCTAssertEqual(t?.parameters["name"], "a \"q\" b.html")
        XCTAssertEqual(t?.parameters["format"], "flowed")
    }

    func testRFC2231ContinuationsWithCharsetAndLanguage() {
        let t = type("application/vnd.apple.pkpass; name*0*=UTF-8'de'Fl%C3%BCg; name*1*=%20nach%20; name*2=\"M\u{fc}nchen.pkpass\"")
        XCTAssertEqual(t?.parameters["name"], "Flüg nach München.pkpass")
        let d = ContentDisposition.parse(Array("attachment; filename*=iso-8859-1''Gr%FC%DFe.pkpass; filename=\"fallback.pkpass\"".utf8)[...])
        XCTAssertEqual(d.kind, "attachment")
        XCTAssertEqual(d.parameters["filename"], "Grüße.pkpass")
    }

    func testRFC2231SectionsOutOfOrderAreSortedAndAGapEndsTheValue() {
        let t = type("text/plain; title*1=\"two\"; title*0=\"one-\"; title*3=\"four\"")
        XCTAssertEqual(t?.parameters["title"], "one-two")
    }

    func testRFC2047WordsInFileNameAreDecoded() {
        let t = type("application/octet-stream; name=\"=?UTF-8?B?w4RydHNlbC5wa3Bhc3M=?=\"")
        XCTAssertEqual(t?.parameters["name"], "Ärtsel.pkpass")
    }

    func testBoundaryKeepsItsRawBytes() {
        let t = type("multipart/mixed; boundary=\"=_a b?c\"")
        XCTAssertEqual(t?.boundary, Array("=_a b?c".utf8))
        XCTAssertNil(type("multipart"))
    }

    func testEncodedWordsInManyCharsets() {
        XCTAssertEqual(EncodedWords.decode(Array("=?ISO-8859-2?Q?=A3=F3d=BC?=".utf8)[...]), "Łódź")
        XCTAssertEqual(EncodedWords.decode(Array("=?windows-1251?B?z/Do4uXy?=".utf8)[...]), "Привет")
        XCTAssertEqual(EncodedWords.decode(Array("=?iso-8859-15?q?=A4uro?=".utf8)[...]), "€uro")
        XCTAssertEqual(EncodedWords.decode(Array("=?koi8-r?B?8NLJ18XU?=".utf8)[...]), "Привет")
        XCTAssertEqual(EncodedWords.decode(Array("=?windows-1252?Q?caf=E9?=".utf8)[...]), "café")
    }

    func testMultibyteSequenceSplitAcrossTwoWordsIsJoined() {
        // "ü" is C3 BC, split between two words.
        XCTAssertEqual(EncodedWords.decode(Array("=?UTF-8?Q?M=C3?= =?UTF-8?Q?=BCnchen?=".utf8)[...]), "München")
    }

    func testWhitespaceBetweenWordsIsDroppedButKeptAroundText() {
        XCTAssertEqual(EncodedWords.decode(Array("a =?utf-8?q?b?=  =?utf-8?q?c?= d".utf8)[...]), "a bc d")
    }

    func testMalformedEncodedWordsAreLeftReadable() {
        XCTAssertEqual(EncodedWords.decode(Array("=?UTF-8?X?abc?= and =?broken".utf8)[...]), "=?UTF-8?X?abc?= and =?broken")
        XCTAssertEqual(EncodedWords.decode(Array("=?unknown-charset?Q?plain?=".utf8)[...]), "plain")
    }

    func testTransferEncodingTokens() {
        XCTAssertEqual(TransferEncoding(headerValue: Array(" Base64 ".utf8)[...]), .base64)
        XCTAssertEqual(TransferEncoding(headerValue: Array("Quoted-Printable (comment)".utf8)[...]), .quotedPrintable)
        XCTAssertEqual(TransferEncoding(headerValue: Array("x-uuencode".utf8)[...]), .uuencode)
        XCTAssertEqual(TransferEncoding(headerValue: Array("7-bit".utf8)[...]), .sevenBit)
        XCTAssertEqual(TransferEncoding(headerValue: Array("x-gzip64".utf8)[...]), .other("x-gzip64"))
    }
}

final class TransferDecoderTests: XCTestCase {
    func testBase64SkipsJunkAndToleratesMissingPadding() {
        XCTAssertEqual(TransferDecoder.base64(Array("UEsD\r\nBBQ*AAA !".utf8)[...]), [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00])
        XCTAssertEqual(TransferDecoder.base64(Array("aGk".utf8)[...]), Array("hi".utf8))
        XCTAssertEqual(TransferDecoder.base64(Array("aGk=\nthis is a trailing signature".utf8)[...]), Array("hi".utf8))
        XCTAssertEqual(TransferDecoder.base64([]), [])
    }

    func testBase64HandlesOneVeryLongLine() {
        let data = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let encoded = Array(Data(data).base64EncodedString().utf8)
        XCTAssertEqual(TransferDecoder.base64(encoded[...]), data)
    }

    func testQuotedPrintableSoftBreaksAndBadEscapes() {
        let input = "caf=C3=A9 =\r\nsoft=\nbreak =XZ bad, =3d lower=\n"
        XCTAssertEqual(String(decoding: TransferDecoder.quotedPrintable(Array(input.utf8)[...]), as: UTF8.self),
                       "café softbreak =XZ bad, = lower")
        XCTAssertEqual(TransferDecoder.quotedPrintable(Array("a=  \r\nb".utf8)[...]), Array("ab".utf8))
    }

    func testUudecodeBetweenBeginAndEnd() {
        let input = "junk before\nbegin 644 pass.pkpass\n$4$L#!```\n`\nend\ntrailing\n"
        XCTAssertEqual(TransferDecoder.uudecode(Array(input.utf8)[...]), [0x50, 0x4B, 0x03, 0x04])
    }

    func testDecodedPrefixReadsOnlyWhatItNeeds() {
        let payload = [UInt8](repeating: 0x41, count: 100_000)
        let encoded = Array(Data([0x50, 0x4B, 0x03, 0x04] + payload).base64EncodedString(options: .lineLength76Characters).utf8)
        let prefix = TransferDecoder.decodePrefix(encoded[...], encoding: .base64, maxBytes: 4)
        XCTAssertEqual(prefix, [0x50, 0x4B, 0x03, 0x04])
    }

    func testParsingDoesNotDecodeBodies() {
        // A base64 body full of junk parses instantly and decodes only when asked.
        let body = String(repeating: "!!!!", count: 10_000)
        let m = MIMEParser.parse(Array("Content-Transfer-Encoding: base64\n\n\(body)".utf8))
        XCTAssertEqual(m.rawBody(of: m.parts[0]).count, 40_000)
        XCTAssertEqual(m.decodedBody(of: m.parts[0]), [])
        XCTAssertEqual(m.buffers.count, 1)
    }
}
