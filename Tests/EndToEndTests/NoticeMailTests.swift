import Foundation
import XCTest

/// Notices by mail end to end (issue 43 item 2): `update` takes a gate change from
/// django-walletpass (the real PassKit web-service peer, UpdateKit) and hands exactly one notice
/// to the configured sendmail — here a two-line shell script that keeps each message it is given
/// in a file, in place of Postfix's — with its headers, text and link and without the pass or its
/// token; a second run sends nothing; a failing sendmail leaves the notice for the next run; and
/// the notice itself, piped through the delivery filter binary, is passed unscanned.
final class NoticeMailTests: XCTestCase {
    nonisolated(unsafe) static var peer: UpdateKit.Server?
    nonisolated(unsafe) static var startError: (any Error)?
    static let type = "pass.org.passconduit.boarding"
    static let token = "token-0123456789abcdef"

    override class func setUp() {
        super.setUp()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-notice-peer-\(UUID().uuidString.prefix(8))")
        do { peer = try UpdateKit.startWalletpassPeer(dir) } catch { startError = error }
    }

    override class func tearDown() {
        peer?.stop()
        if let dir = peer?.dir { try? FileManager.default.removeItem(at: dir) }
        super.tearDown()
    }

    var port: Int {
        get throws {
            if let e = Self.startError { throw e }
            return try XCTUnwrap(Self.peer?.port)
        }
    }

    func serve(_ file: URL, serial: String) throws {
        try UpdateKit.curl(["-X", "POST", "--data-binary", "@" + file.path,
                            "http://127.0.0.1:\(try port)/control/store?type=\(Self.type)&serial=\(serial)&token=\(Self.token)"])
    }

    /// The sendmail stand-in: each message in a file of its own, its arguments beside it.
    func writeSendmail(_ sandbox: Sandbox, fails: Bool = false) throws -> String {
        let outbox = sandbox.dir.appendingPathComponent("outbox")
        try FileManager.default.createDirectory(at: outbox, withIntermediateDirectories: true)
        let script = sandbox.dir.appendingPathComponent(fails ? "sendmail-down" : "sendmail")
        try (fails ? "#!/bin/sh\ncat > /dev/null\necho 'sendmail: fatal: queue file write error' >&2\nexit 75\n"
                   : "#!/bin/sh\nf=$(mktemp \(outbox.path)/mail.XXXXXX)\ncat > \"$f\"\necho \"$*\" > \"$f.args\"\n")
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script.path
    }

