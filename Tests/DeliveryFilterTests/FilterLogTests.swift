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
}
