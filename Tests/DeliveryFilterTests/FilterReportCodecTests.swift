import XCTest
@testable import DeliveryFilter

final class FilterReportCodecTests: XCTestCase {
    let newPass = FilterPassReport(status: .valid, library: .new, action: .offered, passTypeIdentifier: "pass.com.example.event",
                                   serialNumber: "E-1", organizationName: "Example")

    func testReportsSurviveTheChildProcessCodec() {
        let reports = [newPass, FilterPassReport(status: .invalid, errorCode: "not-a-zip"),
                       FilterPassReport(status: .valid, library: .update, action: .updated, organizationName: "Ünïcode,:\r\n", sha256: "ab")]
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encode(reports)), .success(reports))
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encodeFailure("boom")), .failure(FilterError(.scanFailed, detail: "boom")))
        let good = FilterReportCodec.encode(reports)
        for cut in 0..<good.count { XCTAssertNil(FilterReportCodec.decode(Array(good.prefix(cut))), "prefix \(cut)") }
        XCTAssertNil(FilterReportCodec.decode(Array("R999999999:".utf8)))
    }

    func testAnUnavailableLibraryKeepsItsCodeAcrossTheProcessSoTheMessageWaits() throws {
        let down = FilterError(.libraryUnavailable, detail: "postgresql://db: cannot reach the server")
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encodeFailure(down)), .failure(down))
        XCTAssertTrue(down.retryLater)
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encodeFailure(FilterError(.scanFailed, detail: "x"))),
                       .failure(FilterError(.scanFailed, detail: "x")))
        // Without --fail-closed a failed scan passes the message; an unavailable library holds it (75).
        let filter = DeliveryFilter(options: FilterOptions())
        let held = filter.plan(try FilterSpool(bytes: Array("Subject: x\n\nbody\n".utf8))) { _ in .failure(down) }
        XCTAssertEqual(held.output, .nothing)
        let passed = filter.plan(try FilterSpool(bytes: Array("Subject: x\n\nbody\n".utf8))) { _ in .failure(FilterError(.scanFailed, detail: "x")) }
        XCTAssertEqual(passed.output, .unchanged)
    }
}

final class FilterLibraryNoteTests: XCTestCase {
    func testEachLibrarysOutcomeCrossesTheWorkerCodecAndNamesNoPassword() {
        let reports = [FilterPassReport(status: .valid, library: .new, action: .offered)]
        let notes = [
            FilterLibraryNote(library: FilterLibraryNote.name("postgresql://milter:s3cret@db.example/passes", user: "alice@example.org"),
                              outcome: FilterLibraryNote.outcome(of: reports)),
            FilterLibraryNote(library: FilterLibraryNote.name("/var/lib/pc/bob.sqlite"), outcome: "",
                              error: FilterError(.libraryFailed, detail: "read-only")),
        ]
        XCTAssertEqual(notes[0].library, "postgresql://milter@db.example/passes (user alice@example.org)")
        XCTAssertEqual(notes[0].outcome, "new/offered")
        let bytes = FilterReportCodec.encode(reports, libraries: notes)
        guard case .success(let decoded)? = FilterReportCodec.decodeNoted(bytes) else { return XCTFail("not decoded") }
        XCTAssertEqual(decoded.reports, reports)
        XCTAssertEqual(decoded.libraries, notes)
        XCTAssertEqual(FilterReportCodec.decode(bytes), .success(reports))
        for cut in 0..<bytes.count where cut != FilterReportCodec.encode(reports).count {
            XCTAssertNil(FilterReportCodec.decodeNoted(Array(bytes.prefix(cut))), "prefix \(cut)")
        }
        XCTAssertEqual(notes[1].logText, "library=\"/var/lib/pc/bob.sqlite\" library-error=library-failed library-detail=\"read-only\"")
        let failed = FilterError(.libraryFailed, detail: "locked")
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encodeFailure(failed)), .failure(failed))
    }

    /// A failed scan delivers the message without fields of our names (forged ones), and the
    /// library-error policy decides what a library's failure does.
    func testUnscannedMessagesLoseForgedFieldsAndTheLibraryPolicyDecides() throws {
        let input = Array("X-Passconduit: 9 passes (9 new)\nSubject: x\nx-passconduit-pass: forged\n continued\n\nbody\n".utf8)
        var options = FilterOptions()
        let filter = DeliveryFilter(options: options)
        let (out, plan) = filter.filter(input, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 30)) { ThrowingScanner() }
        XCTAssertEqual(plan.error?.code, .scanFailed)
        XCTAssertEqual(out.map { String(decoding: $0, as: UTF8.self) }, "Subject: x\n\nbody\n")
        XCTAssertEqual(filter.unscannedBytes(input), Array("Subject: x\n\nbody\n".utf8))
        let failed = FilterError(.libraryFailed, detail: "read-only")
        XCTAssertNotEqual(filter.plan(try FilterSpool(bytes: input)) { _ in .failure(failed) }.output, .nothing)
        options.onLibraryError = .tempfail
        XCTAssertEqual(DeliveryFilter(options: options).plan(try FilterSpool(bytes: input)) { _ in .failure(failed) }.output, .nothing)
        options.headers = false
        XCTAssertEqual(DeliveryFilter(options: options).unscannedBytes(input), input)
    }
}
