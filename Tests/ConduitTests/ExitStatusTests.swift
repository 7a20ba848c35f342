import XCTest
@testable import Conduit

final class ExitStatusTests: XCTestCase {
    func testSysexitsValues() {
        XCTAssertEqual(ExitStatus.usage.rawValue, 64)
        XCTAssertEqual(ExitStatus.tempFailure.rawValue, 75)
    }
}
