import Foundation
import XCTest

/// `passconduit calendar` on real libraries, judged by a real calendar library (python3-icalendar)
/// and a real calendar program (khal): events, times and zones as the passes say.
final class CalendarTests: XCTestCase {
    override func setUp() { continueAfterFailure = false }
    override func tearDown() { FilterRun.cleanUp() }

    /// Every sample pass the library takes, then every real pass it takes: one .ics each, all valid,
    /// all importable, every event at a date its pass gives.
    func testSamplesAndRealPassesGiveCalendarsThatIcalendarAndKhalRead() throws {
        let sandbox = try Sandbox()
        let samples = try FileManager.default.contentsOfDirectory(atPath: Run.sample("passes"))
            .filter { $0.hasSuffix(".pkpass") && !$0.hasPrefix("bad-") }.sorted().map { URL(fileURLWithPath: Run.sample("passes/" + $0)) }
        let real = HandOn.realPasses
        XCTAssertGreaterThan(real.count, 50, "the real corpus is missing")
        let added = try sandbox.run("add", ["--yes", "--allow-untrusted"] + (try HandOn.onePerPass(samples)).map(\.path))
        XCTAssertEqual(added.status, 0, added.stderr)
        let sampleICS = sandbox.dir.appendingPathComponent("samples.ics")
        let r1 = try sandbox.run("calendar", ["-o", sampleICS.path])
        XCTAssertEqual(r1.status, 0, r1.stderr)

        let realSandbox = try Sandbox()
        _ = try realSandbox.run("add", ["--yes", "--allow-untrusted"] + (try HandOn.onePerPass(real)).map(\.path))
        let listed = try realSandbox.run("list", ["--json"])
        let stored = listed.objects.count
        XCTAssertGreaterThan(stored, 25, "the real passes that verify are stored")
        let realICS = sandbox.dir.appendingPathComponent("real.ics")
        let r2 = try realSandbox.run("calendar", ["-o", realICS.path])
        XCTAssertEqual(r2.status, 0, r2.stderr)

        let events = try HandOn.checkICS([sampleICS, realICS], passes: samples + real)
        // The samples with dates: the event ticket (relevantDate) and the boarding pass (relevantDates).
        XCTAssertEqual(events.filter { ($0["file"] as? String) == sampleICS.path }.count, 2)
        XCTAssertGreaterThan(events.filter { ($0["file"] as? String) == realICS.path }.count, 5)
        let lines = try HandOn.khal([sampleICS, realICS], in: sandbox.dir)
        XCTAssertEqual(Set(lines.compactMap { $0.split(separator: "|").last.map(String.init) }),
                       Set(events.compactMap { $0["uid"] as? String }),
                       "khal lists every event the calendar has")
    }

    /// A concert shaped like the event-ticket sample, with a relevantDate of its own
    /// (2026-06-12T19:00:00+02:00): 19:00 at UTC+2 in icalendar and 17:00 UTC in khal.
    func testEventTicketKeepsItsOffsetAndShowsTheSameInstantInKhal() throws {
        let sandbox = try Sandbox()
        let forged = sandbox.dir.appendingPathComponent("concert.pkpass")
        try HandOn.forge(set: ["relevantDate": "2026-06-12T19:00:00+02:00", "serialNumber": "CAL-1",
                               "semantics": ["eventName": "Tests, Live; \\ at the Hall", "venueName": "Hall 1",
                                             "venueLocation": ["latitude": 52.52, "longitude": 13.405]]], to: forged)
        XCTAssertEqual(try sandbox.run("add", ["--yes", forged.path]).status, 0)
        let ics = sandbox.dir.appendingPathComponent("one.ics")
        let r = try sandbox.run("calendar", ["pass.org.passconduit.event/CAL-1", "-o", ics.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try HandOn.checkICS([ics], passes: [forged])
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events.first?["start"] as? String, "2026-06-12T19:00:00+02:00")
        XCTAssertEqual(events.first?["offset"] as? Int, 7200)
        XCTAssertEqual(events.first?["summary"] as? String, "Tests, Live; \\ at the Hall")
        XCTAssertEqual(events.first?["location"] as? String, "Hall 1")
        XCTAssertEqual(events.first?["geo"] as? [Double], [52.52, 13.405])
        XCTAssertNil(events.first?["end"] as? String, "no end time is guessed")
        let lines = try HandOn.khal([ics], in: sandbox.dir)
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.first?.hasPrefix("2026-06-12 17:00|") ?? false, lines.description)
    }

