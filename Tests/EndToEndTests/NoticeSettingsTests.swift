import Foundation
import PostgresTestKit
import XCTest

/// A library's own notice settings (issue 43 item 2: opt-in per library, lead times on the web
/// Settings page), on a gateway's map of files and on a PostgreSQL map: alice switches notices
/// off on the Settings page (a CSRF-protected POST), and `notices --send --library-map` sends
/// her nothing while bob gets his; switched on again with her own lead time, her gate change
/// goes out and a reminder comes 10 hours before her flight where bob's 3-hour default makes
/// none. And reminders come from a pass's departure and event start (semantics), not only its
/// relevant date.
final class NoticeSettingsTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    static let (alice, bob) = ("alice@example.org", "bob@example.org")

    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxxxx"
        return formatter.string(from: date)
    }

    /// A sendmail that keeps each message and its arguments in `outbox`.
    static func sendmail(_ sandbox: Sandbox) throws -> (script: URL, outbox: URL) {
        let outbox = sandbox.dir.appendingPathComponent("outbox")
        try FileManager.default.createDirectory(at: outbox, withIntermediateDirectories: true)
        let script = sandbox.dir.appendingPathComponent("sendmail")
        try "#!/bin/sh\nf=$(mktemp \(outbox.path)/mail.XXXXXX)\ncat > \"$f\"\necho \"$*\" > \"$f.args\"\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return (script, outbox)
    }

    static func config(_ sandbox: Sandbox, _ text: String) throws {
        let folder = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    /// The recipients of the mails in `outbox` (sendmail's last argument), sorted.
    static func recipients(_ outbox: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasSuffix(".args") }.map {
            try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: " ").last ?? ""
        }.sorted()
    }

    func testFilesMap() throws {
        let sandbox = try Sandbox()
        let template = sandbox.dir.appendingPathComponent("libraries/%{local}@%{domain}/library.sqlite").path
        try settingsDecideWhatIsSent(sandbox, map: template) { user in
            ["--library", template.replacingOccurrences(of: "%{local}@%{domain}", with: user)]
        }
    }

    func testPostgresMap() throws {
        let server = try PostgresTestServer.shared
        let map = server.location(database: try server.database())
        try settingsDecideWhatIsSent(try Sandbox(), map: map) { user in ["--library", map, "--user", user] }
    }

    func settingsDecideWhatIsSent(_ sandbox: Sandbox, map: String, library: (String) -> [String]) throws {
        let trust = Run.sample("ca/trust")
        let now = Date()
        let flight = Self.stamp(now.addingTimeInterval(8 * 3600))
        for user in [Self.alice, Self.bob] {
            XCTAssertEqual(try sandbox.run("library", ["create", user, "--library-map", map], common: false).status, 0)
            let serial = "SET-" + user.prefix(3)
            let v1 = try UpdateKit.pass(serial: serial, webServiceURL: nil, signed: now.addingTimeInterval(-7200),
                                        extra: ["relevantDate": flight], in: sandbox.dir)
            let v2 = try UpdateKit.pass(serial: serial, webServiceURL: nil, gate: "B22", signed: now.addingTimeInterval(-3600),
                                        extra: ["relevantDate": flight], in: sandbox.dir)
            for pass in [v1, v2] {
                let added = try sandbox.run("add", library(user) + ["--trust", trust, "--yes", pass.path], common: false)
                XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
            }
        }
        let (script, outbox) = try Self.sendmail(sandbox)
        try Self.config(sandbox, "[notices]\nenabled = true\nsendmail = \"\(script.path)\"\n")

        let web = try WebServeTests.Server(sandbox, ["--library-map", map, "--trust", trust, "--listen", "127.0.0.1:0",
                                                     "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1"], common: false)
        try web.started()
        let jar = sandbox.dir.appendingPathComponent("alice-jar"), asAlice = ["-H", "X-User: \(Self.alice)"]
        let page = try WebServeTests.curl(web.base + "/settings", jar: jar, asAlice)
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertTrue(page.text.contains("<h2 id=\"notices\">Notices</h2>"), page.text)
        XCTAssertTrue(page.text.contains("Notices are <strong>on</strong> for your library."), page.text)
        XCTAssertTrue(page.text.contains("name=\"enabled\" value=\"on\" checked"), page.text)
        XCTAssertTrue(page.text.contains("placeholder=\"180\""), "the config's 3 hours are the default: \(page.text)")
        let csrf = try XCTUnwrap(WebServeTests.csrf(page.text))

        // Without the session's token, from another site, or by GET: nothing changes.
        XCTAssertEqual(try WebServeTests.curl(web.base + "/settings/notices", jar: jar, asAlice + ["-d", "boarding-pass=5"]).status, 403)
        XCTAssertEqual(try WebServeTests.curl(web.base + "/settings/notices", jar: jar,
                                              asAlice + ["-d", "csrf=\(csrf)", "-H", "Origin: http://evil.example"]).status, 403)
        XCTAssertEqual(try WebServeTests.curl(web.base + "/settings/notices?boarding-pass=5", jar: jar, asAlice).status, 404)
        // A lead time that is no number of minutes, or more than two weeks: refused, nothing saved.
        for bad in ["abc", "-5", "20161", "<b>1</b>"] {
            let refused = try WebServeTests.curl(web.base + "/settings/notices", jar: jar,
                                                 asAlice + ["--data-urlencode", "csrf=\(csrf)", "--data-urlencode", "event=\(bad)"])
            XCTAssertEqual(refused.status, 400, bad + refused.text)
            XCTAssertTrue(refused.text.contains("Nothing was changed."), refused.text)
            XCTAssertFalse(refused.text.contains("<b>1</b>"), refused.text)
        }
        XCTAssertTrue(try WebServeTests.curl(web.base + "/settings", jar: jar, asAlice).text.contains("Notices are <strong>on</strong>"))

        // Alice switches them off (the checkbox left empty).
        let off = try WebServeTests.curl(web.base + "/settings/notices", jar: jar, asAlice + ["-d", "csrf=\(csrf)&boarding-pass=&event=&other="])
        XCTAssertEqual(off.status, 200, off.text)
        XCTAssertTrue(off.text.contains("Notice settings saved: notices are off for your library."), off.text)
        XCTAssertTrue(off.text.contains("Notices are <strong>off</strong>"), off.text)
        // Bob's page is his own: still on.
        let bobPage = try WebServeTests.curl(web.base + "/settings", jar: sandbox.dir.appendingPathComponent("bob-jar"), ["-H", "X-User: \(Self.bob)"])
        XCTAssertTrue(bobPage.text.contains("Notices are <strong>on</strong>"), bobPage.text)

        var sent = try sandbox.run("notices", ["--send", "--library-map", map], common: false)
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertTrue(sent.stdout.contains("\(Self.alice): notices are off for this library"), sent.stdout)
        XCTAssertTrue(sent.stdout.contains("\(Self.bob): 0 reminders made, 1 sent by mail"), sent.stdout)
        XCTAssertEqual(try Self.recipients(outbox), [Self.bob])

        // On again, with 600 minutes before a flight: her gate change goes out now, and her
        // flight 8 hours ahead reminds; bob's 3-hour default does not yet.
        let on = try WebServeTests.curl(web.base + "/settings/notices", jar: jar,
                                        asAlice + ["-d", "csrf=\(csrf)&enabled=on&boarding-pass=600&event=&other=0"])
        XCTAssertTrue(on.text.contains("notices are on for your library"), on.text)
        XCTAssertTrue(on.text.contains("name=\"boarding-pass\" type=\"number\" min=\"0\" max=\"20160\" step=\"1\" placeholder=\"180\" value=\"600\""), on.text)
        XCTAssertTrue(on.text.contains("name=\"other\" type=\"number\" min=\"0\" max=\"20160\" step=\"1\" placeholder=\"120\" value=\"0\""), on.text)
        sent = try sandbox.run("notices", ["--send", "--library-map", map], common: false)
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertTrue(sent.stdout.contains("\(Self.alice): 1 reminder made, 2 sent by mail"), sent.stdout)
        XCTAssertTrue(sent.stdout.contains("\(Self.bob): 0 reminders made, 0 sent by mail"), sent.stdout)
        XCTAssertEqual(try Self.recipients(outbox), [Self.alice, Self.alice, Self.bob])
        let mails = try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { !$0.hasSuffix(".args") }
            .map { try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8) }
        XCTAssertEqual(mails.filter { $0.contains("Subject: Coming up: ") && $0.contains("To: <\(Self.alice)>") }.count, 1, mails.description)
        web.process.terminate()
        web.process.waitUntilExit()
    }

    /// A boarding pass whose relevant date is the day after but whose departure (semantics) is in
    /// 2 hours reminds now; an event ticket whose relevant date is next week but which starts in
    /// 20 hours reminds now (24 hours before an event); a pass with 500 relevant dates reminds
    /// once, of the next one. Without the semantics, none of the first two would.
    func testRemindersComeFromDepartureAndEventStart() throws {
        let sandbox = try Sandbox()
        let now = Date()
        let depart = try UpdateKit.pass(serial: "DEPART", webServiceURL: nil, signed: now.addingTimeInterval(-3600), extra: [
            "relevantDate": Self.stamp(now.addingTimeInterval(26 * 3600)),
            "semantics": ["currentDepartureDate": Self.stamp(now.addingTimeInterval(2 * 3600)),
                          "originalDepartureDate": Self.stamp(now.addingTimeInterval(1 * 3600))]], in: sandbox.dir)
        let season = try UpdateKit.pass(serial: "SEASON", webServiceURL: nil, signed: now.addingTimeInterval(-3600), extra: [
            "semantics": [:] as [String: Any],
            "relevantDates": (0..<500).map { ["date": Self.stamp(now.addingTimeInterval(Double($0 - 250) * 3600 + 1800))] }], in: sandbox.dir)
        let concert = sandbox.dir.appendingPathComponent("concert.pkpass")
        try Data(try FilterPassForge.pass(edits: [
            "serialNumber": "CONCERT", "expirationDate": NSNull(),
            "relevantDate": Self.stamp(now.addingTimeInterval(7 * 86400)),
            "semantics": ["eventStartDate": Self.stamp(now.addingTimeInterval(20 * 3600))]])).write(to: concert)
        for file in [depart, season, concert] {
            let added = try sandbox.run("add", ["--yes", file.path])
            XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        }
        let (script, outbox) = try Self.sendmail(sandbox)
        try Self.config(sandbox, "[notices]\nenabled = true\nmail-to = \"owner@example.org\"\nsendmail = \"\(script.path)\"\n")
        let sent = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertEqual(sent.stdout, "3 reminders made, 3 sent by mail, 0 to the desktop.\n", sent.stderr)
        let listed = try sandbox.run("notices", ["--json"])
        var events: [String: String] = [:]
        for object in listed.objects { events[object["serialNumber"] as? String ?? ""] = object["eventAt"] as? String }
        let iso = ISO8601DateFormatter()
        func at(_ seconds: Double) -> String { iso.string(from: Date(timeIntervalSince1970: (now.timeIntervalSince1970 + seconds).rounded(.down))) }
        XCTAssertEqual(events["DEPART"], at(2 * 3600), "the current departure, not the relevant date: \(listed.stdout)")
        XCTAssertEqual(events["CONCERT"], at(20 * 3600), "the event's start: \(listed.stdout)")
        XCTAssertEqual(events["SEASON"], at(1800), "the next of 500 dates: \(listed.stdout)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasSuffix(".args") }.count, 3)
        let again = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(again.stdout, "0 reminders made, 0 sent by mail, 0 to the desktop.\n", again.stderr)
    }
}
