import Foundation
import XCTest
@testable import PassCalendar
import WalletPass

/// The iCalendar text rules (RFC 5545 §3.1 folding, §3.3.11 TEXT) and which dates become events,
/// on passes built in memory (unsigned: the opener still reads their pass.json, which is all the
/// calendar needs). Real calendars reading the output: EndToEndTests.CalendarTests.
final class PassCalendarTests: XCTestCase {
    static let icon: [UInt8] = {
        // The smallest PNG signature + IHDR the opener reads as an image (1x1).
        let hex = "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out + [0x1f, 0x15, 0xc4, 0x89] + Array(repeating: 0, count: 16)
    }()

    func pass(_ extra: [String: Any], kind: String = "eventTicket") throws -> PassInfo {
        var json: [String: Any] = [
            "formatVersion": 1, "passTypeIdentifier": "pass.org.example.test", "serialNumber": "S-1",
            "teamIdentifier": "TEAM123456", "organizationName": "Example Hall", "description": "Concert ticket",
            kind: ["primaryFields": [["key": "event", "label": "Event", "value": "Night of Tests"]]],
        ]
        if kind == "boardingPass" { json[kind] = ["transitType": "PKTransitTypeAir"] }
        json.merge(extra) { $1 }
        var zip = ZipWriter()
        try zip.add("pass.json", [UInt8](try JSONSerialization.data(withJSONObject: json)), compression: .deflate)
        try zip.add("icon.png", Self.icon, compression: .store)
        let opener = PassOpener(trust: try TrustStore.load(directories: []))
        return try XCTUnwrap(opener.open(try zip.archive()).pass)
    }

    func events(_ extra: [String: Any], kind: String = "eventTicket") throws -> [PassEvent] {
        PassEvents.events(of: try pass(extra, kind: kind), sequence: 2, stamp: Date(timeIntervalSince1970: 1_700_000_000)).events
    }

    // MARK: - Text

    func testTextEscapesBackslashSemicolonCommaAndEveryLineBreak() {
        XCTAssertEqual(ContentLine.escape("a\\b;c,d\r\ne\rf\ng\u{2028}h"), "a\\\\b\\;c\\,d\\ne\\nf\\ng\\nh")
        XCTAssertEqual(ContentLine.escape("nul\u{0}bell\u{7}del\u{7F}tab\t"), "nul bell del tab\t")
    }

    func testFoldingNeverPassesSeventyFiveOctetsNorSplitsUTF8() {
        let value = String(repeating: "é😀a€", count: 2_500)  // non-BMP, 2- and 3-byte sequences
        let folded = ContentLine.fold("SUMMARY:" + value)
        XCTAssertTrue(folded.hasSuffix("\r\n"))
        let physical = folded.utf8.split(separator: 0x0A).map { Array($0) }
        for line in physical {
            XCTAssertEqual(line.last, 0x0D, "every line ends in CRLF")
            XCTAssertLessThanOrEqual(line.count - 1, 75)
            XCTAssertNotNil(String(validating: line, as: UTF8.self), "a fold split a UTF-8 sequence")
        }
        XCTAssertEqual(folded.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n", with: ""),
                       "SUMMARY:" + value)
    }

    // MARK: - Which dates

    func testEveryRelevantDatesRangeIsAnEventWithItsOwnEnd() throws {
        let e = try events(["relevantDates": [
            ["startDate": "2026-06-12T19:00:00+02:00", "endDate": "2026-06-12T23:00:00+02:00"],
            ["startDate": "2026-06-13T19:00+02:00", "endDate": "2026-06-13T23:00+02:00"],
            ["date": "2026-06-14T19:00:00Z"],
        ]])
        XCTAssertEqual(e.count, 3)
        XCTAssertEqual(e[0].start.property("DTSTART"), "DTSTART;TZID=UTC+0200:20260612T190000")
        XCTAssertEqual(e[0].end?.property("DTEND"), "DTEND;TZID=UTC+0200:20260612T230000")
        XCTAssertEqual(e[2].start.property("DTSTART"), "DTSTART:20260614T190000Z")
        XCTAssertNil(e[2].end, "no end is guessed")
        XCTAssertEqual(Set(e.map(\.uid)).count, 3)
        XCTAssertTrue(e.allSatisfy { $0.sequence == 2 })
    }

