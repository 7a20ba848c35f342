import Foundation
import XCTest
@testable import PassStore
import PassStorePostgres

/// Notices (issue 43 item 2) on both backends: a change with a change message records one in
/// the change's own transaction (a voiding one is `voided`), hostile text is cleaned and cut,
/// reminders are recorded once per pass and event time on a moving clock, and a notice is
/// claimed once per channel by claimers at once on separate connections (two hosts).
final class NoticeTests: XCTestCase {
    final class SetClock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: Double
        init(_ start: Double) { seconds = start }
        func now() -> Date { lock.withLock { Date(timeIntervalSince1970: seconds) } }
        func set(_ value: Double) { lock.withLock { seconds = value } }
    }

    func open(_ f: BackendFactory, _ clock: SetClock) async throws -> any PassLibraryBackend {
        try await f.open { options in options.now = { clock.now() } }
    }

    static let since = Date(timeIntervalSince1970: 0)

    func testAChangeWithAChangeMessageRecordsOneNoticeAndAVoidingOneSaysVoided() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let library = try await open(f, clock)
            let v1 = Synthetic.record("1", version: 1)
            try await library.add(v1)
            let afterAdd = try await library.notices(since: Self.since, limit: 10)
            XCTAssertEqual(afterAdd, [], "\(f.kind): an add is no change")

            clock.set(1_800_000_100)
            try await library.replace(with: Synthetic.record("1", version: 2))
            var notices = try await library.notices(since: Self.since, limit: 10)
            XCTAssertEqual(notices.count, 1, "\(f.kind)")
            XCTAssertEqual(notices.first?.kind, .changed, "\(f.kind)")
            XCTAssertEqual(notices.first?.text, "Gate changed to G2", "\(f.kind)")
            XCTAssertEqual(notices.first?.passID, v1.id, "\(f.kind)")
            XCTAssertEqual(notices.first?.due, Date(timeIntervalSince1970: 1_800_000_100), "\(f.kind)")
            XCTAssertEqual(notices.first?.sent, [], "\(f.kind)")
            XCTAssertEqual(notices.first?.pass?.organizationName, "Example Org", "\(f.kind)")
            XCTAssertEqual(notices.first?.pass?.sha256, Synthetic.record("1", version: 2).sha256, "\(f.kind)")

            // A change without a change message (a field without one) tells nobody.
            clock.set(1_800_000_200)
            try await library.replace(with: Synthetic.record("1", version: 3, fields: [StoredField(key: "seat", label: "Seat", value: "3A")]))
            notices = try await library.notices(since: Self.since, limit: 10)
            XCTAssertEqual(notices.count, 1, "\(f.kind)")

            // A voiding replacement: `voided`, the voiding first.
            clock.set(1_800_000_300)
            var voiding = Synthetic.record("1", version: 4, fields: [StoredField(key: "seat", label: "Seat", value: "3A")])
            voiding.voided = true
            try await library.replace(with: voiding)
            notices = try await library.notices(since: Self.since, limit: 10)
            XCTAssertEqual(notices.map(\.kind), [.voided, .changed], "\(f.kind): newest first")
            XCTAssertEqual(notices.first?.text, "The issuer voided this pass.", "\(f.kind)")
            let recent = try await library.notices(since: Date(timeIntervalSince1970: 1_800_000_250), limit: 10)
            XCTAssertEqual(recent.map(\.kind), [.voided], "\(f.kind)")
            await assertSound(library, f.kind)
        }
    }

    /// An issuer's change message with line breaks, escapes and 100 KB of text: one line of at
    /// most 500 characters, nothing that could start a header line or move a terminal's cursor.
    func testAHostileChangeMessageIsCleanedAndCut() async {
        await forEachBackend { f in
            let library = try await open(f, SetClock(1_800_000_000))
            try await library.add(Synthetic.record("1", version: 1))
            let hostile = "Gate %@\r\nBcc: victim@example.org\n\u{1b}[2J\u{85}\u{7f}" + String(repeating: "x", count: 100_000)
            try await library.replace(with: Synthetic.record("1", version: 2, fields: [
                StoredField(key: "gate", label: "Gate", value: "B22", changeMessage: hostile)]))
            let text = try await library.notices(since: Self.since, limit: 10).first?.text ?? ""
            XCTAssertTrue(text.hasPrefix("Gate B22 Bcc: victim@example.org [2J x"), "\(f.kind): \(text.prefix(60))")
            XCTAssertLessThanOrEqual(text.count, Notice.maxTextCharacters, "\(f.kind)")
            XCTAssertTrue(text.hasSuffix("…"), "\(f.kind)")
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(f.kind)")
        }
    }

    /// A boarding pass at 12:00 gets its reminder from 09:00 (3 hours), once, however often the
    /// reminders are asked for; none before, none once the time has passed; a moved time
    /// reminds again.
    func testAReminderComesDueOnceOnASteppingClock() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let library = try await open(f, clock)
            let departure = Date(timeIntervalSince1970: 1_800_036_000)
            var record = Synthetic.record("1", version: 1, relevant: departure)
            record.kind = "boardingPass"
            try await library.add(record)
            var coupon = Synthetic.record("2", version: 1, relevant: departure)
            coupon.kind = "coupon"
            try await library.add(coupon)
            var made: [Int] = []
            for seconds in stride(from: 1_800_000_000.0, through: 1_800_040_000, by: 1800) {
                clock.set(seconds)
                let due = NoticeRules.reminders(try await library.passes(), leadTimes: .default, now: clock.now())
                made.append(try await library.recordReminders(due))
            }
            XCTAssertEqual(made.reduce(0, +), 1, "\(f.kind): \(made)")
            // Asked at 09:00 exactly (1_800_025_200), it is made then, and only then.
            XCTAssertEqual(made.firstIndex(of: 1), Int((1_800_025_200 - 1_800_000_000) / 1800), "\(f.kind): \(made)")
            let notices = try await library.notices(since: Self.since, limit: 10)
            XCTAssertEqual(notices.count, 1, "\(f.kind)")
            XCTAssertEqual(notices.first?.kind, .reminder, "\(f.kind)")
            XCTAssertEqual(notices.first?.eventAt, departure, "\(f.kind)")
            XCTAssertEqual(notices.first?.due, departure.addingTimeInterval(-3 * 3600), "\(f.kind)")
            XCTAssertEqual(notices.first?.passID, record.id, "\(f.kind)")

            // The flight moves to 13:00 by an update: a new event time, a new reminder.
            clock.set(1_800_030_000)
            var moved = Synthetic.record("1", version: 2, relevant: departure.addingTimeInterval(3600),
                                         fields: [StoredField(key: "gate", label: "Gate", value: "G1")])
            moved.kind = "boardingPass"
            try await library.replace(with: moved)
            let again = NoticeRules.reminders(try await library.passes(), leadTimes: .default, now: clock.now())
            let addedAgain = try await library.recordReminders(again)
            XCTAssertEqual(addedAgain, 1, "\(f.kind)")
            let twice = try await library.recordReminders(again)
            XCTAssertEqual(twice, 0, "\(f.kind)")
        }
    }

    /// Twenty claims at once for one notice's mail, on two connections (two hosts): one wins. A
    /// claim given back (sendmail failed) is won again; each channel is claimed on its own.
    func testANoticeIsClaimedOncePerChannelByClaimersAtOnce() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let hosts = [try await open(f, clock), try await open(f, clock)]
            try await hosts[0].add(Synthetic.record("1", version: 1))
            try await hosts[0].replace(with: Synthetic.record("1", version: 2))
            let first = try await hosts[1].notices(since: Self.since, limit: 1).first
            let id = try XCTUnwrap(first?.id)
            let won = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<20 {
                    let host = hosts[i % 2]
                    group.addTask { try await host.claimNotice(id, channel: .mail) }
                }
                var all: [Bool] = []
                for try await result in group { all.append(result) }
                return all
            }
            XCTAssertEqual(won.filter { $0 }.count, 1, "\(f.kind)")
            let sent = try await hosts[0].notices(since: Self.since, limit: 1).first?.sent
            XCTAssertEqual(sent, ["mail"], "\(f.kind)")
            let web = try await hosts[1].claimNotice(id, channel: .web)
            XCTAssertTrue(web, "\(f.kind): the web channel claims on its own")
            let chat = try await hosts[0].claimNotice(id, channel: .chat)
            XCTAssertTrue(chat, "\(f.kind): so does the chat bot's (schema 7)")
            try await hosts[1].releaseNotice(id, channel: .mail)
            let again = try await hosts[0].claimNotice(id, channel: .mail)
            XCTAssertTrue(again, "\(f.kind): a claim given back is won again")
            let unknown = try await hosts[0].claimNotice(id + 1000, channel: .mail)
            XCTAssertFalse(unknown, "\(f.kind): no such notice")
        }
    }

    /// A library's own notice settings (schema v7): none until chosen, kept as chosen, read the
    /// same from another connection (another host), one library's choice never another's, and
    /// a lead time beyond two weeks refused with nothing kept.
    func testNoticePreferencesAreKeptPerLibrary() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let library = try await open(f, clock)
            let none = try await library.noticePreferences()
            XCTAssertEqual(none, NoticePreferences(), "\(f.kind)")
            let chosen = NoticePreferences(enabled: false, boardingPassMinutes: 600, eventTicketMinutes: nil, otherMinutes: 0)
            try await library.setNoticePreferences(chosen)
            let other = try await open(f, clock)
            let read = try await other.noticePreferences()
            XCTAssertEqual(read, chosen, "\(f.kind)")
            let leads = read.leadTimes(over: .default)
            XCTAssertEqual(leads.lead(for: "boardingPass"), 36_000, "\(f.kind)")
            XCTAssertEqual(leads.lead(for: "eventTicket"), 86_400, "\(f.kind): the host's")
            XCTAssertNil(leads.lead(for: "generic"), "\(f.kind): 0 is no reminder")
            do {
                try await library.setNoticePreferences(NoticePreferences(enabled: true, eventTicketMinutes: NoticePreferences.maxMinutes + 1))
                XCTFail("\(f.kind): a lead time of more than two weeks was kept")
            } catch let error as LibraryError {
                XCTAssertEqual(error.kind, .refused, "\(f.kind)")
            }
            let still = try await other.noticePreferences()
            XCTAssertEqual(still, chosen, "\(f.kind)")
            try await library.setNoticePreferences(NoticePreferences(enabled: true))
            let back = try await other.noticePreferences()
            XCTAssertEqual(back, NoticePreferences(enabled: true), "\(f.kind): lead times back to the host's")
            if f.kind == .postgresql {
                // Another library user on the same server: its own, untouched.
                var options = LibraryOptions()
                options.user = "other-" + f.user
                let stranger = try await PostgresLibrary.open(try f.location, options: options)
                let theirs = try await stranger.noticePreferences()
                XCTAssertEqual(theirs, NoticePreferences())
                await stranger.close()
            }
        }
    }
}
