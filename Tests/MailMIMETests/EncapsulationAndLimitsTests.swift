import XCTest
@testable import MailMIME

final class EncapsulationAndLimitsTests: XCTestCase {
    func testMessageRFC822IsParsedRecursivelyWithIMAPPaths() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary=o

        --o

        hello
        --o
        Content-Type: message/rfc822

        Subject: forwarded
        Content-Type: multipart/mixed; boundary=i

        --i

        inner text
        --i
        Content-Type: application/vnd.apple.pkpass
        Content-Disposition: attachment; filename="pass.pkpass"

        PK
        --i--
        --o
        Content-Type: message/global

        Subject: single

        single body
        --o--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "2", "2.TEXT", "2.1", "2.2", "3", "3.1"], ending)
            XCTAssertEqual(m.part("2")?.isEncapsulatedMessage, true, ending)
            XCTAssertEqual(m.part("3")?.isEncapsulatedMessage, true, ending)
            XCTAssertEqual(m.part("2.2")?.filename, "pass.pkpass", ending)
            XCTAssertEqual(m.decodedText("2.2"), "PK", ending)
            XCTAssertEqual(m.decodedText("3.1"), "single body", ending)
            XCTAssertEqual(m.part("2.TEXT")?.depth, 2, ending)
            XCTAssertEqual(m.part("2.1")?.depth, 3, ending)
            XCTAssertEqual(m.headerFields(of: m.part("2.TEXT")!).first?.value, "forwarded", ending)
            XCTAssertTrue(m.defects.isEmpty, "\(ending): \(m.defects)")
        }
    }

    func testEncapsulatedMessageStartingWithAFromLineIsParsed() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary=o

        --o
        Content-Type: message/rfc822

        From someone@example.com Tue May 10 11:28:07 2005
        Content-Type: application/vnd.apple.pkpass; name=p.pkpass

        PK
        --o--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.part("1.1")?.contentType.mimeType, "application/vnd.apple.pkpass", ending)
            XCTAssertEqual(m.part("1.1")?.filename, "p.pkpass", ending)
            XCTAssertTrue(m.defects.isEmpty, "\(ending): \(m.defects)")
        }
    }

    func testBase64EncodedMessageRFC822IsDecodedAndParsed() {
        let inner = "Subject: inner\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: application/vnd.apple.pkpass; name=t.pkpass\r\n\r\nPKDATA\r\n--x--\r\n"
        let encoded = Data(inner.utf8).base64EncodedString(options: .lineLength76Characters)
        withBothLineEndings("Content-Type: multipart/mixed; boundary=o\n\n--o\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n\(encoded)\n--o--\n") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "1.TEXT", "1.1"], ending)
            XCTAssertEqual(m.part("1")?.isEncapsulatedMessage, true, ending)
            let pass = m.part("1.1")!
            XCTAssertEqual(pass.filename, "t.pkpass", ending)
            XCTAssertEqual(pass.buffer, 1, ending)
            XCTAssertEqual(m.decodedText("1.1"), "PKDATA", ending)
            XCTAssertEqual(pass.parent, 2, ending)
            XCTAssertEqual(m.part("1.TEXT")?.parent, 1, ending)
            XCTAssertEqual(m.defectCodes, [.encodedMessage], ending)
        }
    }

    func testNestedEncodedMessagesStayWithinTheDepthCap() {
        var message = "Subject: leaf\n\nleaf body\n"
        for _ in 0..<10 {
            let encoded = Data(message.utf8).base64EncodedString()
            message = "Content-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n\(encoded)\n"
        }
        var limits = MIMELimits()
        limits.maxDepth = 6
        let m = MIMEParser.parse(Array(message.utf8), limits: limits)
        XCTAssertTrue(m.defectCodes.contains(.nestingTooDeep))
        XCTAssertLessThanOrEqual(m.parts.map(\.depth).max() ?? 0, 6)
    }

    func testDeepMultipartNestingIsCappedAndRecorded() {
        var text = ""
        for i in 0..<300 { text += "Content-Type: multipart/mixed; boundary=b\(i)\n\n--b\(i)\n" }
        text += "Content-Type: application/vnd.apple.pkpass\n\nPK\n"
        for i in (0..<300).reversed() { text += "--b\(i)--\n" }
        let m = MIMEParser.parse(Array(text.utf8))
        XCTAssertEqual(m.parts.map(\.depth).max(), 128)
        XCTAssertTrue(m.defectCodes.contains(.nestingTooDeep))
        // The capped entity is a leaf holding the rest, so the pass is still in its raw body.
        let capped = m.parts.last!
        XCTAssertFalse(capped.isMultipart)
        XCTAssertTrue(String(decoding: m.rawBody(of: capped), as: UTF8.self).contains("vnd.apple.pkpass"))
    }

    func testPartCapIsRecordedAndParsingFinishes() {
        var limits = MIMELimits()
        limits.maxParts = 50
        var text = "Content-Type: multipart/mixed; boundary=b\n\n"
        for i in 0..<1000 { text += "--b\n\npart \(i)\n" }
        text += "--b--\n"
        let m = MIMEParser.parse(Array(text.utf8), limits: limits)
        XCTAssertEqual(m.parts.count, 50)
        XCTAssertEqual(m.defectCodes.filter { $0 == .tooManyParts }.count, 1)
        XCTAssertEqual(m.decodedText("49"), "part 48")
    }

    func testTenThousandPartsParseQuickly() {
        var text = "Content-Type: multipart/mixed; boundary=b\n\n"
        for i in 0..<20_000 { text += "--b\n\n\(i)\n" }
        let start = Date()
        let m = MIMEParser.parse(Array(text.utf8))
        XCTAssertEqual(m.parts.count, 10_000)
        XCTAssertTrue(m.defectCodes.contains(.tooManyParts))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    func testMessageOverTheSizeLimitIsParsedOnlyUpToIt() {
        var limits = MIMELimits()
        limits.maxMessageBytes = 100
        let m = MIMEParser.parse(Array(("Subject: big\n\n" + String(repeating: "x", count: 1000)).utf8), limits: limits)
        XCTAssertEqual(m.subject, "big")
        XCTAssertEqual(m.defectCodes.first, .messageTooLarge)
        XCTAssertEqual(m.buffers[0].count, 100)
    }

    func testEveryPrefixOfARealNestedMessageParsesWithinItsBuffer() throws {
        // RFC 2049 appendix A's example (stalwart rfc/000.eml): nested multiparts and a message/rfc822.
        let bytes = try fixtureBytes("stalwart/rfc/000.eml")
        for n in stride(from: 0, through: bytes.count, by: 1) {
            let m = MIMEParser.parse(Array(bytes[..<n]))
            for part in m.parts {
                XCTAssertLessThanOrEqual(part.headerRange.upperBound, part.bodyRange.lowerBound, "prefix \(n)")
                XCTAssertLessThanOrEqual(part.bodyRange.upperBound, m.buffers[part.buffer].count, "prefix \(n)")
            }
        }
        XCTAssertEqual(MIMEParser.parse(bytes).parts.count, 9)
    }

    func testEveryPrefixOfAMessageParsesWithoutCrashing() {
        let text = """
        Subject: =?UTF-8?Q?prefix?=
        Content-Type: multipart/mixed; boundary="o"

        --o
        Content-Type: text/plain; charset*=utf-8''%C3%BC

        text
        --o
        Content-Type: message/rfc822
        Content-Transfer-Encoding: base64

        U3ViamVjdDogaQoKYm9keQo=
        --o
        Content-Type: application/octet-stream; name*0*=utf-8''a; name*1=".pkpass"
        Content-Transfer-Encoding: quoted-printable

        PK=03=04=
        --o--
        """
        withBothLineEndings(text) { bytes, ending in
            for n in 0...bytes.count {
                let m = MIMEParser.parse(Array(bytes[..<n]))
                XCTAssertFalse(m.parts.isEmpty, "\(ending) prefix \(n)")
                for part in m.parts {
                    XCTAssertLessThanOrEqual(part.bodyRange.upperBound, m.buffers[part.buffer].count)
                    _ = m.decodedBody(of: part)
                }
            }
            let full = MIMEParser.parse(bytes)
            XCTAssertEqual(full.parts.map(\.path), ["", "1", "2", "2.1", "3"], ending)
            XCTAssertEqual(full.part("3")?.filename, "a.pkpass", ending)
            XCTAssertEqual(full.decodedBody(of: full.part("3")!), [0x50, 0x4B, 0x03, 0x04], ending)
        }
    }
}
