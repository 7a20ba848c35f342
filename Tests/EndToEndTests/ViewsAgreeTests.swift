import Foundation
import XCTest

/// Issue 9 item 8: views that agree, and exit codes that say the same thing for the same fault.
final class ViewsAgreeTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    static let event = "pass.org.passconduit.event/EVT-2026-0001"

    /// Without the test CA, today's re-check says "untrusted": show keeps the stored "valid" (as
    /// list does) and puts the re-check beside it with the reason; show --json says which is which.
    func testShowAndListGiveTheStoredVerdictAndShowAddsADifferingRecheck() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let withoutTrust = ["--library", sandbox.library]

        let show = try sandbox.run("show", withoutTrust + [Self.event], common: false)
        XCTAssertEqual(show.status, 0, show.stderr)
        // One plain clause, not three nested ones (issue 26 item 12).
        XCTAssertTrue(show.stdout.contains("  Status      valid (today: untrusted; its signer is not among today's trust anchors; give the --trust folder it was added with)\n"), show.stdout)
        let list = try sandbox.run("list", withoutTrust, common: false)
        XCTAssertFalse(list.stdout.contains("untrusted"), list.stdout)

        let json = try XCTUnwrap(try sandbox.run("show", withoutTrust + ["--json", Self.event], common: false).objects.first)
        XCTAssertEqual(json["status"] as? String, "valid")
        let verification = try XCTUnwrap(json["verification"] as? [String: Any])
        XCTAssertEqual(verification["stored"] as? String, "valid")
        XCTAssertEqual(verification["today"] as? String, "untrusted")
        XCTAssertEqual(verification["agrees"] as? Bool, false)
        XCTAssertNotNil(verification["reason"] as? String)

        // With the anchors it was added under, they agree and nothing is added beside it.
        let agreeing = try sandbox.run("show", [Self.event])
        XCTAssertTrue(agreeing.stdout.contains("  Status      valid\n"), agreeing.stdout)
        let agreeingJSON = try XCTUnwrap(try sandbox.run("show", ["--json", Self.event]).objects.first?["verification"] as? [String: Any])
        XCTAssertEqual(agreeingJSON["agrees"] as? Bool, true)
        XCTAssertTrue(agreeingJSON["reason"] is NSNull)
    }

    func testListShowsTimesWithTheirZoneAndHonoursLang() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass"), Run.sample("passes/localized.pkpass")]).status, 0)
        let list = try sandbox.run("list")
        XCTAssertTrue(list.stdout.contains("Fri 12 Jun 2037, 17:00 UTC  "), list.stdout)
        let german = try sandbox.run("list", ["--lang", "de"])
        XCTAssertTrue(german.stdout.contains("Passconduit Bibliothek · Bibliotheksausweis"), german.stdout)
        let french = try sandbox.run("list", ["--lang", "fr"])
        XCTAssertTrue(french.stdout.contains("Bibliothèque Passconduit"), french.stdout)
        XCTAssertTrue(try sandbox.run("list", ["--lang", "de", "--json"]).objects.contains { $0["organizationName"] as? String == "Passconduit Bibliothek" })
    }

    func testCommandsWithoutJSONOutputRefuseJSON() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        for (command, arguments) in [("add", ["--yes", Run.sample("passes/boarding-pass.pkpass")]),
                                     ("remove", ["--yes", Self.event]), ("export", ["-o", "x.pkpass", Self.event])] {
            let run = try sandbox.run(command, ["--json"] + arguments)
            XCTAssertEqual(run.status, 64, "\(command): \(run.stdout) \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("--json: \(command) "), run.stderr)
        }
        // Nothing was done.
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.dir.appendingPathComponent("x.pkpass").path))
    }

    func testAReadOnlyScanCreatesNoLibrary() throws {
        let scan = try sandbox.run("scan", ["--json", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        XCTAssertEqual(scan.objects.first?["library"] as? String, "new")
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.library), "scan created \(sandbox.library)")
        XCTAssertEqual(scan.stderr, "")
    }

    func testExitCodes() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let badID = try sandbox.run("show", ["not an id!"])
        XCTAssertEqual(badID.status, 64, badID.stderr)
        XCTAssertTrue(badID.stderr.contains("is not a pass ID"), badID.stderr)
        XCTAssertEqual(try sandbox.run("export", ["-o", "x", "zz"]).status, 64)
        XCTAssertEqual(try sandbox.run("show", ["pass.org.example/none"]).status, 66)
        XCTAssertEqual(try sandbox.run("show", ["abcdef0123"]).status, 66)
        let field = try sandbox.run("show", [Self.event, "--field", "no-such-field"])
        XCTAssertEqual(field.status, 65, field.stderr)

        // A trust folder the config names but that is missing: a configuration error.
        let config = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("[trust]\ndirectories = [\"/nonexistent/passconduit-trust\"]\n".utf8).write(to: config.appendingPathComponent("config.toml"))
        let configured = try sandbox.run("scan", [Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(configured.status, 78, configured.stderr)
        XCTAssertTrue(configured.stderr.contains("/nonexistent/passconduit-trust: no such file or folder"), configured.stderr)
        XCTAssertTrue(configured.stderr.contains("config.toml"), configured.stderr)
        try FileManager.default.removeItem(at: config.appendingPathComponent("config.toml"))

        // A --trust folder that is missing is a missing input; one that is empty is warned about.
        let missing = try sandbox.run("scan", ["--trust", "/nonexistent/trust-here", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        let empty = sandbox.dir.appendingPathComponent("empty-trust")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let warned = try sandbox.run("scan", ["--trust", empty.path, Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(warned.status, 0, warned.stderr)
        XCTAssertTrue(warned.stderr.contains("\(empty.path): no certificate"), warned.stderr)
        XCTAssertFalse(try sandbox.run("scan", [Run.sample("passes/event-ticket.pkpass")]).stderr.contains("no certificate"))
    }
}

/// Issue 26 items 6 and 7: a day without a time is that day in every view, whatever the zone;
/// `list` follows LANG, LC_MESSAGES and LC_ALL like every other command.
final class DayAndLanguageTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    /// `relevantDate: "2027-03-06"` was "Fri 5 Mar 2027, 19:00 GMT-5" in New York in scan, list
    /// and show (midnight UTC moved to the zone), while the calendar made it an all-day event on
    /// 6 March. Every view now says Sat 6 Mar 2027.
    func testADateOnlyRelevantDateIsThatDayInEveryZone() throws {
        let sandbox = try Sandbox()
        let pass = sandbox.dir.appendingPathComponent("day.pkpass")
        try HandOn.forge(set: ["relevantDate": "2027-03-06", "serialNumber": "DAY-1"], to: pass)
        for zone in ["America/New_York", "Asia/Tokyo", "UTC"] {
            let scan = try sandbox.run("scan", [pass.path], environment: ["TZ": zone])
            XCTAssertTrue(scan.stdout.contains("When        Sat 6 Mar 2027\n"), "\(zone): \(scan.stdout)")
        }
        XCTAssertEqual(try sandbox.run("add", ["--yes", pass.path]).status, 0)
        for zone in ["America/New_York", "Asia/Tokyo"] {
            let list = try sandbox.run("list", [], environment: ["TZ": zone])
            XCTAssertTrue(list.stdout.contains("  Sat 6 Mar 2027  "), "\(zone): \(list.stdout)")
            let show = try sandbox.run("show", ["--no-barcode", "pass.org.passconduit.event/DAY-1"], environment: ["TZ": zone])
            XCTAssertTrue(show.stdout.contains("When        Sat 6 Mar 2027\n"), "\(zone): \(show.stdout)")
        }
        // A time keeps its time and zone.
        let timed = try sandbox.run("scan", [Run.sample("passes/event-ticket.pkpass")], environment: ["TZ": "America/New_York"])
        XCTAssertTrue(timed.stdout.contains("When        Fri 12 Jun 2037, 13:00 "), timed.stdout)
    }

    /// `list` took its language only from --lang; LANG, LC_MESSAGES and LC_ALL were ignored,
    /// though its help and every other command follow them.
    func testListFollowsTheLanguageOfTheEnvironment() throws {
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/localized.pkpass")]).status, 0)
        let german = try sandbox.run("list", [], environment: ["LANG": "de_DE.UTF-8"])
        XCTAssertTrue(german.stdout.contains("Passconduit Bibliothek · Bibliotheksausweis"), german.stdout)
        let messages = try sandbox.run("list", [], environment: ["LANG": "C.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"])
        XCTAssertTrue(messages.stdout.contains("Bibliothèque Passconduit"), messages.stdout)
        let all = try sandbox.run("list", ["--json"], environment: ["LANG": "fr_FR.UTF-8", "LC_ALL": "de_DE.UTF-8"])
        XCTAssertTrue(all.objects.contains { $0["organizationName"] as? String == "Passconduit Bibliothek" }, all.stdout)
        // --lang still wins, and it agrees with show.
        let flag = try sandbox.run("list", ["--lang", "fr"], environment: ["LANG": "de_DE.UTF-8"])
        XCTAssertTrue(flag.stdout.contains("Bibliothèque Passconduit"), flag.stdout)
    }
}
