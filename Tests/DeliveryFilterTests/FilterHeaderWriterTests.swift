import XCTest
@testable import DeliveryFilter

final class FilterHeaderWriterTests: XCTestCase {
    let writer = FilterHeaderWriter()

    private func lines(_ bytes: [UInt8], ending: String = "\n") -> [String] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: ending).dropLast().map { $0 }
    }

    /// Every header line is printable US-ASCII, at most 998 octets, and the block unfolds into
    /// exactly `fields` fields.
    private func assertWellFormed(_ bytes: [UInt8], fields: Int, ending: [UInt8] = [10], file: StaticString = #filePath, line: UInt = #line) {
        var current: [UInt8] = []
        var lineCount = 0
        var fieldCount = 0
        var i = 0
        while i < bytes.count {
            if bytes[i...].starts(with: ending) {
                XCTAssertLessThanOrEqual(current.count, 998, file: file, line: line)
                XCTAssertFalse(current.isEmpty, "empty line inside the header block", file: file, line: line)
                if let first = current.first, first != 0x20 && first != 0x09 { fieldCount += 1 }
                lineCount += 1
                current = []
                i += ending.count
                continue
            }
            let b = bytes[i]
            XCTAssertTrue(b >= 0x20 && b < 0x7F, "byte \(b) in a header line", file: file, line: line)
            current.append(b)
            i += 1
        }
        XCTAssertTrue(current.isEmpty, "unterminated last line", file: file, line: line)
        XCTAssertEqual(fieldCount, fields, file: file, line: line)
        XCTAssertGreaterThan(lineCount, 0, file: file, line: line)
    }

    func testSummaryCountsCategoriesInFixedOrder() {
        let reports = [FilterPassReport(status: .valid, library: .update),
                       FilterPassReport(status: .valid, library: .new),
                       FilterPassReport(status: .invalid, library: nil, errorCode: "not-a-zip")]
        XCTAssertEqual(writer.summary(reports), "3 passes (1 new, 1 update, 1 invalid)")
        XCTAssertEqual(writer.summary([FilterPassReport(status: .valid, library: .new)]), "1 pass (1 new)")
    }

    func testPassLineNamesStatusStateTypeSerialAndOrganization() {
        let r = FilterPassReport(status: .valid, library: .new, passTypeIdentifier: "pass.com.example.event",
                                 serialNumber: "E-1", organizationName: "Example Events")
        let out = writer.headerBytes(for: [r], lineEnding: [10])
        XCTAssertEqual(lines(out), ["X-Passconduit: 1 pass (1 new)",
                                    "X-Passconduit-Pass: valid; new; type=pass.com.example.event; serial=E-1;",
                                    " org=\"Example Events\""])
        assertWellFormed(out, fields: 2)
    }

    func testOrganizationWithCRLFInjectionYieldsOneCleanHeader() {
        let r = FilterPassReport(status: .valid, library: .new, passTypeIdentifier: "pass.x",
                                 serialNumber: "1", organizationName: "Evil\r\nBcc: x")
        let out = writer.headerBytes(for: [r], lineEnding: [13, 10])
        assertWellFormed(out, fields: 2, ending: [13, 10])
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.contains("org=\"Evil Bcc: x\""), text)
        XCTAssertFalse(text.contains("\r\nBcc"), text)
    }

    func testNULAndControlsBecomeSpacesAndBidiOverridesVanish() {
        let r = FilterPassReport(status: .valid, library: .new, passTypeIdentifier: "a\u{0}b\u{7F}c\u{1B}[31m",
                                 serialNumber: "s\u{202E}1", organizationName: "\u{85}Org\u{2028}Name\t")
        let out = writer.headerBytes(for: [r], lineEnding: [10])
        assertWellFormed(out, fields: 2)
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.contains("type=\"a b c [31m\""), text)
        XCTAssertTrue(text.contains("serial=s1"), text)
        XCTAssertTrue(text.contains("org=\"Org Name\""), text)
    }

    func testNonASCIIIsRFC2047EncodedOutsideQuotes() {
        let r = FilterPassReport(status: .valid, library: .new, passTypeIdentifier: "pass.x", serialNumber: "1",
                                 organizationName: "Café Zürich 🎫")
        let out = writer.headerBytes(for: [r], lineEnding: [10])
        assertWellFormed(out, fields: 2)
        let text = String(decoding: out, as: UTF8.self).replacingOccurrences(of: "\n ", with: " ")   // unfolded
        XCTAssertTrue(text.contains("org= =?UTF-8?Q?Caf=C3=A9_Z=C3=BCrich_=F0=9F=8E=AB?="), text)
    }

    func testTenKilobyteValuesAreCutAndLinesStayShort() {
        let long = String(repeating: "ü", count: 10_000)
        let r = FilterPassReport(status: .valid, library: .new, passTypeIdentifier: String(repeating: "t", count: 10_000),
                                 serialNumber: long, organizationName: String(repeating: "Org ", count: 3000))
        let out = writer.headerBytes(for: [r], lineEnding: [10])
        assertWellFormed(out, fields: 2)
        XCTAssertLessThan(out.count, 4000)
        for line in lines(out) { XCTAssertLessThanOrEqual(line.utf8.count, 200, line) }
    }

    func testQuotesAndBackslashesAreEscapedInQuotedStrings() {
        let r = FilterPassReport(status: .valid, library: .new, organizationName: #"A "quoted" \ name"#)
        let text = String(decoding: writer.headerBytes(for: [r], lineEnding: [10]), as: UTF8.self)
        XCTAssertTrue(text.contains(#"org="A \"quoted\""#), text)
        XCTAssertTrue(text.contains(#" \\ name""#), text)
    }

    func testInvalidPassCarriesItsErrorCodeAndForgedStatusWordsAreTokenized() {
        let r = FilterPassReport(status: .invalid, library: nil, errorCode: "manifest-mismatch;\r\nX: y")
        let text = String(decoding: writer.headerBytes(for: [r], lineEnding: [10]), as: UTF8.self)
        XCTAssertEqual(text, "X-Passconduit: 1 pass (1 invalid)\nX-Passconduit-Pass: invalid; unknown; error=manifest-mismatchXy\n")
    }

    func testManyPassesAreSummarizedAndLinesCapped() {
        let reports = (0..<100).map { FilterPassReport(status: .valid, library: .new, serialNumber: "\($0)") }
        let out = writer.headerBytes(for: reports, lineEnding: [10])
        assertWellFormed(out, fields: 1 + writer.maxPassLines)
        XCTAssertTrue(String(decoding: out, as: UTF8.self).hasPrefix("X-Passconduit: 100 passes (100 new)\n"))
    }

    func testNoReportsNoHeaders() {
        XCTAssertEqual(writer.headerBytes(for: [], lineEnding: [10]), [])
    }
}
