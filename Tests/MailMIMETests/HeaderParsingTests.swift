import XCTest
@testable import MailMIME

final class HeaderParsingTests: XCTestCase {
    func testFoldedFieldsAreUnfoldedAndDuplicatesKeptInOrder() {
        withBothLineEndings("""
        Received: from a
        Subject: a long
         folded subject
        Received: from b
        \tby c

        body
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.headers.map(\.name), ["Received", "Subject", "Received"], ending)
            XCTAssertEqual(m.subject, "a long folded subject", ending)
            XCTAssertEqual(m.headers(named: "received").map(\.value), ["from a", "from b\tby c"], ending)
            XCTAssertEqual(m.decodedText("1"), "body", ending)
            XCTAssertTrue(m.defects.isEmpty, "\(ending) \(m.defects)")
        }
    }

    func testHeaderLookupIsCaseInsensitiveAndDecodesEncodedWords() {
        withBothLineEndings("""
        SUBJECT: =?UTF-8?B?VGlja2V0IGbDvHI=?= =?UTF-8?Q?_M=C3=BCnchen?=
        message-id:  <abc@example.com>

        x
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.subject, "Ticket für München", ending)
            XCTAssertEqual(m.messageID, "<abc@example.com>", ending)
        }
    }

    func testRaw8BitHeaderIsReadAsUTF8ThenWindows1252() {
        let utf8 = Array("Subject: Grüße\n\nx".utf8)
        XCTAssertEqual(MIMEParser.parse(utf8).subject, "Grüße")
        var latin1 = Array("Subject: Gr".utf8) + [0xFC] + Array("\n\nx".utf8)
        XCTAssertEqual(MIMEParser.parse(latin1).subject, "Grü")
        latin1 = Array("Subject: \u{80}".utf8)
        XCTAssertNotNil(MIMEParser.parse(latin1).subject)
    }

    func testObsoleteWhitespaceBeforeColonIsAccepted() {
        withBothLineEndings("Subject  : obsolete\nTo: a\n\nbody") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.subject, "obsolete", ending)
            XCTAssertEqual(m.headers.count, 2, ending)
        }
    }

    func testFirstLineThatIsNotAHeaderMakesEverythingBody() {
        withBothLineEndings("Hello there, no headers\nSubject: not a header now\n\nmore") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertTrue(m.headers.isEmpty, ending)
            XCTAssertEqual(m.defectCodes, [.missingHeaders], ending)
            XCTAssertEqual(m.parts.count, 1, ending)
            XCTAssertEqual(m.parts[0].contentType.mimeType, "text/plain", ending)
            XCTAssertTrue(m.rawText("1")!.hasPrefix("Hello there"), ending)
        }
    }

    func testNonHeaderLineEndsTheHeaderSectionWithADefect() {
        withBothLineEndings("Subject: s\nthis is body already\nsecond line") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.subject, "s", ending)
            XCTAssertEqual(m.defectCodes, [.missingHeaderBodySeparator], ending)
            XCTAssertTrue(m.rawText("1")!.hasPrefix("this is body already"), ending)
        }
    }

    func testHeaderSectionThatNeverEndsIsCappedAndTerminates() {
        var limits = MIMELimits()
        limits.maxHeaderBytes = 1000
        var text = ""
        for i in 0..<5000 { text += "X-Field-\(i): value\n" }
        let m = MIMEParser.parse(Array(text.utf8), limits: limits)
        XCTAssertTrue(m.defectCodes.contains(.headerTooLong))
        XCTAssertLessThan(m.headers.count, 100)
        XCTAssertEqual(m.parts.count, 1)
        XCTAssertEqual(m.parts[0].bodyRange.count, 0)
    }

    func testLeadingMboxFromLineIsSkipped() {
        let m = MIMEParser.parse(Array("From someone Sat Jan  1 00:00:00 2000\nSubject: s\n\nb".utf8))
        XCTAssertEqual(m.subject, "s")
        XCTAssertTrue(m.defects.isEmpty)
    }

    func testEmptyInputGivesOneEmptyPart() {
        let m = MIMEParser.parse([])
        XCTAssertEqual(m.parts.count, 1)
        XCTAssertEqual(m.parts[0].path, "1")
        XCTAssertTrue(m.decodedBody(of: m.parts[0]).isEmpty)
    }

    func testNULBytesAndLastLineWithoutNewline() {
        let bytes: [UInt8] = Array("Subject: a\u{0}b\nContent-Type: text/plain\n\nbody\u{0}with NUL".utf8)
        let m = MIMEParser.parse(bytes)
        XCTAssertEqual(m.subject, "a\u{0}b")
        XCTAssertEqual(m.decodedText("1"), "body\u{0}with NUL")
    }

    func testMixedLineEndingsInOneMessage() {
        let text = "Subject: mixed\r\nContent-Type: multipart/mixed; boundary=b\n\r\n--b\nContent-Type: text/plain\r\n\r\none\r\n--b\r\n\ntwo\n--b--\r\n"
        let m = MIMEParser.parse(Array(text.utf8))
        XCTAssertEqual(m.parts.map(\.path), ["", "1", "2"])
        XCTAssertEqual(m.decodedText("1"), "one")
        XCTAssertEqual(m.decodedText("2"), "two")
        XCTAssertTrue(m.defects.isEmpty, "\(m.defects)")
    }
}
