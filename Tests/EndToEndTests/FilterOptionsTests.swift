import Foundation
import XCTest

/// The delivery filter and the global options (issue 9 item 3): the ones it can honour are
/// honoured, an unknown one is visible in the log ("not scanned: unknown option --x") while the
/// message still passes unchanged with exit 0, and `filter --check` tells an administrator.
final class FilterOptionsTests: XCTestCase {
    override class func tearDown() { FilterRun.cleanUp() }

    var trust: String { FilterMail.repositoryRoot.appendingPathComponent("Samples/ca/trust").path }

    func message() throws -> [UInt8] {
        FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))], subject: "options")
    }

    func logLines(_ home: URL) -> [String] {
        let log = home.appendingPathComponent("state/passconduit/filter.log")
        return ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// `filter --verbose` and `filter --json` passed mail through unscanned ("unknown argument").
    func testGlobalOptionsTheFilterCanHonourStillScan() throws {
        let home = FilterRun.directory("global")
        let r = try FilterRun.filter(try message(), arguments: ["--verbose", "--json", "--no-color", "--lang", "de", "--trust", trust,
                                                                "--library", home.appendingPathComponent("lib.sqlite").path],
                                     environment: FilterRun.environment(home))
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stderr, [])
        let own = FilterPromise.ownHeaderLines(r.stdout)
        XCTAssertEqual(own.first, "X-Passconduit: 1 pass (1 new)", "\(own) \(logLines(home))")
        let line = try XCTUnwrap(logLines(home).last)
        XCTAssertTrue(line.contains("result=headers"), line)
        // --verbose: each pass's error code ("-" for none) and the library used.
        XCTAssertNotNil(line.range(of: #"pass=new/offered/pass\.org\.passconduit\.event,[0-9a-f]{12}/- "#, options: .regularExpression), line)
        XCTAssertTrue(line.contains("library=\"\(home.appendingPathComponent("lib.sqlite").path)\""), line)
        XCTAssertFalse(line.contains("error="), line)
    }

    func testUnknownOptionPassesTheMessageUnchangedAndTheLogSaysWhy() throws {
        let home = FilterRun.directory("unknown")
        let input = try message()
        let r = try FilterRun.filter(input, arguments: ["--trust", trust, "--frobnicate"], environment: FilterRun.environment(home))
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stdout == input, "the message changed")
        XCTAssertEqual(r.stderr, [])
        let line = try XCTUnwrap(logLines(home).last)
        XCTAssertTrue(line.contains("result=unchanged"), line)
        XCTAssertTrue(line.contains("detail=\"not scanned: unknown option --frobnicate\""), line)
    }

    func runCheck(_ arguments: [String], home: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        // No stdin: the check reads no message (a filter would wait for one).
        let r = try FilterRun.run(executable: Binary.url, arguments: ["filter"] + arguments + ["--check"], input: [],
                                  environment: FilterRun.environment(home))
        return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
    }

    /// An administrator runs the recipe's command line once with --check: the reason, non-zero.
    func testCheckValidatesArgumentsConfigAndTrustAndSaysWhy() throws {
        let home = FilterRun.directory("check")
        let ok = try runCheck(["--trust", trust, "--log", "none"], home: home)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.hasPrefix("passconduit filter --check: ok"), ok.stdout)
        XCTAssertTrue(ok.stdout.contains(trust), ok.stdout)

        let unknown = try runCheck(["--trust", trust, "--frobnicate"], home: home)
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("passconduit filter --check: unknown option --frobnicate"), unknown.stderr)
        XCTAssertEqual(unknown.stdout, "")

        let config = home.appendingPathComponent("broken.toml")
        try "[filter]\ndeadline-seconds = \"soon\"\n".write(to: config, atomically: true, encoding: .utf8)
        let broken = try runCheck(["--config", config.path], home: home)
        XCTAssertEqual(broken.status, 78, broken.stderr)
        XCTAssertTrue(broken.stderr.contains(config.path), broken.stderr)

        let missing = try runCheck(["--trust", home.appendingPathComponent("no-such-trust").path], home: home)
        XCTAssertEqual(missing.status, 78, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("no-such-trust"), missing.stderr)

        let json = try runCheck(["--trust", trust, "--json", "--bogus"], home: home)
        XCTAssertEqual(json.status, 64)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(object["ok"] as? Bool, false)
        XCTAssertEqual(object["problems"] as? [String], ["unknown option --bogus"])
    }
}
