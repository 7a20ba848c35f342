import Foundation
import XCTest
@testable import Conduit
import PassStore
import PassStoreSQLite
import Support

/// A round of notices on a real library file, handed to a real program as sendmail (a shell
/// script that keeps what it is given): quiet hours hold a notice until they end, a reminder
/// comes due once as the clock steps on, a notice switched off sends nothing, and the mail's
/// header cannot be broken by the pass's text.
final class NoticeSenderTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-notices-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("outbox"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: Double
        init(_ start: Double) { seconds = start }
        func now() -> Date { lock.withLock { Date(timeIntervalSince1970: seconds) } }
        func set(_ value: Double) { lock.withLock { seconds = value } }
    }

    func library(_ clock: Clock) throws -> PassLibrary {
        var options = LibraryOptions()
        options.now = { clock.now() }
        return try PassLibrary(path: dir.appendingPathComponent("library.sqlite").path, options: options)
    }

    func record(_ serial: String, version: Int, gate: String, kind: String = "boardingPass", relevant: Date? = nil,
                organization: String = "Passconduit Air") -> PassRecord {
        PassRecord(id: PassID(passTypeIdentifier: "pass.example.notice", serialNumber: serial), teamIdentifier: "TEAM000001",
                   status: .valid, hashed: HashedBytes(Array("\(serial)#\(version)#\(gate)".utf8)),
                   organizationName: organization, description: "FRA to LIS", kind: kind, relevantDate: relevant,
                   signingTime: Date(timeIntervalSince1970: 1_700_000_000 + Double(version)),
                   fields: [StoredField(key: "gate", label: "Gate", value: gate, changeMessage: "Gate changed to %@.")])
    }

    func sender(quiet: String? = nil) throws -> NoticeSender {
        let script = dir.appendingPathComponent("sendmail")
        try "#!/bin/sh\nf=$(mktemp \(dir.appendingPathComponent("outbox").path)/mail.XXXXXX)\ncat > \"$f\"\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        var settings = NoticeSettings()
        settings.enabled = true
        settings.sendmail = script.path
        settings.quietHours = quiet.flatMap(NoticeRules.QuietHours.init)
        var sender = NoticeSender(settings: settings, mailTo: "owner@example.org", publicURL: "https://wallet.example.org/")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        sender.calendar = calendar
        return sender
    }

    func outbox() throws -> [String] {
        let folder = dir.appendingPathComponent("outbox")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            .map { String(decoding: try Data(contentsOf: folder.appendingPathComponent($0)), as: UTF8.self) }
    }

    /// 2027-01-15 (a Friday) at HH:MM UTC.
    func at(_ hour: Int, _ minute: Int = 0, day: Int = 0) -> Double { 1_800_000_000 - 1_800_000_000.truncatingRemainder(dividingBy: 86_400) + Double(day * 86_400 + hour * 3600 + minute * 60) }

    func testQuietHoursHoldANoticeUntilTheyEnd() throws {
        let clock = Clock(at(21, 0))
        let library = try library(clock)
        try library.add(record("1", version: 1, gate: "A1"))
        clock.set(at(23, 30))
        try library.replace(with: record("1", version: 2, gate: "B22"))
        let sender = try sender(quiet: "22:00-07:00")
        var report = try Blocking.run { try await sender.round(library, now: clock.now()) }
        XCTAssertEqual(report.held, 1)
        XCTAssertEqual(report.sent, [:])
        XCTAssertEqual(try outbox().count, 0)
        clock.set(at(6, 59, day: 1))
        report = try Blocking.run { try await sender.round(library, now: clock.now()) }
        XCTAssertEqual(report.held, 1)
        clock.set(at(7, 0, day: 1))
        report = try Blocking.run { try await sender.round(library, now: clock.now()) }
        XCTAssertEqual(report.sent, [.mail: 1])
        XCTAssertEqual(report.held, 0)
        XCTAssertEqual(try outbox().count, 1)
        XCTAssertTrue(try outbox()[0].contains("\n\nGate changed to B22.\n"))
        report = try Blocking.run { try await sender.round(library, now: clock.now()) }
        XCTAssertEqual(report.sent, [:], "sent once")
    }

    /// A boarding pass at 12:00: the reminder is made at 09:00 and mailed once, with the pass's
    /// name and time; a step before makes none, the steps after send nothing more.
    func testAReminderComesDueOnceAndIsMailedOnce() throws {
        let clock = Clock(at(6, 0))
        let library = try library(clock)
        try library.add(record("1", version: 1, gate: "A1", relevant: Date(timeIntervalSince1970: at(12, 0))))
        let sender = try sender()
        var sent: [Int] = []
        for step in stride(from: at(6, 0), through: at(13, 0), by: 900) {
            clock.set(step)
            let report = try Blocking.run { try await sender.round(library, now: clock.now()) }
            sent.append(report.sent[.mail] ?? 0)
        }
        XCTAssertEqual(sent.reduce(0, +), 1, "\(sent)")
        XCTAssertEqual(sent.firstIndex(of: 1), 12, "at 09:00: \(sent)")
        let mail = try XCTUnwrap(try outbox().first)
        XCTAssertTrue(mail.contains("Subject: Coming up: Passconduit Air: FRA to LIS\n"), mail)
        XCTAssertTrue(mail.contains("X-Passconduit-Notice: reminder\n"), mail)
        XCTAssertTrue(mail.contains("Coming up at Fri 15 Jan 2027, 12:00 UTC: Passconduit Air: FRA to LIS."), mail)
    }

    func testNoticesSwitchedOffSendNothingAndMakeNoReminder() throws {
        let clock = Clock(at(10, 0))
        let library = try library(clock)
        try library.add(record("1", version: 1, gate: "A1", relevant: Date(timeIntervalSince1970: at(12, 0))))
        try library.replace(with: record("1", version: 2, gate: "B2", relevant: Date(timeIntervalSince1970: at(12, 0))))
        var off = try sender()
        off.settings.enabled = false
        let sender = off
        let report = try Blocking.run { try await sender.round(library, now: clock.now()) }
        XCTAssertEqual(report, NoticeSender.Report())
        XCTAssertEqual(try outbox().count, 0)
        XCTAssertEqual(try library.notices(since: Date(timeIntervalSince1970: 0), limit: 10).map(\.kind), [.changed],
                       "the change's notice is recorded with the change, no reminder")
    }

    /// The pass's name with a line break and a non-ASCII change message: one Subject line (an
    /// RFC 2047 word), no header of the issuer's making.
    func testThePassTextCannotBreakTheHeader() throws {
        let clock = Clock(at(10, 0))
        let library = try library(clock)
        try library.add(record("1", version: 1, gate: "A1", organization: "Evil\nBcc: victim@example.org"))
        var v2 = record("1", version: 2, gate: "Süd 4", organization: "Evil\nBcc: victim@example.org")
        v2.fields = [StoredField(key: "gate", label: "Gate", value: "Süd 4", changeMessage: "Flugsteig: %@\r\nBcc: victim@example.org")]
        try library.replace(with: v2)
        let sender = try sender()
        _ = try Blocking.run { try await sender.round(library, now: clock.now()) }
        let mail = try XCTUnwrap(try outbox().first)
        let header = mail.components(separatedBy: "\n\n")[0]
        XCTAssertFalse(header.contains("\nBcc:"), header)
        XCTAssertTrue(header.contains("\nSubject: =?UTF-8?B?"), header)
        let encoded = try XCTUnwrap(header.split(separator: "\n").first { $0.hasPrefix("Subject: ") }).dropFirst("Subject: =?UTF-8?B?".count).dropLast(2)
        XCTAssertEqual(String(decoding: try XCTUnwrap(Data(base64Encoded: String(encoded))), as: UTF8.self),
                       "Flugsteig: Süd 4 Bcc: victim@example.org")
        XCTAssertTrue(mail.contains("\nPass: Evil Bcc: victim@example.org: FRA to LIS\n"), mail)
    }

    /// SMTP's DATA section (`[notices] smtp`): LF becomes CRLF (CRLF stays), a line that starts
    /// with "." gets another (so an issuer's change message "." cannot end the message early and
    /// start commands of its own), and the section ends with CRLF . CRLF.
    func testTheSMTPDataSectionIsTransparentAndEnds() {
        let message = Array("Subject: x\n\n.\n. RCPT TO:<victim@example.org>\r\n..two\nlast".utf8)
        let data = String(decoding: NoticeSMTP.dataSection(message), as: UTF8.self)
        XCTAssertEqual(data, "Subject: x\r\n\r\n..\r\n.. RCPT TO:<victim@example.org>\r\n...two\r\nlast\r\n.\r\n")
        XCTAssertEqual(NoticeSettings.SMTPServer("localhost:25"), NoticeSettings.SMTPServer(host: "localhost", port: 25))
        XCTAssertEqual(NoticeSettings.SMTPServer("[::1]:587")?.description, "[::1]:587")
        for bad in ["localhost", "localhost:0", "localhost:65536", "::1:25", ":25", "a b:25", "host:25x"] {
            XCTAssertNil(NoticeSettings.SMTPServer(bad), bad)
        }
    }
}