    /// Issue 40 item 6: a season ticket with two relevant intervals and upcoming events (iOS 26),
    /// one of them all day, one to be decided, and a pass of 1 000 entries: each dated entry is an
    /// event with its own UID that icalendar and khal read at the pass's time; the big pass's own
    /// event and its first 100 entries are written and standard error says how many were left out; the verdict stays valid.
    func testUpcomingEventsAreEventsOfTheirOwnAndAThousandAreBounded() throws {
        let sandbox = try Sandbox()
        let season = sandbox.dir.appendingPathComponent("season.pkpass")
        try HandOn.forge(set: [
            "serialNumber": "SEASON-1",
            "relevantDates": [["startDate": "2026-06-12T19:00:00+02:00", "endDate": "2026-06-12T23:00:00+02:00"],
                              ["startDate": "2026-06-19T19:00:00+02:00", "endDate": "2026-06-19T23:00:00+02:00"]],
            "upcomingPassInformation": [
                ["type": "event", "identifier": "m1", "name": "Match One",
                 "dateInformation": ["date": "2026-07-01T20:00:00+02:00"],
                 "semantics": ["venueName": "North Stadium", "eventEndDate": "2026-07-01T22:00:00+02:00"]],
                ["type": "event", "identifier": "fest", "name": "Festival Day",
                 "dateInformation": ["date": "2026-07-04T23:30:00-04:00", "isAllDay": true]],
                ["type": "event", "identifier": "final", "name": "The Final", "dateInformation": ["isUndetermined": true]],
            ],
        ], to: season)
        let big = sandbox.dir.appendingPathComponent("big.pkpass")
        let many: [[String: Any]] = (0..<1_000).map { n in
            ["type": "event", "identifier": "e\(n)", "name": "G\(n)",
             "dateInformation": ["date": String(format: "2027-%02d-%02dT19:00:00Z", n / 28 % 12 + 1, n % 28 + 1)]]
        }
        try HandOn.forge(set: ["serialNumber": "SEASON-BIG", "upcomingPassInformation": many], to: big)
        let scan = try sandbox.run("scan", ["--json", season.path, big.path])
        XCTAssertEqual(scan.objects.compactMap { $0["status"] as? String }, ["valid", "valid"], scan.stdout)
        XCTAssertEqual(try sandbox.run("add", ["--yes", season.path, big.path]).status, 0)

        let one = sandbox.dir.appendingPathComponent("season.ics")
        let r = try sandbox.run("calendar", ["pass.org.passconduit.event/SEASON-1", "-o", one.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try HandOn.checkICS([one], passes: [season])
        XCTAssertEqual(events.compactMap { $0["summary"] as? String }.count, 4, "\(events)")
        XCTAssertEqual(Set(events.compactMap { $0["uid"] as? String }).count, 4)
        let match = try XCTUnwrap(events.first { ($0["summary"] as? String) == "Match One" })
        XCTAssertEqual(match["start"] as? String, "2026-07-01T20:00:00+02:00")
        XCTAssertEqual(match["end"] as? String, "2026-07-01T22:00:00+02:00")
        XCTAssertEqual(match["location"] as? String, "North Stadium")
        XCTAssertEqual(events.first { ($0["summary"] as? String) == "Festival Day" }?["start"] as? String, "2026-07-04")
        let lines = try HandOn.khal([one], in: sandbox.dir)
        XCTAssertEqual(lines.count, 4, lines.description)
        XCTAssertTrue(lines.contains { $0.hasPrefix("2026-07-01 18:00|2026-07-01 20:00|Match One|") }, lines.description)

        let all = sandbox.dir.appendingPathComponent("big.ics")
        let bounded = try sandbox.run("calendar", ["pass.org.passconduit.event/SEASON-BIG", "-o", all.path])
        XCTAssertEqual(bounded.status, 0, bounded.stderr)
        XCTAssertTrue(bounded.stderr.contains("900 of its 1000 upcoming events are left out (the first 100 are written)"), bounded.stderr)
        XCTAssertTrue(bounded.stderr.contains("wrote 101 events"), "the pass's own date and 100 upcoming: \(bounded.stderr)")
        XCTAssertEqual(try HandOn.checkICS([all], passes: [big]).count, 101)
    }

    /// Hostile text in every field that reaches the .ics, and every date shape Wallet accepts.
    func testHostileStringsAndEveryDateShapeStayValidRFC5545() throws {
        let sandbox = try Sandbox()
        let long = String(repeating: "x😀é,;\\", count: 1_500)  // 10 500 characters, non-BMP, to escape
        let nasty = "A\r\nB\rC\nD;E,F\\G\u{0}H\u{7}I\u{2028}J 𝄞 \"quoted\" END:VEVENT\r\nBEGIN:VEVENT"
        let shapes = ["2026-06-12T20:00:00Z", "2026-06-12T20:00Z", "2026-06-12T20:00:00+05:30", "2026-06-12T20:00+0530",
                      "2026-06-12T20:00:00.250-08:00", "2026-06-12T20:00:00", "2026-06-12T20:00", "2026-06-12",
                      "2026-06-12 20:00:00+01:00", "2026-06-12T20:00:00-00:00", "2026-06-12T23:59:59+14:00"]
        let passFile = sandbox.dir.appendingPathComponent("hostile.pkpass")
        try HandOn.forge(set: [
            "serialNumber": "HOSTILE;\r\n1", "organizationName": nasty, "description": long,
            "relevantDates": shapes.map { ["startDate": $0] } + [["startDate": "2026-06-12T10:00+02:00", "endDate": "2026-06-12T09:00+02:00"]],
            "eventTicket": ["primaryFields": [["key": "a", "label": nasty, "value": long]],
                            "secondaryFields": [["key": "b", "label": long, "value": nasty]]],
            "semantics": ["venueName": nasty, "venueRoom": long, "venueLocation": ["latitude": 95, "longitude": 10]],
            "locations": [["latitude": -33.8688, "longitude": 151.2093, "relevantText": nasty]],
        ], to: passFile)
        let added = try sandbox.run("add", ["--yes", passFile.path])
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        let ics = sandbox.dir.appendingPathComponent("hostile.ics")
        let r = try sandbox.run("calendar", ["-o", ics.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try HandOn.checkICS([ics], passes: [passFile])
        XCTAssertEqual(events.count, shapes.count + 1)
        let expectedText = "A\nB\nC\nD;E,F\\G H I\nJ 𝄞 \"quoted\" END:VEVENT\nBEGIN:VEVENT"
        XCTAssertEqual(events.first?["location"] as? String, expectedText + ", " + long, "text round-trips through escaping")
        XCTAssertTrue((events.first?["description"] as? String)?.contains(long) ?? false)
        XCTAssertEqual(events.first?["geo"] as? [Double], [-33.8688, 151.2093], "a latitude of 95 is no place: the pass's location is")
        XCTAssertNil(events.last?["end"] as? String, "an end before the start is dropped, not kept")
        let text = try String(contentsOf: ics, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: "BEGIN:VEVENT\r\n").count - 1, shapes.count + 1, "no injected component")
        let lines = try HandOn.khal([ics], in: sandbox.dir)
        XCTAssertEqual(lines.count, shapes.count + 1)
    }

    /// A re-export after an update keeps the UIDs and raises SEQUENCE: khal updates, not duplicates.
    func testReExportAfterAnUpdateUpdatesTheSameEvents() throws {
        let sandbox = try Sandbox()
        let v1 = sandbox.dir.appendingPathComponent("v1.pkpass"), v2 = sandbox.dir.appendingPathComponent("v2.pkpass")
        try HandOn.forge(set: ["serialNumber": "UPD-1", "relevantDate": "2026-06-12T19:00:00+02:00"], to: v1)
        sleep(1)  // the update must be signed later
        try HandOn.forge(set: ["serialNumber": "UPD-1", "relevantDate": "2026-06-12T20:30:00+02:00"], to: v2)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)
        let first = sandbox.dir.appendingPathComponent("first.ics"), second = sandbox.dir.appendingPathComponent("second.ics")
        XCTAssertEqual(try sandbox.run("calendar", ["-o", first.path]).status, 0)
        let updated = try sandbox.run("add", ["--yes", v2.path])
        XCTAssertEqual(updated.status, 0, updated.stdout)
        XCTAssertEqual(try sandbox.run("calendar", ["-o", second.path]).status, 0)
        let a = try HandOn.checkICS([first], passes: [v1]), b = try HandOn.checkICS([second], passes: [v2])
        XCTAssertEqual(a.first?["uid"] as? String, b.first?["uid"] as? String)
        XCTAssertEqual(a.first?["sequence"] as? Int, 0)
        XCTAssertEqual(b.first?["sequence"] as? Int, 1)
        let lines = try HandOn.khal([first], in: sandbox.dir)
        XCTAssertEqual(lines.count, 1)
        let after = try HandOn.khal([second], in: sandbox.dir)
        XCTAssertEqual(after.count, 1, "the second import replaced the event: \(after)")
        XCTAssertTrue(after.first?.hasPrefix("2026-06-12 18:30|") ?? false, after.description)
    }

    /// `calendar --alarm` (issue 43 item 3): a reminder in each event, with each kind's own lead
    /// time ("kind": 3 hours before a flight, a day before an event) or one for every event, read
    /// back by python3-icalendar and khal; a cancelled event (a voided pass) reminds of nothing,
    /// and without --alarm the calendar is what it was.
    func testAlarmsRemindEachKindAtItsLeadTimeAndIcalendarAndKhalReadThem() throws {
        let sandbox = try Sandbox()
        let concert = sandbox.dir.appendingPathComponent("concert.pkpass"), flight = sandbox.dir.appendingPathComponent("flight.pkpass")
        let voided = sandbox.dir.appendingPathComponent("voided.pkpass")
        try HandOn.forge(set: ["serialNumber": "ALARM-1", "relevantDate": "2031-06-12T19:00:00+02:00"], to: concert)
        try HandOn.forge("boarding-pass.pkpass", signer: "boarding", set: ["serialNumber": "ALARM-2", "relevantDates": [["date": "2031-07-01T07:45:00+02:00"]]],
                         remove: ["relevantDate", "semantics"], to: flight)
        try HandOn.forge(set: ["serialNumber": "ALARM-3", "voided": true, "relevantDate": "2031-06-13T19:00Z"], to: voided)
        XCTAssertEqual(try sandbox.run("add", ["--yes", concert.path, flight.path, voided.path]).status, 0)
        let byKind = sandbox.dir.appendingPathComponent("kind.ics"), fixed = sandbox.dir.appendingPathComponent("fixed.ics")
        let plain = sandbox.dir.appendingPathComponent("plain.ics")
        let r1 = try sandbox.run("calendar", ["--alarm", "kind", "-o", byKind.path])
        XCTAssertEqual(r1.status, 0, r1.stderr)
        XCTAssertEqual(try sandbox.run("calendar", ["--alarm", "1h30m", "-o", fixed.path]).status, 0)
        XCTAssertEqual(try sandbox.run("calendar", ["-o", plain.path]).status, 0)

        let kindEvents = try HandOn.checkICS([byKind], passes: [concert, flight, voided])
        XCTAssertEqual(kindEvents.count, 3)
        for event in kindEvents {
            let found = event["alarms"] as? [[String: Any]] ?? []
            switch event["status"] as? String {
            case "CANCELLED":
                XCTAssertEqual(found.count, 0, "a cancelled event reminds of nothing: \(event)")
            default:
                XCTAssertEqual(found.count, 1, "\(event)")
                XCTAssertEqual(found.first?["action"] as? String, "DISPLAY")
                XCTAssertEqual(found.first?["description"] as? String, event["summary"] as? String)
                let start = event["start"] as? String ?? ""
                XCTAssertEqual(found.first?["seconds"] as? Int, start.hasPrefix("2031-07-01") ? -3 * 3600 : -24 * 3600, "\(event)")
            }
        }
        let fixedEvents = try HandOn.checkICS([fixed], passes: [concert, flight, voided])
        XCTAssertEqual(fixedEvents.compactMap { ($0["alarms"] as? [[String: Any]])?.first?["seconds"] as? Int }, [-5400, -5400])
        XCTAssertTrue(try HandOn.checkICS([plain], passes: [concert, flight, voided]).allSatisfy { ($0["alarms"] as? [Any])?.isEmpty ?? false })
        XCTAssertFalse(try String(contentsOf: plain, encoding: .utf8).contains("VALARM"))

        // khal, a real calendar program, sees the reminders: its alarm symbol on the two live events.
        let lines = try HandOn.khal([byKind], in: sandbox.dir, format: "{alarm-symbol}|{title}|{uid}")
        XCTAssertEqual(lines.count, 3, lines.description)
        XCTAssertEqual(lines.filter { !$0.hasPrefix("|") }.count, 2, "khal shows an alarm on the two live events: \(lines)")

        let bad = try sandbox.run("calendar", ["--alarm", "soon"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("--alarm wants a lead time such as 3h"), bad.stderr)
        // Zero without a unit, a negative lead (not read as options -3 and -h), more than four weeks, words.
        for text in ["0", "-3h", "400d", "abc"] {
            let refused = try sandbox.run("calendar", ["--alarm", text, "-o", sandbox.dir.appendingPathComponent("bad.ics").path])
            XCTAssertEqual(refused.status, 64, "--alarm \(text): \(refused.stdout) \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("--alarm wants a lead time such as 3h, 90m, 1d or 1h30m (at most 4w), or \"kind\"; not \(text)"),
                          refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.dir.appendingPathComponent("bad.ics").path))
        }
    }

    func testVoidedPassGivesACancelledEventAndANamedPassWithoutDateIsAnError() throws {
        let sandbox = try Sandbox()
        let voided = sandbox.dir.appendingPathComponent("voided.pkpass"), undated = sandbox.dir.appendingPathComponent("undated.pkpass")
        try HandOn.forge(set: ["serialNumber": "VOID-1", "voided": true, "relevantDate": "2026-06-12T19:00Z"], to: voided)
        try HandOn.forge(set: ["serialNumber": "NODATE-1"], remove: ["relevantDate", "relevantDates", "semantics"], to: undated)
        XCTAssertEqual(try sandbox.run("add", ["--yes", voided.path, undated.path]).status, 0)
        let ics = sandbox.dir.appendingPathComponent("v.ics")
        XCTAssertEqual(try sandbox.run("calendar", ["-o", ics.path]).status, 0)
        let events = try HandOn.checkICS([ics], passes: [voided, undated])
        XCTAssertEqual(events.count, 1)
        XCTAssertEqual(events.first?["status"] as? String, "CANCELLED")
        let named = try sandbox.run("calendar", ["pass.org.passconduit.event/NODATE-1"])
        XCTAssertEqual(named.status, 66)
        XCTAssertTrue(named.stderr.contains("has no date"), named.stderr)
    }
}
