import Foundation
import XCTest

/// Issue 40 item 1: `show --verbose` says which layout the pass is drawn in ("Drawn as") and, when
/// a poster scheme was asked for and not used, the required key that was missing; and it prints
/// the warnings pass.json gave (they were collected and printed nowhere).
final class SchemeShowTests: XCTestCase {
    static var semantics: [String: Any] { [
        "eventName": "Spring Gala", "venueName": "Royal Hall", "venueRegionName": "London",
        "venueRoom": "Main Auditorium", "eventType": "PKEventTypeGeneric", "eventStartDate": "2026-05-01T19:30:00+01:00",
    ] }

    /// The sample ticket's strip image, shipped again as the poster's artwork.
    func artwork() throws -> String {
        let bytes = try HandOn.run("/usr/bin/python3", ["-c", """
            import base64, sys, zipfile
            print(base64.b64encode(zipfile.ZipFile(sys.argv[1]).read("strip@2x.png")).decode())
            """, Run.sample("passes/event-ticket.pkpass")])
        return bytes.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testShowVerboseNamesTheSchemeTheFallbackReasonAndTheWarnings() throws {
        let sandbox = try Sandbox()
        let art = try artwork()
        let poster = sandbox.dir.appendingPathComponent("poster.pkpass")
        try HandOn.forge(set: ["serialNumber": "POSTER-1", "preferredStyleSchemes": ["posterEventTicket", "eventTicket"],
                              "semantics": Self.semantics, "__files__": ["artwork@2x.png": art]], to: poster)
        var missing = Self.semantics
        missing.removeValue(forKey: "venueName")
        let fallback = sandbox.dir.appendingPathComponent("fallback.pkpass")
        try HandOn.forge(set: ["serialNumber": "POSTER-2", "preferredStyleSchemes": ["posterEventTicket", "eventTicket"],
                              "semantics": missing, "__files__": ["artwork@2x.png": art],
                              "footerBackgroundColor": "not a colour"], to: fallback)
        let wrongType = sandbox.dir.appendingPathComponent("wrong.pkpass")
        try HandOn.forge(set: ["serialNumber": "POSTER-3", "preferredStyleSchemes": ["posterEventTicket"],
                              "semantics": "Spring Gala"], to: wrongType)
        let add = try sandbox.run("add", ["--yes", poster.path, fallback.path, wrongType.path])
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)

        let plain = try sandbox.run("show", ["POSTER-1"].map { "pass.org.passconduit.event/" + $0 })
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stdout.contains("Drawn as"), "only --verbose says it: \(plain.stdout)")

        let one = try sandbox.run("show", ["--verbose", "pass.org.passconduit.event/POSTER-1"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("\n  Drawn as    poster event ticket\n"), one.stdout)
        XCTAssertFalse(one.stdout.contains("Warning"), one.stdout)

        let two = try sandbox.run("show", ["--verbose", "pass.org.passconduit.event/POSTER-2"])
        XCTAssertEqual(two.status, 0, two.stderr)
        XCTAssertTrue(two.stdout.contains("\n  Drawn as    event ticket (poster layout not used: semantics.venueName is missing)\n"), two.stdout)
        XCTAssertTrue(two.stdout.contains("\n  Warning     footerBackgroundColor is not a colour: not a colour\n"), two.stdout)

        let three = try sandbox.run("show", ["--verbose", "pass.org.passconduit.event/POSTER-3"])
        XCTAssertEqual(three.status, 0, three.stderr)
        XCTAssertTrue(three.stdout.contains("\n  Drawn as    event ticket (poster layout not used: semantics is a string, not an object)\n"), three.stdout)
        XCTAssertTrue(three.stdout.contains("\n  Warning     semantics is a string, not an object; it is ignored\n"), three.stdout)
        XCTAssertTrue(three.stdout.contains("Status      valid"), "the scheme never changes the verdict: \(three.stdout)")
    }

    /// A required tag of the wrong type (Apple wants text): the classic card, the reason in
    /// `show --verbose`, the verdict unchanged; `render` draws the classic ticket too.
    func testARequiredTagOfTheWrongTypeFallsBackAndShowSaysWhich() throws {
        let sandbox = try Sandbox()
        var semantics = Self.semantics
        semantics["venueRoom"] = 42
        let pass = sandbox.dir.appendingPathComponent("number.pkpass")
        try HandOn.forge(set: ["serialNumber": "POSTER-4", "preferredStyleSchemes": ["posterEventTicket", "eventTicket"],
                              "semantics": semantics, "__files__": ["artwork@2x.png": try artwork()]], to: pass)
        let add = try sandbox.run("add", ["--yes", pass.path])
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        let show = try sandbox.run("show", ["--verbose", "pass.org.passconduit.event/POSTER-4"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("\n  Drawn as    event ticket (poster layout not used: semantics.venueRoom is a number, not text)\n"),
                      show.stdout)
        XCTAssertTrue(show.stdout.contains("Status      valid"), show.stdout)
        XCTAssertFalse(show.stdout.contains("On the card ("), "a classic card lists its fields: \(show.stdout)")
        let html = sandbox.dir.appendingPathComponent("number.html")
        let render = try sandbox.run("render", ["--format", "html", "-o", html.path, pass.path])
        XCTAssertEqual(render.status, 0, render.stderr)
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertTrue(page.contains("<section class=\"card eventTicket\""), "the classic ticket is drawn")
        XCTAssertFalse(page.contains("data-scheme="), "not the poster")
    }
}
