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
