import Foundation
import PostgresTestKit
import XCTest

/// Notices on a gateway's PostgreSQL map (issue 43 item 2): two `notices --send --library-map`
/// processes at once, as two hosts' timers would run them, hand alice's gate change to sendmail
/// exactly once, addressed to her mailbox, and nothing for bob, whose pass did not change.
final class PostgresNoticeTests: XCTestCase {
    func testTwoSendersAtOnceOnOneServerMailTheNoticeOnceToItsMailbox() throws {
        let server = try PostgresTestServer.shared
        let database = try server.database()
        let map = server.location(database: database)
        let sandbox = try Sandbox()
        let trust = Run.sample("ca/trust")
        let (alice, bob) = ("alice@example.org", "bob@example.org")
        let now = Date()
        let v1 = try UpdateKit.pass(serial: "PG-1", webServiceURL: nil, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let v2 = try UpdateKit.pass(serial: "PG-1", webServiceURL: nil, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        for user in [alice, bob] {
            XCTAssertEqual(try sandbox.run("library", ["create", user, "--library-map", map], common: false).status, 0)
            let added = try sandbox.run("add", ["--library", map, "--user", user, "--trust", trust, "--yes", v1.path], common: false)
            XCTAssertEqual(added.status, 0, added.stderr)
        }
        let replaced = try sandbox.run("add", ["--library", map, "--user", alice, "--trust", trust, "--yes", v2.path], common: false)
        XCTAssertEqual(replaced.status, 0, replaced.stderr)

        let outbox = sandbox.dir.appendingPathComponent("outbox")
        try FileManager.default.createDirectory(at: outbox, withIntermediateDirectories: true)
        let script = sandbox.dir.appendingPathComponent("sendmail")
        try "#!/bin/sh\nf=$(mktemp \(outbox.path)/mail.XXXXXX)\ncat > \"$f\"\necho \"$*\" > \"$f.args\"\n"
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let folder = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[notices]\nenabled = true\nsendmail = \"\(script.path)\"\n"
            .write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)

        let runs = Runs()
        nonisolated(unsafe) let shared = sandbox   // Sandbox.run only reads its fields and makes files of unique names
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            runs.append(try? shared.run("notices", ["--send", "--library-map", map], common: false))
        }
        XCTAssertEqual(runs.all.count, 2)
        for r in runs.all { XCTAssertEqual(r.status, 0, r.stdout + r.stderr) }
        XCTAssertEqual(runs.all.filter { $0.stdout.contains("\(alice): 0 reminders made, 1 sent by mail") }.count, 1,
                       runs.all.map(\.stdout).description)
        let third = try sandbox.run("notices", ["--send", "--library-map", map], common: false)
        XCTAssertTrue(third.stdout.contains("\(alice): 0 reminders made, 0 sent by mail"), third.stdout)
        let mails = try FileManager.default.contentsOfDirectory(atPath: outbox.path).filter { $0.hasSuffix(".args") }
        XCTAssertEqual(mails.count, 1, mails.description)
        let arguments = try String(contentsOf: outbox.appendingPathComponent(mails[0]), encoding: .utf8)
        XCTAssertEqual(arguments, "-i -- \(alice)\n")
        let mail = try String(contentsOf: outbox.appendingPathComponent(String(mails[0].dropLast(".args".count))), encoding: .utf8)
        XCTAssertTrue(mail.contains("To: <\(alice)>\n") && mail.contains("\n\nGate changed to B22.\n"), mail)
    }

    final class Runs: @unchecked Sendable {
        private let lock = NSLock()
        private var runs: [Run] = []
        func append(_ run: Run?) { lock.withLock { if let run { runs.append(run) } } }
        var all: [Run] { lock.withLock { runs } }
    }
}
