import XCTest
@testable import MailMIME

final class MultipartTests: XCTestCase {
    func testMultipartChildrenGetIMAPPathsAndPreambleEpilogueAreNotParts() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary="outer"

        preamble --outer text
        --outer
        Content-Type: text/plain

        first
        --outer
        Content-Type: multipart/alternative; boundary=inner

        --inner

        alt one
        --inner
        Content-Type: text/html

        <p>alt two</p>
        --inner--
        --outer
        Content-Type: application/vnd.apple.pkpass; name=ticket.pkpass
        Content-Transfer-Encoding: base64

        UEsDBA==
        --outer--
        epilogue
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "2", "2.1", "2.2", "3"], ending)
            XCTAssertEqual(m.parts.map(\.contentType.mimeType),
                           ["multipart/mixed", "text/plain", "multipart/alternative", "text/plain", "text/html", "application/vnd.apple.pkpass"], ending)
            XCTAssertEqual(m.parts.map(\.depth), [0, 1, 1, 2, 2, 1], ending)
            XCTAssertEqual(m.parts.map(\.parent), [nil, 0, 0, 2, 2, 0], ending)
            XCTAssertEqual(m.decodedText("1"), "first", ending)
            XCTAssertEqual(m.decodedText("2.1"), "alt one", ending)
            XCTAssertEqual(m.decodedText("2.2"), "<p>alt two</p>", ending)
            XCTAssertEqual(m.part("3")?.filename, "ticket.pkpass", ending)
            XCTAssertEqual(m.decodedBody(of: m.part("3")!), [0x50, 0x4B, 0x03, 0x04], ending)
            XCTAssertTrue(m.defects.isEmpty, "\(ending): \(m.defects)")
            // The root's raw body is everything after its header, epilogue included.
            XCTAssertTrue(m.rawText("")!.hasSuffix("epilogue"), ending)
        }
    }

    func testBoundaryThatIsPrefixOfInnerBoundaryDoesNotSplitIt() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary="b"

        --b
        Content-Type: multipart/mixed; boundary="b-1"

        --b-1

        inner one
        --b-1

        inner two
        --b-1--
        --b

        outer two
        --b--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "1.1", "1.2", "2"], ending)
            XCTAssertEqual(m.decodedText("1.1"), "inner one", ending)
            XCTAssertEqual(m.decodedText("1.2"), "inner two", ending)
            XCTAssertEqual(m.decodedText("2"), "outer two", ending)
            XCTAssertTrue(m.defects.isEmpty, "\(ending): \(m.defects)")
        }
    }

    func testInnerBoundaryThatIsPrefixOfOuterDoesNotEndTheOuterOne() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary="b-1"

        --b-1
        Content-Type: multipart/mixed; boundary="b"

        --b

        inner
        --b--
        --b-1

        outer two
        --b-1--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "1.1", "2"], ending)
            XCTAssertEqual(m.decodedText("1.1"), "inner", ending)
            XCTAssertEqual(m.decodedText("2"), "outer two", ending)
        }
    }

    func testBoundaryLineMayEndInWhitespaceButNothingElse() {
        let text = "Content-Type: multipart/mixed; boundary=b\n\n--b \t\n\none\n--bx\nstill one\n--b--  \n"
        let m = MIMEParser.parse(Array(text.utf8))
        XCTAssertEqual(m.parts.map(\.path), ["", "1"])
        XCTAssertEqual(m.decodedText("1"), "one\n--bx\nstill one")
        XCTAssertTrue(m.defects.isEmpty, "\(m.defects)")
    }

    func testMissingCloseBoundaryEndsThePartAtTheEnd() {
        withBothLineEndings("Content-Type: multipart/mixed; boundary=b\n\n--b\n\nonly part\nno close\n") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1"], ending)
            XCTAssertEqual(m.decodedText("1"), ending == "LF" ? "only part\nno close\n" : "only part\r\nno close\r\n", ending)
            XCTAssertEqual(m.defectCodes, [.missingCloseBoundary], ending)
        }
    }

    func testChildWithoutCloseIsEndedByParentBoundary() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary=outer

        --outer
        Content-Type: multipart/alternative; boundary=inner

        --inner

        child text
        --outer
        Content-Type: application/octet-stream; name=a.pkpass

        data
        --outer--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "1.1", "2"], ending)
            XCTAssertEqual(m.decodedText("1.1"), "child text", ending)
            XCTAssertEqual(m.part("2")?.filename, "a.pkpass", ending)
            XCTAssertEqual(m.decodedText("2"), "data", ending)
            XCTAssertEqual(m.defectCodes, [.missingCloseBoundary], ending)
            XCTAssertEqual(m.part("1")?.defects.map(\.code), [.missingCloseBoundary], ending)
        }
    }

    func testBoundaryTextInThePreambleOnlyCountsAsAWholeLine() {
        withBothLineEndings("""
        Content-Type: multipart/mixed; boundary=sep

        This preamble mentions --sep in the middle of a line,
         --sep indented,
        and --sep-not-quite.
        --sep-not-quite
        --sep

        real part
        --sep--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1"], ending)
            XCTAssertEqual(m.decodedText("1"), "real part", ending)
        }
    }

    func testVeryLongBoundaryWorks() {
        let boundary = String(repeating: "x", count: 8000)
        withBothLineEndings("Content-Type: multipart/mixed;\n boundary=\"\(boundary)\"\n\n--\(boundary)\n\npart\n--\(boundary)--\n") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1"], ending)
            XCTAssertEqual(m.decodedText("1"), "part", ending)
        }
    }

    func testMultipartWithoutBoundaryIsALeafWithADefect() {
        withBothLineEndings("Content-Type: multipart/mixed\n\n--x\n\nbody\n--x--\n") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.count, 1, ending)
            XCTAssertFalse(m.parts[0].isMultipart, ending)
            XCTAssertEqual(m.parts[0].path, "1", ending)
            XCTAssertEqual(m.defectCodes, [.multipartWithoutBoundary], ending)
        }
    }

    func testBoundaryThatNeverAppearsLeavesNoChildren() {
        let m = MIMEParser.parse(Array("Content-Type: multipart/mixed; boundary=zz\n\n--yy\n\nbody\n".utf8))
        XCTAssertEqual(m.parts.count, 1)
        XCTAssertFalse(m.parts[0].isMultipart, "an opaque multipart is a leaf, so callers sniff its body")
        XCTAssertEqual(m.parts[0].path, "1")
        XCTAssertEqual(m.parts[0].contentType.mimeType, "multipart/mixed")
        XCTAssertEqual(m.defectCodes, [.boundaryNotFound])
    }

    func testPartWithoutBlankLineBeforeNextBoundary() {
        withBothLineEndings("Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\n--b\n\nsecond\n--b--\n") { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.contentType.mimeType), ["multipart/mixed", "text/html", "text/plain"], ending)
            XCTAssertEqual(m.decodedText("1"), "", ending)
            XCTAssertEqual(m.decodedText("2"), "second", ending)
        }
    }

    func testDigestChildrenDefaultToMessageRFC822() {
        withBothLineEndings("""
        Content-Type: multipart/digest; boundary=d

        --d

        Subject: inner

        inner body
        --d--
        """) { bytes, ending in
            let m = MIMEParser.parse(bytes)
            XCTAssertEqual(m.parts.map(\.path), ["", "1", "1.1"], ending)
            XCTAssertEqual(m.part("1")?.contentType.mimeType, "message/rfc822", ending)
            XCTAssertEqual(m.part("1")?.isEncapsulatedMessage, true, ending)
            XCTAssertEqual(m.decodedText("1.1"), "inner body", ending)
        }
    }

    func testDuplicateContentTypeFirstOneWins() {
        let m = MIMEParser.parse(Array("Content-Type: multipart/alternative; boundary=a\nContent-Type: text/plain\n\n--a\n\nx\n--a--\n".utf8))
        XCTAssertEqual(m.parts[0].contentType.mimeType, "multipart/alternative")
        XCTAssertEqual(m.parts.count, 2)
        XCTAssertTrue(m.defectCodes.contains(.duplicateContentHeader))
    }

    func testInvalidContentTypeFallsBackToTextPlainButKeepsItsName() {
        let m = MIMEParser.parse(Array("Content-Type: application; name=\"ticket.pkpass\"; boundary=x\n\nx".utf8))
        XCTAssertEqual(m.parts[0].contentType.mimeType, "text/plain")
        XCTAssertEqual(m.parts[0].filename, "ticket.pkpass")
        XCTAssertNil(m.parts[0].contentType.boundary)
        XCTAssertEqual(m.defectCodes, [.invalidContentType])
    }

    func testParametersWithoutSemicolonStillCount() {
        let m = MIMEParser.parse(Array("Content-Type: multipart/mixed\n\tboundary=\"b\"\n\n--b\n\none\n--b--\n".utf8))
        XCTAssertEqual(m.parts.map(\.path), ["", "1"])
    }
}
