import XCTest
@testable import DeliveryFilter

/// A log line is always one line: what an error message carries (newlines, CR, escapes) never
/// starts a new one, and a very long line is cut on a character boundary.
final class FilterLogLineTests: XCTestCase {
    func testControlCharactersNeverBreakALine() {
        XCTAssertEqual(FilterLog.oneLine("reload failed: line 1\nline 2\r\n\u{1B}[31m"), "reload failed: line 1?line 2???[31m")
        XCTAssertEqual(FilterLog.oneLine("pass=valid/offered library=\"/var/lib/é\" ms=1.0"), "pass=valid/offered library=\"/var/lib/é\" ms=1.0")
    }

    func testALongLineIsCutOnACharacterBoundary() {
        // "e" + combining acute: two scalars, one character; a cut never splits them.
        let long = String(repeating: "e\u{301}", count: FilterLog.maxLineScalars)
        let cut = FilterLog.oneLine(long)
        XCTAssertLessThanOrEqual(cut.unicodeScalars.count, FilterLog.maxLineScalars)
        XCTAssertTrue(cut.hasSuffix("…"))
        XCTAssertEqual(cut.dropLast().unicodeScalars.count % 2, 0, "a character was split")
        XCTAssertTrue(cut.dropLast().allSatisfy { $0 == "e\u{301}" })
    }

    func testTheLogFileGetsExactlyOneLinePerRecord() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pc-log-line-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var log = FilterLog(destination: .file, environment: [:])
        log.path = folder.path + "/milter.log"
        XCTAssertNil(log.problem())
        log.record("first\nsecond")
        log.record("third")
        let text = try String(contentsOfFile: folder.path + "/milter.log", encoding: .utf8)
        XCTAssertEqual(text, "first?second\nthird\n")
    }

    func testALogThatCannotBeWrittenIsAProblemWithItsReason() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pc-log-file-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("x".utf8).write(to: file)
        var log = FilterLog(destination: .file, environment: [:])
        log.path = file.path + "/state/milter.log"
        XCTAssertEqual(log.problem(), "cannot write the log file \(file.path)/state/milter.log: Not a directory")
        log.destination = .syslog
        XCTAssertNil(log.problem())
    }
}