    func testSemanticEventTimesWinOverARelevantDateAndGiveVenue() throws {
        let e = try events([
            "relevantDate": "2026-06-12T17:00-04:00",
            "semantics": ["eventName": "Tests Live", "eventStartDate": "2026-06-12T19:30-04:00",
                          "eventEndDate": "2026-06-12T22:00-04:00", "venueName": "Hall; Room, 1",
                          "venueLocation": ["latitude": 40.75, "longitude": -73.99]],
        ])
        XCTAssertEqual(e.count, 1)
        XCTAssertEqual(e[0].summary, "Tests Live")
        XCTAssertEqual(e[0].start.property("DTSTART"), "DTSTART;TZID=UTC-0400:20260612T193000")
        XCTAssertEqual(e[0].end?.property("DTEND"), "DTEND;TZID=UTC-0400:20260612T220000")
        XCTAssertEqual(e[0].location, "Hall; Room, 1")
        XCTAssertEqual(e[0].geo?.latitude, 40.75)
    }

    func testBoardingPassUsesCurrentDepartureAndArrivalInTheirOwnOffsets() throws {
        let e = try events(["semantics": [
            "airlineCode": "LH", "flightNumber": "400", "departureAirportCode": "FRA", "destinationAirportCode": "JFK",
            "originalDepartureDate": "2026-06-12T10:00+02:00", "currentDepartureDate": "2026-06-12T10:45+02:00",
            "currentArrivalDate": "2026-06-12T13:20-04:00", "departureGate": "Z25",
        ]], kind: "boardingPass")
        XCTAssertEqual(e.count, 1)
        XCTAssertEqual(e[0].start.property("DTSTART"), "DTSTART;TZID=UTC+0200:20260612T104500")
        XCTAssertEqual(e[0].end?.property("DTEND"), "DTEND;TZID=UTC-0400:20260612T132000")
        XCTAssertEqual(e[0].summary, "Example Hall LH 400 FRA → JFK")
        XCTAssertEqual(e[0].location, "FRA, Gate Z25")
    }

    func testDateShapesWalletAcceptsAllBecomeEvents() throws {
        let shapes = ["2026-06-12T20:00:00Z", "2026-06-12T20:00Z", "2026-06-12T20:00:00+05:30", "2026-06-12T20:00+0530",
                      "2026-06-12T20:00:00.250-08:00", "2026-06-12T20:00:00", "2026-06-12T20:00", "2026-06-12"]
        let expected = ["DTSTART:20260612T200000Z", "DTSTART:20260612T200000Z", "DTSTART;TZID=UTC+0530:20260612T200000",
                        "DTSTART;TZID=UTC+0530:20260612T200000", "DTSTART;TZID=UTC-0800:20260612T200000",
                        "DTSTART:20260612T200000Z", "DTSTART:20260612T200000Z", "DTSTART;VALUE=DATE:20260612"]
        for (shape, want) in zip(shapes, expected) {
            let e = try events(["relevantDate": shape])
            XCTAssertEqual(e.first?.start.property("DTSTART"), want, shape)
        }
    }

    func testEndsThatAreNotAfterTheStartOrOfAnotherKindAreDropped() throws {
        let e = try events(["relevantDates": [
            ["startDate": "2026-06-12T20:00Z", "endDate": "2026-06-12T19:00Z"],
            ["startDate": "2026-06-12", "endDate": "2026-06-14"],
            ["startDate": "2026-06-12", "endDate": "2026-06-14T10:00Z"],
        ]])
        XCTAssertNil(e[0].end)
        XCTAssertEqual(e[1].end?.property("DTEND"), "DTEND;VALUE=DATE:20260615", "a whole-day end is exclusive")
        XCTAssertNil(e[2].end)
    }

    func testVoidedPassGivesCancelledEventsAndNoDateGivesNone() throws {
        XCTAssertTrue(try events(["relevantDate": "2026-06-12T20:00Z", "voided": true])[0].cancelled)
        XCTAssertEqual(try events([:]).count, 0)
    }

    func testUIDIsStablePerPassAndDate() throws {
        let a = try events(["relevantDate": "2026-06-12T20:00Z"])
        let b = try events(["relevantDate": "2026-06-13T21:00Z"])
        XCTAssertEqual(a[0].uid, b[0].uid, "a moved date updates the same event")
        let other = try events(["relevantDate": "2026-06-12T20:00Z", "serialNumber": "S-2"])
        XCTAssertNotEqual(a[0].uid, other[0].uid)
    }

