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
        XCTAssertEqual(a.problems, ["unknown option --frobnicate", "--log wants file, syslog or none, not loud", "--deadline needs a value"])
        XCTAssertEqual(FilterArguments(["stray"]).problems, ["unexpected argument stray"])
    }

    /// The README says every command takes these; the filter took them for unknown and passed
    /// mail through unscanned.
    func testGlobalOptionsAreAccepted() {
        let a = FilterArguments(["--verbose", "--json", "--no-color", "--lang", "de", "--trust", "/t", "--library", "/l",
                                 "--config", "/c", "--check"])
        XCTAssertEqual(a.problems, [])
        XCTAssertTrue(a.options.verbose)
        XCTAssertTrue(a.json)
        XCTAssertTrue(a.wantsCheck)
        XCTAssertEqual(a.options.language, "de")
        XCTAssertEqual(a.options.trustDirectories, ["/t"])
        XCTAssertEqual(a.options.libraryPath, "/l")
        XCTAssertEqual(a.options.configPath, "/c")
        XCTAssertTrue(FilterArguments(["-v"]).options.verbose)
    }

    func testEnvironmentIsReadFromEnviron() {
        XCTAssertEqual(FilterCommand.currentEnvironment()["PATH"], ProcessInfo.processInfo.environment["PATH"])
    }
}
