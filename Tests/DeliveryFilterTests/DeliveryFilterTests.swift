import XCTest
import Foundation
@testable import DeliveryFilter

final class DeliveryFilterTests: XCTestCase {
    let newPass = FilterPassReport(status: .valid, library: .new, action: .offered, passTypeIdentifier: "pass.com.example.event",
                                   serialNumber: "E-1", organizationName: "Example")

    private func run(_ message: String, reports: [FilterPassReport], options: FilterOptions = FilterOptions(),
                     isolation: FilterScanIsolation = .inline) -> (String?, FilterPlan) {
        let filter = DeliveryFilter(options: options)
        let runner = FilterScanRunner(isolation: isolation, deadlineSeconds: options.deadlineSeconds)
        let (out, plan) = filter.filter(Array(message.utf8), runner: runner) { FixedScanner(reports: reports) }
        return (out.map { String(decoding: $0, as: UTF8.self) }, plan)
    }

    func testNoPassMeansByteIdenticalOutput() {
        let m = "From a@b Sat\nSubject: x\n\nbody"
        let (out, plan) = run(m, reports: [])
        XCTAssertEqual(out, m)
        XCTAssertEqual(plan.output, .unchanged)
    }

    func testHeadersGoAfterFromLineInTheMessagesLineEnding() {
        let m = "From a@b Sat\r\nSubject: x\r\n\r\nbody\r\n"
        let (out, _) = run(m, reports: [newPass])
        XCTAssertEqual(out, "From a@b Sat\r\nX-Passconduit: 1 pass (1 new)\r\n"
                       + "X-Passconduit-Pass: valid; new; action=offered; type=pass.com.example.event;\r\n serial=E-1; org=\"Example\"\r\n"
                       + "Subject: x\r\n\r\nbody\r\n")
    }

    func testForgedHeadersAreReplacedByOurs() {
        let m = "Subject: x\nX-Passconduit: 5 passes (5 update)\nX-Passconduit-Pass: valid; update;\n org=\"Bank\"\nTo: y\n\nbody\n"
        let (out, _) = run(m, reports: [newPass])
        XCTAssertEqual(out?.components(separatedBy: "X-Passconduit: ").count, 2)
        XCTAssertFalse(out?.contains("Bank") ?? true)
        XCTAssertTrue(out?.hasSuffix("Subject: x\nTo: y\n\nbody\n") ?? false)
    }

    func testForgedHeadersAreRemovedEvenWhenNoPassIsFound() {
        let (out, _) = run("X-Passconduit: 1 pass (1 new)\nSubject: x\n\nb\n", reports: [])
        XCTAssertEqual(out, "Subject: x\n\nb\n")
    }

    /// Issue 9 item 4: a spoofed header after a stray boundary line reached the mailbox.
    func testForgedHeaderAfterAMalformedLineIsRemovedAndTheRestKept() {
        let m = "Subject: x\n--boundary-out-of-place\nX-Passconduit: 1 pass (1 update)\nX-Passconduit-Pass: valid; update; org=\"Bank\"\nTo: y\n\nbody\n"
        let (out, _) = run(m, reports: [])
        XCTAssertEqual(out, "Subject: x\n--boundary-out-of-place\nTo: y\n\nbody\n")
        let (withPass, _) = run(m, reports: [newPass])
        XCTAssertFalse(withPass?.contains("Bank") ?? true)
        XCTAssertTrue(withPass?.hasSuffix("Subject: x\n--boundary-out-of-place\nTo: y\n\nbody\n") ?? false, withPass ?? "")
    }

    func testNoHeadersOptionAlwaysPassesTheInput() {
        var o = FilterOptions()
        o.headers = false
        let m = "X-Passconduit: forged\n\nb"
        XCTAssertEqual(run(m, reports: [newPass], options: o).0, m)
    }

    func testFilteringTwiceEqualsOnce() {
        for m in ["Subject: x\n\nb\n", "From x\r\nX-Passconduit: old\r\n\r\n", "no header at all", ""] {
            let once = run(m, reports: [newPass, newPass]).0 ?? ""
            let twice = run(once, reports: [newPass, newPass]).0
            XCTAssertEqual(twice, once)
        }
    }

    func testMessageStartingWithAFoldedLineGetsNoHeadersSoNothingIsAdoptedOrLost() {
        let m = " looks folded\nSubject: x\n\nbody\n"
        XCTAssertEqual(run(m, reports: [newPass]).0, m)
    }

    func testScanFailurePassesOriginalUnchangedOrFailsClosed() {
        let m = "X-Passconduit: forged\nSubject: x\n\nb\n"
        let filter = DeliveryFilter(options: FilterOptions())
        let (out, plan) = filter.filter(Array(m.utf8), runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) { ThrowingScanner() }
        // Unscanned, but never with a forged field of our names (issue 27, defect 8).
        XCTAssertEqual(out, Array("Subject: x\n\nb\n".utf8))
        XCTAssertEqual(plan.error?.code, .scanFailed)

        var closed = FilterOptions()
        closed.failClosed = true
        let (none, plan2) = DeliveryFilter(options: closed).filter(Array(m.utf8), runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) { ThrowingScanner() }
        XCTAssertNil(none)
        XCTAssertTrue(plan2.retryLater)
    }

    func testDeadlinePassesTheMessageThrough() {
        var o = FilterOptions()
        o.deadlineSeconds = 0.2
        let filter = DeliveryFilter(options: o)
        let m = Array("Subject: x\n\nb\n".utf8)
        // A worker that never answers: the scan is cut at the deadline and the worker killed.
        let pool = ScanWorkerPool(command: .init(executable: "/bin/sleep", arguments: ["30"], environment: [:]))
        let (out, plan) = filter.filter(m, runner: FilterScanRunner(isolation: .worker(pool), deadlineSeconds: 0.2)) {
            FixedScanner(reports: [FilterPassReport(status: .valid, library: .new)])
        }
        XCTAssertEqual(out, m)
        XCTAssertEqual(plan.error?.code, .deadline)
    }

    func testOversizeMessagePassesUnscannedButLosesForgedHeaders() {
        var o = FilterOptions()
        o.maxScanBytes = 10
        let (out, plan) = run("X-Passconduit: forged\nSubject: a long enough message\n\nb\n", reports: [newPass], options: o)
        XCTAssertEqual(out, "Subject: a long enough message\n\nb\n")
        XCTAssertTrue(plan.oversize)
        XCTAssertEqual(plan.reports, [])
    }
}