    // MARK: - Upcoming events (iOS 26)

    /// Two relevant intervals (two events of the pass, as before) and four upcoming entries: one
    /// at a time with its own end, one all day, one TBA, one TBD without a date (no event).
    nonisolated(unsafe) static let season: [String: Any] = [
        "relevantDates": [
            ["startDate": "2026-06-12T19:00:00+02:00", "endDate": "2026-06-12T23:00:00+02:00"],
            ["startDate": "2026-06-13T19:00:00+02:00", "endDate": "2026-06-13T23:00:00+02:00"],
        ],
        "semantics": ["eventName": "Opening Night", "venueName": "Main Hall"],
        "upcomingPassInformation": [
            ["type": "event", "identifier": "match-1", "name": "Match One",
             "dateInformation": ["date": "2026-07-01T20:00:00+02:00", "timeZone": "Europe/Berlin"],
             "semantics": ["venueName": "North Stadium", "venueRoom": "Block C",
                           "venueLocation": ["latitude": 52.5, "longitude": 13.4],
                           "eventEndDate": "2026-07-01T22:15:00+02:00"],
             "additionalInfoFields": [["key": "gate", "label": "Gate", "value": "7"]]],
            ["type": "event", "identifier": "festival", "name": "Festival Day",
             "dateInformation": ["date": "2026-07-04T10:00:00-04:00", "isAllDay": true]],
            ["type": "event", "identifier": "match-2", "name": "Match Two",
             "dateInformation": ["date": "2026-07-08T23:30:00-04:00", "isUnannounced": true]],
            ["type": "event", "identifier": "final", "name": "The Final", "dateInformation": ["isUndetermined": true]],
        ],
    ]

    func testEachUpcomingEntryIsAnEventOfItsOwnBesideThePassesOwn() throws {
        let e = try events(Self.season)
        XCTAssertEqual(e.count, 5, "two relevant intervals and three dated entries: \(e.map(\.summary))")
        guard e.count == 5 else { return }
        XCTAssertEqual(e.map(\.summary), ["Opening Night", "Opening Night", "Match One", "Festival Day", "Match Two"])
        XCTAssertEqual(Set(e.map(\.uid)).count, 5, "each its own UID")
        XCTAssertTrue(e[0].uid.hasSuffix("-0@passconduit") && e[1].uid.hasSuffix("-1@passconduit"), "the pass's own UIDs as before")
        XCTAssertEqual(e[2].start.property("DTSTART"), "DTSTART;TZID=UTC+0200:20260701T200000")
        XCTAssertEqual(e[2].end?.property("DTEND"), "DTEND;TZID=UTC+0200:20260701T221500")
        XCTAssertEqual(e[2].location, "North Stadium, Block C", "the entry's own venue, not the pass's")
        XCTAssertEqual(e[2].geo?.latitude, 52.5)
        XCTAssertEqual(e[2].description, "Example Hall — Match One\nGate: 7")
        XCTAssertTrue(e.allSatisfy { $0.sequence == 2 })
    }

    /// Issue 40: an upcoming entry's name and venue may be keys of the pass's pass.strings, as
    /// its fields' may; the event reads as the card does ("Spring Gala: Family Matinee", not
    /// "UPCOMING_MATINEE").
    func testUpcomingNamesAndVenuesAreTranslatedByThePassesStrings() throws {
        let opener = PassOpener(trust: try TrustStore.load(directories: []))
        let url = Self.root.appendingPathComponent("Samples/layout-passes/poster-event-guide.pkpass")
        let info = try XCTUnwrap(opener.open([UInt8](try Data(contentsOf: url))).pass)
        let events = PassEvents.events(of: info, sequence: 1, stamp: Date(timeIntervalSince1970: 1_700_000_000)).events
        let summaries = events.map(\.summary)
        XCTAssertTrue(summaries.contains("Spring Gala: Family Matinee"), "\(summaries)")
        XCTAssertTrue(summaries.contains("Spring Gala: Closing Night"), "\(summaries)")
        XCTAssertFalse(summaries.contains { $0.hasPrefix("UPCOMING_") }, "\(summaries)")
        let matinee = try XCTUnwrap(events.first { $0.summary == "Spring Gala: Family Matinee" })
        XCTAssertEqual(matinee.location, "Clore Ballroom")
        XCTAssertFalse(CalendarWriter.write(events).contains("VENUE_CLORE"))
    }

