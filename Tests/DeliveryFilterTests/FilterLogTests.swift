import Foundation
import XCTest
@testable import DeliveryFilter

final class FilterLogTests: XCTestCase {
    let newPass = FilterPassReport(status: .valid, library: .new, action: .offered, passTypeIdentifier: "pass.com.example.event",
                                   serialNumber: "E-1", organizationName: "Example")

    func testLogLineCarriesOutcomeCountsAndNoAddresses() {
        var plan = FilterPlan(byteCount: 1234)
        plan.output = .rewritten(HeaderEdits(), layout: FilterMessageLayout(insertionOffset: 0, lineEnding: [10], ownFields: []))
        plan.reports = [newPass]
        let line = FilterLog.line(for: plan, elapsed: 0.01234, wroteOutput: true)
        XCTAssertTrue(line.contains(" result=headers bytes=1234 passes=\"1 pass (1 new)\" pass=new/offered/pass.com.example.event,- ms=12.3"), line)
        XCTAssertTrue(line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ pid=\d+ "#, options: .regularExpression) != nil, line)
    }

    /// A PostgreSQL library location may carry a password (`postgresql://u:secret@h/db`, or
    /// `password=`): the verbose log names the server, never the password.
    func testVerboseLogNamesTheLibraryWithoutItsPassword() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("filterlog-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        var log = FilterLog(destination: .file, environment: ["XDG_STATE_HOME": state.path])
        log.verbose = true
        log.libraryPath = "postgresql://mail:s3cret@db.example/passes?password=other&sslmode=require"
        log.record(FilterPlan(byteCount: 10), elapsed: 0.001, wroteOutput: true)
        let written = try String(contentsOf: state.appendingPathComponent("passconduit/filter.log"), encoding: .utf8)
        XCTAssertTrue(written.contains(#"library="postgresql://mail@db.example/passes?password="#), written)
        XCTAssertTrue(written.contains(#"&sslmode=require""#), written)
        XCTAssertFalse(written.contains("s3cret"), written)
        XCTAssertFalse(written.contains("other"), written)
    }
}
