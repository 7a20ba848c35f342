import DovecotTestKit
import Foundation
import XCTest

/// Notices by SMTP submission (issue 43 item 2, `[notices] smtp`): `notices --send` hands alice's
/// gate change to a private Postfix over SMTP on loopback; Postfix delivers it into the Maildir
/// a private Dovecot serves, and the notice is read back over IMAP (Python's imaplib) with its
/// headers (Auto-Submitted, the notice field), its text and its link, and nothing of the pass.
/// Bob gets nothing; a second run sends nothing; with the server down, the notice stays pending
/// and the run says so (75), and the next run sends it.
final class NoticeSMTPTests: XCTestCase {
    var postfix: PostfixInstance?
    var dovecot: DovecotIMAP?

    override func tearDown() {
        postfix?.stop()
        dovecot?.stop()
        FilterRun.cleanUp()
    }

    /// Every message in `user`'s INBOX over IMAP, as bytes (RFC822), in order.
    static func imapMessages(port: Int, user: String, password: String) throws -> [String] {
        let script = """
            import imaplib, json, sys
            m = imaplib.IMAP4("127.0.0.1", int(sys.argv[1]))
            m.login(sys.argv[2], sys.argv[3])
            m.select("INBOX")
            _, ids = m.search(None, "ALL")
            out = []
            for i in ids[0].split():
                _, data = m.fetch(i, "(RFC822)")
                out.append(data[0][1].decode("utf-8", "replace"))
            m.logout()
            print(json.dumps(out))
            """
        let r = try MilterKit.run("/usr/bin/python3", ["-c", script, "\(port)", user, password])
        guard r.status == 0, let line = r.output.split(separator: "\n").last,
              let messages = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String] else {
            throw NSError(domain: "imap", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.output])
        }
        return messages
    }

    func testANoticeGoesBySMTPThroughPostfixIntoDovecotAndReadsBackOverIMAP() throws {
        let (alice, bob) = ("alice@example.org", "bob@example.org")
        let dovecot = try DovecotIMAP(users: [alice: "alice-pw", bob: "bob-pw"], tls: false)
        self.dovecot = dovecot
        // Postfix's virtual(8) delivers into the Maildirs Dovecot reads (its homes, ~/Maildir).
        let maps = dovecot.root.appendingPathComponent("vmailbox")
        try "\(alice) \(alice)/Maildir/\n\(bob) \(bob)/Maildir/\n".write(to: maps, atomically: true, encoding: .utf8)
        let postfix = try PostfixInstance(milter: "", extraMain: [
            "virtual_mailbox_base = \(dovecot.root.appendingPathComponent("home").path)",
            "virtual_mailbox_maps = texthash:\(maps.path)",
        ])
        self.postfix = postfix

        let sandbox = try Sandbox()
        let now = Date()
        let v1 = try UpdateKit.pass(serial: "SMTP-1", webServiceURL: nil, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let v2 = try UpdateKit.pass(serial: "SMTP-1", webServiceURL: nil, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v2.path]).status, 0)
        let v2SHA = String(decoding: try UpdateKit.run("/usr/bin/sha256sum", [v2.path]), as: UTF8.self).prefix(64)
        let folder = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func configure(port: Int) throws {
            try """
                [serve]
                public-url = "https://wallet.example.org"

                [notices]
                enabled = true
                mail-to = "\(alice)"
                mail-from = "passconduit@example.org"
                smtp = "127.0.0.1:\(port)"

                """.write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        }

        // The server down (a port nothing listens on): kept for the next run, said on stderr.
        try configure(port: MilterKit.freePort())
        let down = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(down.status, 75, down.stdout + down.stderr)
        XCTAssertTrue(down.stderr.contains("cannot connect to the SMTP server 127.0.0.1:"), down.stderr)
        XCTAssertTrue(down.stderr.contains("kept for the next run"), down.stderr)
        XCTAssertTrue(try sandbox.run("notices", []).stdout.contains("  pending  "), "still pending")

        try configure(port: postfix.plainPort)
        let sent = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertEqual(sent.stdout, "0 reminders made, 1 sent by mail, 0 to the desktop.\n")
        let again = try sandbox.run("notices", ["--send"])
        XCTAssertEqual(again.stdout, "0 reminders made, 0 sent by mail, 0 to the desktop.\n", again.stderr)

        _ = MilterKit.waitUntil(60) { ((try? Self.imapMessages(port: dovecot.imapPort, user: alice, password: "alice-pw")) ?? []).count >= 1 }
        let messages = try Self.imapMessages(port: dovecot.imapPort, user: alice, password: "alice-pw")
        XCTAssertEqual(messages.count, 1, String(postfix.log.suffix(3000)) + String(dovecot.log.suffix(2000)))
        let mail = try XCTUnwrap(messages.first)
        let (head, body) = try XCTUnwrap(mail.range(of: "\r\n\r\n").map { (String(mail[..<$0.lowerBound]), String(mail[$0.upperBound...])) })
        let fields = head.replacingOccurrences(of: "\r\n ", with: " ").replacingOccurrences(of: "\r\n\t", with: " ").components(separatedBy: "\r\n")
        XCTAssertTrue(fields.contains("Auto-Submitted: auto-generated"), head)
        XCTAssertTrue(fields.contains("X-Passconduit-Notice: changed"), head)
        XCTAssertTrue(fields.contains("Subject: Gate changed to B22."), head)
        XCTAssertTrue(fields.contains("From: passconduit <passconduit@example.org>"), head)
        XCTAssertTrue(fields.contains("To: <\(alice)>"), head)
        XCTAssertTrue(fields.contains("Return-Path: <passconduit@example.org>"), "the envelope sender: \(head)")
        XCTAssertTrue(fields.contains { $0.hasPrefix("Received: from ") && $0.contains("by mx.test.invalid (Postfix)") }, head)
        XCTAssertTrue(body.hasPrefix("Gate changed to B22.\r\n"), body)
        XCTAssertTrue(body.contains("\r\nOpen it: https://wallet.example.org/passes/\(v2SHA)\r\n"), body)
        XCTAssertFalse(body.contains("token-0123456789abcdef") || mail.contains("pkpass") || mail.contains("base64"), mail)
        XCTAssertEqual(try Self.imapMessages(port: dovecot.imapPort, user: bob, password: "bob-pw"), [], "nothing for bob")
        XCTAssertTrue(postfix.log.contains("status=sent (delivered to maildir)"), String(postfix.log.suffix(2000)))
    }
}
