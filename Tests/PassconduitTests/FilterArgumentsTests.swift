import Foundation
import XCTest
@testable import passconduit

/// The pipe process's own parts: lenient arguments and the environment read from `environ`.
final class FilterArgumentsTests: XCTestCase {
    func testArgumentsAreParsedLenientlyAndProblemsRecorded() {
        let a = FilterArguments(["--no-headers", "--deadline=0.5", "--max-size", "100", "--frobnicate", "--log", "loud", "-x", "--deadline"])
        XCTAssertFalse(a.options.headers)
        XCTAssertEqual(a.options.deadlineSeconds, 0.5)
        XCTAssertEqual(a.options.maxScanBytes, 100)
        XCTAssertTrue(a.options.failClosed)
        XCTAssertEqual(a.problems, ["unknown argument --frobnicate", "--log wants file, syslog or none, not loud", "--deadline needs a value"])
    }

    func testEnvironmentIsReadFromEnviron() {
        XCTAssertEqual(FilterCommand.currentEnvironment()["PATH"], ProcessInfo.processInfo.environment["PATH"])
    }
}
