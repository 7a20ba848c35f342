import XCTest
@testable import DeliveryFilter

/// `HeaderEdits` is what a milter sends and what the pipe writes: both must describe the same change.
final class HeaderEditsTests: XCTestCase {
    private let report = FilterPassReport(status: .valid, library: .new, passTypeIdentifier: "pass.com.example.event",
                                          serialNumber: "E-1", organizationName: "Example")

    private func edits(_ message: String, reports: [FilterPassReport], headers: Bool = true) -> HeaderEdits {
        var options = FilterOptions()
        options.headers = headers
        return DeliveryFilter(options: options).headerEdits(for: ArraySlice(Array(message.utf8)), reports: reports)
    }

    func testRemovalsCountOccurrencesPerNameCaseInsensitivelyAsAMilterIndexesHeaders() {
        let s = "x-passconduit: a\nX-Passconduit-Pass: b\nSubject: s\nX-PASSCONDUIT: c\nX-Passconduit-pass: d\n folded\n\nX-Passconduit: body\n"
        let e = edits(s, reports: [])
        XCTAssertEqual(e.insert, [])
        XCTAssertEqual(e.remove.map(\.name), ["x-passconduit", "X-Passconduit-Pass", "X-PASSCONDUIT", "X-Passconduit-pass"])
        XCTAssertEqual(e.remove.map(\.occurrence), [1, 1, 2, 2])
        let bytes = Array(s.utf8)
        XCTAssertEqual(String(decoding: bytes[e.remove[3].range], as: UTF8.self), "X-Passconduit-pass: d\n folded\n")
    }

    func testInsertedFieldsAreTheSummaryThenOnePerPassWithUnfoldedValues() {
        let e = edits("Subject: s\n\nbody\n", reports: [report])
        XCTAssertEqual(e.insert.map(\.name), ["X-Passconduit", "X-Passconduit-Pass"])
        XCTAssertEqual(e.insert.map(\.value), ["1 pass (1 new)", "valid; new; type=pass.com.example.event; serial=E-1; org=\"Example\""])
        XCTAssertEqual(e.remove, [])
    }

    func testPipeOutputIsTheEditsAppliedToTheBytes() throws {
        let s = "From a@b Sat\nSubject: s\nX-Passconduit: 9 passes (9 new)\n\nbody\n"
        let filter = DeliveryFilter(options: FilterOptions())
        let report = self.report
        let (out, plan) = filter.filter(Array(s.utf8), runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) {
            FixedScanner(reports: [report])
        }
        let e = try XCTUnwrap(plan.edits)
        XCTAssertEqual(e, edits(s, reports: [report]))
        let expected = "From a@b Sat\n" + String(decoding: e.insertedLines(lineEnding: [10]), as: UTF8.self) + "Subject: s\n\nbody\n"
        XCTAssertEqual(String(decoding: try XCTUnwrap(out), as: UTF8.self), expected)
    }

    func testHeadersOffMeansNoEdits() {
        XCTAssertTrue(edits("X-Passconduit: forged\n\nb", reports: [report], headers: false).isEmpty)
    }

    func testLeadingContinuationLineGetsRemovalsButNoInsertions() {
        let e = edits(" folded\nX-Passconduit: forged\n\nb", reports: [report])
        XCTAssertEqual(e.insert, [])
        XCTAssertEqual(e.remove.map(\.occurrence), [1])
    }

    func testALongValueFoldsForThePipeAndTheMilterAlike() {
        let field = HeaderEdits.Field(name: "X-Passconduit-Pass", atoms: ["valid;", "new;", "org=\"" + String(repeating: "a", count: 70) + "\""])
        XCTAssertEqual(String(decoding: field.foldedValue(lineEnding: [10]), as: UTF8.self),
                       " valid; new;\n org=\"" + String(repeating: "a", count: 70) + "\"")
        XCTAssertEqual(field.line(lineEnding: [13, 10]),
                       Array("X-Passconduit-Pass:".utf8) + field.foldedValue(lineEnding: [13, 10]) + [13, 10])
        XCTAssertTrue(field.line(lineEnding: [10]).split(separator: 10).allSatisfy { $0.count <= HeaderEdits.maxLineLength })
    }
}