    func testAnAllDayOrUnannouncedTimeIsAWholeDayOnTheWrittenDate() throws {
        let e = try events(Self.season)
        XCTAssertEqual(e.count, 5)
        guard e.count == 5 else { return }
        XCTAssertEqual(e[3].start.property("DTSTART"), "DTSTART;VALUE=DATE:20260704")
        XCTAssertNil(e[3].end)
        // 23:30 at UTC-4 is already the 9th in UTC: the day is the one the pass wrote.
        XCTAssertEqual(e[4].start.property("DTSTART"), "DTSTART;VALUE=DATE:20260708")
        XCTAssertTrue(e[4].description.contains("Time to be announced."), e[4].description)
    }

    func testAnUpcomingEventKeepsItsUIDWhenEntriesMoveAndItsDateChanges() throws {
        var moved = Self.season
        var entries = try XCTUnwrap(moved["upcomingPassInformation"] as? [[String: Any]])
        entries.swapAt(0, 2)
        entries[2]["dateInformation"] = ["date": "2026-07-02T20:00:00+02:00"]
        moved["upcomingPassInformation"] = entries
        let before = Dictionary(try events(Self.season).map { ($0.summary, $0.uid) }) { first, _ in first }
        let after = Dictionary(try events(moved).map { ($0.summary, $0.uid) }) { first, _ in first }
        XCTAssertEqual(before["Match One"], after["Match One"])
        XCTAssertEqual(before["Match Two"], after["Match Two"])
        let other = try events(Self.season.merging(["serialNumber": "S-2"]) { $1 })
        XCTAssertFalse(Set(other.map(\.uid)).intersection(before.values).count > 0, "another pass, other UIDs")
    }

    func testUpcomingEntriesOfTheWrongShapeGiveNoEventAndNoCrash() throws {
        for bad: Any in ["a string", 42, [["dateInformation": "tomorrow"]], [["dateInformation": ["date": "soon"]]],
                         ["not an object", ["name": "No date"]], [["semantics": "Ada", "name": "Bad semantics"]]] {
            let e = try events(["upcomingPassInformation": bad, "relevantDate": "2026-06-12T20:00Z"])
            XCTAssertEqual(e.count, 1, "only the pass's own event: \(bad)")
        }
        let e = try events(["semantics": "Ada Lovelace", "relevantDate": "2026-06-12T20:00Z"])
        XCTAssertEqual(e.first?.summary, "Example Hall: Concert ticket", "semantics of the wrong type are ignored")
    }

    /// Passes without upcoming entries write the calendar they wrote before upcoming entries were
    /// read, byte for byte: every real pass of the corpus and every sample, against the calendar
    /// main's code wrote (Tests/Shared/calendar-before-upcoming.ics, made at 6f84f72).
    func testPassesWithoutUpcomingEntriesWriteTheCalendarOfBefore() throws {
        let opener = PassOpener(trust: try TrustStore.load(directories: []))
        let samples = Self.root.appendingPathComponent("Samples/passes")
        let sampleFiles = try FileManager.default.contentsOfDirectory(atPath: samples.path).filter { $0.hasSuffix(".pkpass") }.sorted()
            .map { samples.appendingPathComponent($0) }
        var events: [PassEvent] = []
        for url in Self.realPasses + sampleFiles {
            guard let info = opener.open([UInt8](try Data(contentsOf: url))).pass else { continue }
            events += PassEvents.events(of: info, sequence: 3, stamp: Date(timeIntervalSince1970: 1_700_000_000)).events
        }
        XCTAssertGreaterThan(events.count, 30)
        let before = try Data(contentsOf: Self.root.appendingPathComponent("Tests/Shared/calendar-before-upcoming.ics"))
        XCTAssertEqual(Data(CalendarWriter.write(events).utf8), before)
    }

    // MARK: - Reminders

