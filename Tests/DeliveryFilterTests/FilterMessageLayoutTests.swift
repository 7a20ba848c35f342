import XCTest
@testable import DeliveryFilter

final class FilterMessageLayoutTests: XCTestCase {
    private func locate(_ s: String, whole: Bool = true) -> FilterMessageLayout {
        FilterMessageLayout.locate(ArraySlice(Array(s.utf8)), isWholeMessage: whole)
    }

    private func removed(_ s: String, _ layout: FilterMessageLayout) -> [String] {
        let b = Array(s.utf8)
        return layout.ownFields.map { String(decoding: b[$0.range], as: UTF8.self) }
    }

    func testPlainMessageInsertsAtZeroWithLF() {
        let l = locate("Subject: x\nTo: y\n\nbody\n")
        XCTAssertEqual(l, FilterMessageLayout(insertionOffset: 0, lineEnding: [10], ownFields: []))
    }

    func testLeadingMboxFromLineStaysFirst() {
        let s = "From sender@example.org Sat Nov 21 12:00:00 2026\r\nSubject: x\r\n\r\nbody\r\n"
        let l = locate(s)
        XCTAssertEqual(l.insertionOffset, 50)
        XCTAssertEqual(l.lineEnding, [13, 10])
    }

    func testCRLFMessageGetsCRLF() {
        XCTAssertEqual(locate("Subject: x\r\n\r\nbody").lineEnding, [13, 10])
    }

    func testForgedFieldsWithContinuationLinesAreFoundInAnyCase() {
        let s = "Subject: x\nx-passconduit: 9 passes\n  (9 new)\nTo: y\nX-PASSCONDUIT-PASS : valid; new\nX-Passconduit-Other: kept\n\nX-Passconduit: in the body\n"
        let l = locate(s)
        XCTAssertEqual(removed(s, l), ["x-passconduit: 9 passes\n  (9 new)\n", "X-PASSCONDUIT-PASS : valid; new\n"])
    }

    func testForgedFieldAsLastLineOfHeaderOnlyMessage() {
        let s = "Subject: x\nX-Passconduit: 1 pass"
        XCTAssertEqual(removed(s, locate(s)), ["X-Passconduit: 1 pass"])
        // The same bytes as a truncated view: the field may go on, so it is left alone.
        XCTAssertEqual(removed(s, locate(s, whole: false)), [])
        XCTAssertEqual(removed(s + "\n", locate(s + "\n", whole: false)), [])
        XCTAssertEqual(removed(s + "\nTo: y\n", locate(s + "\nTo: y\n", whole: false)), ["X-Passconduit: 1 pass\n"])
    }

    /// A forged field after a line with no colon (a stray boundary) survived: the walk stopped at
    /// that line, while mail readers and Dovecot read on to the empty line. Now every field of our
    /// names up to the first empty line is found; the malformed lines themselves stay.
    func testForgedFieldsAfterMalformedLinesAreFoundUpToTheEmptyLine() {
        let s = "Subject: x\nnot a header line\nX-Passconduit: 1\n--b1\n  stray fold\nX-Passconduit-Pass: valid; new;\n org=\"Bank\"\nTo: y\n\nX-Passconduit: body\n"
        XCTAssertEqual(removed(s, locate(s)), ["X-Passconduit: 1\n", "X-Passconduit-Pass: valid; new;\n org=\"Bank\"\n"])
        let crlf = s.replacingOccurrences(of: "\n", with: "\r\n")
        XCTAssertEqual(removed(crlf, locate(crlf)), ["X-Passconduit: 1\r\n", "X-Passconduit-Pass: valid; new;\r\n org=\"Bank\"\r\n"])
        // A forged field as the very first line after a malformed one, with the From_ line kept first.
        let mbox = "From a@b Sat\n>From spoof\nX-Passconduit: 3 passes\n\nb\n"
        XCTAssertEqual(removed(mbox, locate(mbox)), ["X-Passconduit: 3 passes\n"])
    }

    func testLeadingContinuationLineForbidsInsertion() {
        XCTAssertFalse(locate(" folded\nSubject: x\n\n").canInsert)
        XCTAssertFalse(locate("From a b\n\tfolded\n\n").canInsert)
        XCTAssertTrue(locate("Subject: x\n").canInsert)
        XCTAssertTrue(locate("").canInsert)
    }

    func testNoNewlineAtAllAndEmptyInput() {
        XCTAssertEqual(locate(""), FilterMessageLayout(insertionOffset: 0, lineEnding: [10], ownFields: []))
        XCTAssertEqual(locate("From x").insertionOffset, 0)
        XCTAssertEqual(locate("\u{0}\u{1}garbage").ownFields, [])
    }
}
