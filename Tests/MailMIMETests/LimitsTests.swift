import XCTest
@testable import MailMIME

final class LimitsTests: XCTestCase {
    func testDefaultLimitsMatchTheIssue() {
        XCTAssertEqual(MIMELimits.default.maxDepth, 128)
        XCTAssertEqual(MIMELimits.default.maxParts, 10_000)
    }
}