    func testAlarmLeadTimesParseAsWrittenAndRefuseTheRest() {
        XCTAssertEqual(CalendarAlarms.seconds("3h"), 10_800)
        XCTAssertEqual(CalendarAlarms.seconds("90m"), 5_400)
        XCTAssertEqual(CalendarAlarms.seconds("1h30m"), 5_400)
        XCTAssertEqual(CalendarAlarms.seconds("1d"), 86_400)
        XCTAssertEqual(CalendarAlarms.seconds("2w"), 1_209_600)
        XCTAssertEqual(CalendarAlarms.seconds("0m"), 0)
        for bad in ["", "0", "3", "h", "abc", "3x", "30m1h", "1h1h", "-3h", "+3h", "3h ", "400d", "29d", "5w", "999999h", "١h", "kinds"] {
            XCTAssertNil(CalendarAlarms.seconds(bad), bad)
        }
        XCTAssertEqual(CalendarAlarms.parse("kind"), .byKind)
        XCTAssertEqual(CalendarAlarms.byKind.lead(for: .boardingPass), 10_800)
        XCTAssertEqual(CalendarAlarms.byKind.lead(for: .eventTicket), 86_400)
        XCTAssertEqual(CalendarAlarms.byKind.lead(for: .storeCard), 3_600)
    }

    func testAlarmTriggersAreRFC5545Durations() {
        XCTAssertEqual(CalendarAlarms.trigger(10_800), "-PT3H")
        XCTAssertEqual(CalendarAlarms.trigger(5_400), "-PT1H30M")
        XCTAssertEqual(CalendarAlarms.trigger(86_400), "-P1D")
        XCTAssertEqual(CalendarAlarms.trigger(90_000), "-PT25H")
        XCTAssertEqual(CalendarAlarms.trigger(61), "-PT1M1S")
        XCTAssertEqual(CalendarAlarms.trigger(0), "PT0S")
    }

    func testAnAlarmIsWrittenInsideItsEventAndNeverForACancelledOne() throws {
        var live = try events(["relevantDate": "2026-06-12T20:00Z", "serialNumber": "S-1"])
        var cancelled = try events(["relevantDate": "2026-06-13T20:00Z", "serialNumber": "S-2", "voided": true])
        live[0].alarm = 10_800
        cancelled[0].alarm = 10_800
        let text = CalendarWriter.write(live + cancelled)
        XCTAssertEqual(text.components(separatedBy: "BEGIN:VALARM").count - 1, 1)
        XCTAssertTrue(text.contains("TRANSP:OPAQUE\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Example Hall: Concert ticket\r\nTRIGGER:-PT3H\r\nEND:VALARM\r\nEND:VEVENT\r\n"), text)
        live[0].alarm = nil
        XCTAssertFalse(CalendarWriter.write(live).contains("VALARM"), "no alarm unless asked")
    }

    /// A long event name with commas and non-ASCII: the alarm's DESCRIPTION is escaped like the
    /// SUMMARY, folded at 75 octets with CRLF and a leading space, and unfolds to the name.
    func testALongAlarmDescriptionIsEscapedAndFoldedWithCRLF() throws {
        let name = "Große Oper, Saal 3; Première: " + String(repeating: "Ünïcödé événement 🎭 ", count: 6)
        var found = try events(["relevantDate": "2026-06-12T20:00+02:00", "semantics": ["eventName": name]])
        found[0].alarm = 86_400
        let text = CalendarWriter.write(found)
        let lines = text.components(separatedBy: "\r\n")
        XCTAssertEqual(lines.last, "", "the calendar ends in CRLF")
        for line in lines {
            XCTAssertFalse(line.contains("\n") || line.contains("\r"), "a bare line break: \(line.debugDescription)")
            XCTAssertLessThanOrEqual(line.utf8.count, 75, line)
        }
        let alarm = try XCTUnwrap(text.range(of: "BEGIN:VALARM\r\n").flatMap { start in
            text.range(of: "END:VALARM\r\n", range: start.upperBound..<text.endIndex).map { text[start.lowerBound..<$0.upperBound] } })
        XCTAssertTrue(alarm.contains("\r\n "), "the long DESCRIPTION is folded: \(alarm)")
        let unfolded = alarm.replacingOccurrences(of: "\r\n ", with: "")
        XCTAssertEqual(unfolded, "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:\(ContentLine.escape(name.trimmingCharacters(in: .whitespaces)))\r\n"
                       + "TRIGGER:-P1D\r\nEND:VALARM\r\n")
        XCTAssertTrue(unfolded.contains("Große Oper\\, Saal 3\\; Première"), unfolded)
        // Without the alarm, the same events write the same calendar minus exactly those lines.
        found[0].alarm = nil
        XCTAssertEqual(CalendarWriter.write(found), text.replacingOccurrences(of: String(alarm), with: ""))
    }