    func writeConfig(_ sandbox: Sandbox, sendmail: String) throws {
        let folder = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
            [serve]
            public-url = "https://wallet.example.org"

            [notices]
            enabled = true
            mail-to = "owner@example.org"
            mail-from = "wallet@example.org"
            sendmail = "\(sendmail)"

            """.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
    }

    /// The messages handed to sendmail so far, oldest first, with their arguments.
    func outbox(_ sandbox: Sandbox) throws -> [(message: Data, arguments: String)] {
        let folder = sandbox.dir.appendingPathComponent("outbox")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasSuffix(".args") }
        return try names.map { name -> (Date, Data, String) in
            let url = folder.appendingPathComponent(name)
            let made = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date ?? Date()
            return (made, try Data(contentsOf: url), try String(contentsOf: folder.appendingPathComponent(name + ".args"), encoding: .utf8))
        }.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
    }

    func testAGateChangeIsMailedOnceWithItsHeadersTextAndLinkAndTheFilterPassesTheNoticeUnscanned() throws {
        let sandbox = try Sandbox()
        let serial = "GATE-\(UUID().uuidString.prefix(8))"
        let id = "\(Self.type)/\(serial)"
        let service = "http://127.0.0.1:\(try port)/api/passes/"
        let now = Date()
        let v1 = try UpdateKit.pass(serial: serial, webServiceURL: service, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        try serve(v1, serial: serial)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)
        let sendmail = try writeSendmail(sandbox)
        try writeConfig(sandbox, sendmail: sendmail)

        // Nothing changed yet: nothing to say.
        var r = try sandbox.run("update", [id])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try outbox(sandbox).count, 0)

        // The issuer moves the gate.
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: service, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try serve(v2, serial: serial)
        r = try sandbox.run("update", [id])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("updated — Gate changed to B22."), r.stdout)
        XCTAssertTrue(r.stdout.contains("1 sent by mail"), r.stdout)
        let sent = try outbox(sandbox)
        XCTAssertEqual(sent.count, 1)
        let mail = String(decoding: try XCTUnwrap(sent.first).message, as: UTF8.self)
        XCTAssertEqual(sent.first?.arguments, "-i -- owner@example.org\n")
        let parts = mail.components(separatedBy: "\n\n")
        let header = parts[0].split(separator: "\n").map(String.init)
        let body = parts.dropFirst().joined(separator: "\n\n")
        XCTAssertTrue(header.contains("To: <owner@example.org>"), mail)
        XCTAssertTrue(header.contains("From: passconduit <wallet@example.org>"), mail)
        XCTAssertTrue(header.contains("Subject: Gate changed to B22."), mail)
        XCTAssertTrue(header.contains("Auto-Submitted: auto-generated"), mail)
        XCTAssertTrue(header.contains("X-Passconduit-Notice: changed"), mail)
        XCTAssertTrue(header.contains("Content-Type: text/plain; charset=utf-8"), mail)
        XCTAssertTrue(header.contains { $0.hasPrefix("Message-ID: <notice-") }, mail)
        XCTAssertTrue(body.hasPrefix("Gate changed to B22.\n"), body)
        XCTAssertTrue(body.contains("\nPass: "), body)
        let v2SHA = String(decoding: try UpdateKit.run("/usr/bin/sha256sum", [v2.path]), as: UTF8.self).prefix(64)
        XCTAssertTrue(body.contains("\nOpen it: https://wallet.example.org/passes/\(v2SHA)\n"), body)
        // Never the pass, its barcode's message or its token.
        XCTAssertFalse(mail.contains(Self.token), mail)
        XCTAssertFalse(mail.contains("UEsDB") || mail.contains("PK\u{3}\u{4}") || mail.contains("application/vnd.apple.pkpass"), mail)
        XCTAssertLessThan(mail.utf8.count, 2000)

        // A second run (nothing new at the issuer) and an explicit send: nothing more.
        r = try sandbox.run("update", [id])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("0 sent by mail"), r.stdout)
        XCTAssertEqual(try outbox(sandbox).count, 1)
        let listed = try sandbox.run("notices")
        XCTAssertTrue(listed.stdout.contains("changed  sent: mail  \(id)\n    Gate changed to B22."), listed.stdout)
        let json = try sandbox.run("notices", ["--json"]).objects
        XCTAssertEqual(json.count, 1)
        XCTAssertEqual(json.first?["kind"] as? String, "changed")
        XCTAssertEqual(json.first?["text"] as? String, "Gate changed to B22.")
        XCTAssertEqual(json.first?["sent"] as? [String], ["mail"])

        // sendmail fails: the update stands, the notice waits, the log line says why; the next
        // run with a working sendmail sends it, once.
        try writeConfig(sandbox, sendmail: try writeSendmail(sandbox, fails: true))
        let v3 = try UpdateKit.pass(serial: serial, webServiceURL: service, gate: "C7", signed: now.addingTimeInterval(-1800), in: sandbox.dir)
        try serve(v3, serial: serial)
        r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.objects.count, 1, "only the outcome on stdout: \(r.stdout)")
        XCTAssertEqual(r.outcome?["outcome"] as? String, "updated", r.stdout)
        XCTAssertTrue(r.stderr.contains("mail not sent, kept for the next run") && r.stderr.contains("failed (exit status 75)"), r.stderr)
        XCTAssertEqual(try outbox(sandbox).count, 1)
        try writeConfig(sandbox, sendmail: sandbox.dir.appendingPathComponent("no-such-sendmail").path)
        r = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(r.status, 75, r.stdout)
        XCTAssertTrue(r.stderr.contains("could not be started"), r.stderr)
        try writeConfig(sandbox, sendmail: sendmail)
        r = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 sent by mail"), r.stdout)
        XCTAssertEqual(try outbox(sandbox).count, 2)
        XCTAssertTrue(String(decoding: try outbox(sandbox)[1].message, as: UTF8.self).contains("\n\nGate changed to C7.\n"))

        // The notice through the delivery filter: passed byte for byte, nothing staged.
        let notice = try XCTUnwrap(try outbox(sandbox).first?.message)
        let filtered = try sandbox.run("filter", ["--log", "none"], stdin: notice)
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertEqual(Data(filtered.stdout.utf8), notice)
        // A message that carries a pass and the notice field is not scanned either (no offer),
        // and forged fields of the filter's own names still go.
        let withPass = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml")))
        let marked = Data("X-Passconduit-Notice: changed\nX-Passconduit: 9 passes (forged)\n".utf8) + withPass
        let passed = try sandbox.run("filter", ["--log", "none"], stdin: marked)
        XCTAssertEqual(passed.status, 0, passed.stderr)
        XCTAssertEqual(Data(passed.stdout.utf8), Data("X-Passconduit-Notice: changed\n".utf8) + withPass)
        XCTAssertEqual(try sandbox.run("offers", ["--json"]).objects.count, 0)
        // Without the field the same message is staged (the filter works in this sandbox).
        XCTAssertEqual(try sandbox.run("filter", ["--log", "none"], stdin: withPass).status, 0)
        XCTAssertEqual(try sandbox.run("offers", ["--json"]).objects.count, 1)
    }
}
