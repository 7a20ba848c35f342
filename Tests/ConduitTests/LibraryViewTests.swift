import Foundation
import XCTest
@testable import Conduit
import PassStore

/// The one model of the library as a person sees it (`list` and `serve` draw it): Wallet's order,
/// groups, the expired section, search and filters.
final class LibraryViewTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    var added = 0.0

    func pass(_ serial: String, kind: String = "generic", org: String = "Org", description: String = "",
              relevant: TimeInterval? = nil, expires: TimeInterval? = nil, voided: Bool = false,
              fields: [StoredField] = []) -> StoredPass {
        added += 1
        return StoredPass(id: PassID(passTypeIdentifier: "pass.t", serialNumber: serial), teamIdentifier: "TEAM", status: .valid,
                          sha256: String(repeating: serial.first.map { String($0) } ?? "0", count: 1) + serial, byteCount: 1,
                          organizationName: org, description: description, kind: kind,
                          relevantDate: relevant.map { now + $0 }, expirationDate: expires.map { now + $0 }, voided: voided,
                          signerSubject: nil, signingTime: nil, fields: fields, source: nil,
                          addedAt: now - 10_000 + added, updatedAt: now, previousVersions: 0)
    }

    func serials(_ items: [LibraryView.Item]) -> [String] { items.map(\.pass.id.serialNumber) }

    func testWhatComesNextFirstThenTheRestInLibraryOrderThenTheExpiredMostRecentFirst() {
        let passes = [
            pass("old-concert", relevant: -5 * 86400),          // no expiry, dates long past: archived
            pass("yesterday-flight", relevant: -2 * 86400, expires: 86400), // not expired yet: its date is past, still current
            pass("card"),                                        // no date
            pass("next-week", relevant: 7 * 86400),
            pass("tomorrow", relevant: 86400),
            pass("voided", relevant: 3 * 86400, voided: true),
            pass("expired", expires: -3600),
            pass("in-progress", relevant: -6 * 3600),            // departed six hours ago: still the trip
        ]
        let view = LibraryView(passes: passes, now: now)
        XCTAssertEqual(serials(view.currentItems), ["in-progress", "tomorrow", "next-week", "yesterday-flight", "card"])
        XCTAssertEqual(serials(view.archivedItems), ["voided", "expired", "old-concert"])
        XCTAssertTrue(view.archivedItems.allSatisfy(\.archived))
    }

    func testEventAndDepartureTimesFromPassJSONOrderPassesWithoutARelevantDate() {
        let a = pass("a"), b = pass("b")
        let times = [a.sha256: PassTimes(dates: [now + 7200]), b.sha256: PassTimes(dates: [now + 3600])]
        XCTAssertEqual(serials(LibraryView(passes: [a, b], times: times, now: now).currentItems), ["b", "a"])
        // Old passes whose event times are past count as past even without an expiration date.
        let past = [a.sha256: PassTimes(dates: [now - 3 * 86400])]
        XCTAssertEqual(serials(LibraryView(passes: [a, b], times: past, now: now).archivedItems), ["a"])
    }

    func testPassesOfOneGroupStandTogetherAtTheFirstMembersPlace() {
        let out = pass("outbound", relevant: 3600), other = pass("concert", relevant: 7200), back = pass("return", relevant: 5 * 86400)
        let times = [out.sha256: PassTimes(groupingIdentifier: "PC1234"), back.sha256: PassTimes(groupingIdentifier: "PC1234")]
        let view = LibraryView(passes: [back, other, out], times: times, now: now)
        XCTAssertEqual(view.current.map { $0.items.map(\.pass.id.serialNumber) }, [["outbound", "return"], ["concert"]])
        XCTAssertEqual(view.current.first?.groupingIdentifier, "PC1234")
    }

    /// The web wallet keeps a drawn list until `nextChange`: the view does not change before it,
    /// and does right after it.
    func testTheViewStaysTheSameUntilItsNextChangeAndChangesThere() throws {
        let passes = [
            pass("expires", expires: 3 * 3600),
            pass("departs", relevant: 2 * 3600),
            pass("event"),
            pass("card"),
            pass("gone", relevant: -3 * 86400),
        ]
        let times = [passes[2].sha256: PassTimes(dates: [now + 5 * 3600])]
        func view(_ at: Date) -> [[String]] {
            let v = LibraryView(passes: passes, times: times, now: at)
            return [serials(v.currentItems), serials(v.archivedItems)]
        }
        var moment = now
        var seen: [Date] = []
        while let next = LibraryView.nextChange(passes: passes, times: times, after: moment) {
            XCTAssertGreaterThan(next, moment)
            XCTAssertEqual(view(moment), view(next - 0.01))
            XCTAssertNotEqual(view(next - 0.01), view(next + 0.01))
            seen.append(next)
            moment = next + 0.01
        }
        // The expiry, then each moment a day (the grace) after it passed; nothing after the last.
        XCTAssertEqual(seen, [now + 3 * 3600, now + 2 * 3600 + LibraryView.grace, now + 5 * 3600 + LibraryView.grace])
    }

    func testSearchKindUpcomingAndPast() {
        let passes = [
            pass("flight", kind: "boardingPass", org: "Lufthansa", description: "Frankfurt to Lisbon", relevant: 86400),
            pass("cafe", kind: "storeCard", org: "Café Müller", fields: [StoredField(key: "n", value: "Member 0099")]),
            pass("gig", kind: "eventTicket", org: "Arena", relevant: -4 * 86400),
        ]
        func run(_ q: LibraryView.Query) -> [String] {
            let v = LibraryView(passes: passes, query: q, now: now)
            return serials(v.currentItems + v.archivedItems)
        }
        XCTAssertEqual(run(.init(text: "lisbon")), ["flight"])
        XCTAssertEqual(run(.init(text: "cafe muller")), ["cafe"], "case and accents ignored")
        XCTAssertEqual(run(.init(text: "member 0099")), ["cafe"], "field values are searched")
        XCTAssertEqual(run(.init(text: "nowhere")), [])
        XCTAssertEqual(run(.init(kind: "boarding")), ["flight"])
        XCTAssertEqual(run(.init(kind: "eventTicket")), ["gig"])
        XCTAssertEqual(run(.init(upcoming: true)), ["flight"])
        XCTAssertEqual(run(.init(past: true)), ["gig"])
        XCTAssertNil(LibraryView.Query.kinds(named: "spaceship"))
    }
}