    func testCalendarDeclaresEachOffsetItUses() throws {
        let text = CalendarWriter.write(try events(["relevantDates": [
            ["startDate": "2026-06-12T19:00+02:00", "endDate": "2026-06-12T23:00-09:30"],
        ]]))
        XCTAssertTrue(text.contains("BEGIN:VTIMEZONE\r\nTZID:UTC+0200\r\n"))
        XCTAssertTrue(text.contains("TZID:UTC-0930\r\n"))
        XCTAssertTrue(text.contains("TZOFFSETTO:-0930\r\n"))
        XCTAssertTrue(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"))
        XCTAssertTrue(text.hasSuffix("END:VCALENDAR\r\n"))
    }

    // MARK: - Every real pass, judged by python3-icalendar and khal

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var realPasses: [URL] {
        // The copies of every real pass in the checkout (origins in that folder's MANIFEST.md).
        let dir = root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".pkpass") }.sorted().map { dir.appendingPathComponent($0) }
    }

    func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = environment
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pc-cal-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: out) }
        let handle = try FileHandle(forWritingTo: out)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        p.waitUntilExit()
        try handle.close()
        return (p.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self))
    }

    /// Every pass of the real corpus that has a readable pass.json, signed or not: one .ics each,
    /// checked line by line and against the pass's own dates by Tests/Shared/check-ics.py
    /// (python3-icalendar), then all imported into one khal calendar.
    func testEveryRealPassGivesACalendarIcalendarAndKhalRead() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "/usr/bin/khal"), "khal is missing: apt-get install khal")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-cal-real-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let opener = PassOpener(trust: try TrustStore.load(directories: []))
        var files: [URL] = [], sources: [URL] = [], uids = Set<String>()
        for url in Self.realPasses {
            guard let info = opener.open([UInt8](try Data(contentsOf: url))).pass else { continue }
            let events = PassEvents.events(of: info, sequence: 0, stamp: Date()).events
            guard !events.isEmpty else { continue }
            let ics = dir.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".ics")
            try Data(CalendarWriter.write(events).utf8).write(to: ics)
            files.append(ics)
            sources.append(url)
            uids.formUnion(events.map(\.uid))
        }
        XCTAssertGreaterThan(Self.realPasses.count, 50, "the real corpus is missing")
        XCTAssertGreaterThan(files.count, 25, "most real passes have a date")
        let env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC", "HOME": dir.path, "COLUMNS": "100000"]
        let passList = String(decoding: try JSONSerialization.data(withJSONObject: sources.map(\.path)), as: UTF8.self)
        let checked = try run("/usr/bin/python3", [Self.root.appendingPathComponent("Tests/Shared/check-ics.py").path, passList] + files.map(\.path),
                              environment: env)
        XCTAssertEqual(checked.status, 0, "python3-icalendar: " + checked.output.split(separator: "\n").filter { !$0.hasPrefix("{") }.joined(separator: "\n"))
        XCTAssertEqual(Set(checked.output.split(separator: "\n").compactMap { line -> String? in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["uid"] as? String
        }), uids)

        let calendar = dir.appendingPathComponent("cal")
        try FileManager.default.createDirectory(at: calendar, withIntermediateDirectories: true)
        let config = dir.appendingPathComponent("khal.conf")
        try """
        [calendars]
        [[passes]]
        path = \(calendar.path)
        type = calendar
        [locale]
        default_timezone = UTC
        local_timezone = UTC
        [sqlite]
        path = \(dir.appendingPathComponent("khal.db").path)

        """.write(to: config, atomically: true, encoding: .utf8)
        let imported = try run("/usr/bin/khal", ["-c", config.path, "import", "--batch", "-a", "passes"] + files.map(\.path), environment: env)
        XCTAssertEqual(imported.status, 0, "khal import: " + imported.output.suffix(3000))
        let listed = try run("/usr/bin/khal", ["-c", config.path, "search", "--format", "{uid}", ""], environment: env)
        XCTAssertEqual(Set(listed.output.split(separator: "\n").map(String.init).filter { $0.hasSuffix("@passconduit") }), uids,
                       "khal holds every event")
    }
}
