import Foundation
import XCTest

/// Issue 27 defect 5: the Postfix pipe(8) recipe (Samples/integrations/postfix/master.cf) as an
/// operator installs it, in a private Postfix with virtual mailboxes: the transport runs as one
/// system user for every recipient, and each mailbox's offers must land in that mailbox's own
/// library (made by `library create`), never in one library every recipient shares; a mailbox
/// without a library still gets the passes' verdicts (the shared truth), and nothing else.
final class PipeRecipeTests: XCTestCase {
    override class func tearDown() {
        FilterRun.cleanUp()
        Unprivileged.cleanUp()
    }

    /// The shipped `deliver` script: the commented lines after its name in master.cf.
    static func shippedDeliverScript() throws -> (recipe: String, script: String) {
        let recipe = try String(contentsOf: FilterMail.repositoryRoot.appendingPathComponent("Samples/integrations/postfix/master.cf"), encoding: .utf8)
        var lines: [String] = []
        var inScript = false
        for line in recipe.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# /usr/local/libexec/passconduit/deliver") { inScript = true; continue }
            guard inScript else { continue }
            guard line.hasPrefix("#   ") else { break }
            lines.append(String(line.dropFirst(4)))
        }
        return (recipe, lines.joined(separator: "\n") + "\n")
    }

    func testEachVirtualMailboxGetsItsOwnLibraryThroughThePipeTransport() throws {
        XCTAssertTrue(Unprivileged.dropsPrivileges, "Postfix needs root: run the end-to-end tests as root (as CI does)")
        guard Unprivileged.dropsPrivileges else { return }
        let (recipe, shipped) = try Self.shippedDeliverScript()
        XCTAssertTrue(shipped.hasPrefix("#!/bin/sh\n"), shipped)
        // The transport line as shipped, with the test's user and script.
        guard let argv = recipe.split(separator: "\n").first(where: { $0.contains("flags=DRhu user=vmail argv=") }) else {
            return XCTFail("master.cf has no pipe transport line")
        }
        XCTAssertTrue(argv.hasSuffix("deliver ${user}@${domain} ${recipient}"), String(argv))

        let postfixRoot = URL(fileURLWithPath: "/tmp/pc-pipe-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: postfixRoot, withIntermediateDirectories: true)
        chmod(postfixRoot.path, 0o755)
        defer { try? FileManager.default.removeItem(at: postfixRoot) }
        let libraries = postfixRoot.appendingPathComponent("libraries")
        let mail = postfixRoot.appendingPathComponent("delivered")
        let dovecot = postfixRoot.appendingPathComponent("dovecot")
        // Each mailbox's home, as the operator's mail store has it.
        for folder in [mail, dovecot, mail.appendingPathComponent("alice@example.org"), mail.appendingPathComponent("bob@example.org")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try MilterKit.run("/bin/chown", ["nobody:nogroup", folder.path])
        }
        // The last step as the test can run it: dovecot-lda for the mailbox named by $1, with
        // a config of the test's own (no auth service to look users up in).
        try """
            base_dir = \(dovecot.path)/run
            state_dir = \(dovecot.path)/state
            log_path = \(dovecot.path)/dovecot.log
            protocols =
            ssl = no
            first_valid_uid = 0
            mail_location = maildir:~/Maildir
            """.write(to: postfixRoot.appendingPathComponent("dovecot.conf"), atomically: true, encoding: .utf8)
        let filter = "\(try Unprivileged.binary()) filter --trust \(try Unprivileged.sampleTrust()) --log none --deadline 60"
        let script = shipped
            .replacingOccurrences(of: "passconduit filter", with: filter)
            .replacingOccurrences(of: "/var/lib/passconduit/", with: libraries.path + "/")
            .replacingOccurrences(of: "/usr/lib/dovecot/dovecot-lda -d \"$2\"",
                                  with: "HOME=\(mail.path)/\"$1\" USER=\"$1\" /usr/lib/dovecot/dovecot-lda -c \(postfixRoot.path)/dovecot.conf -e")
        XCTAssertNotEqual(script, shipped)
        let deliver = postfixRoot.appendingPathComponent("deliver")
        try script.write(to: deliver, atomically: true, encoding: .utf8)
        chmod(deliver.path, 0o755)

        // alice has a library; bob has none.
        let template = libraries.path + "/%{local}@%{domain}/library.sqlite"
        let made = try Sandbox().run("library", ["create", "alice@example.org", "--owner", "nobody:nogroup", "--library-map", template], common: false)
        XCTAssertEqual(made.status, 0, made.stderr)

        let postfix = try PostfixInstance(milter: "", extraMain: [
            "virtual_transport = passconduit",
            "passconduit_destination_recipient_limit = 1",
        ], extraServices: [
            "passconduit unix - n n - 4 pipe flags=DRhu user=nobody argv=\(deliver.path) ${user}@${domain} ${recipient}",
        ])
        defer { postfix.stop() }
        let message = postfixRoot.appendingPathComponent("message.eml")
        try Data(FilterMail.message(passes: [(name: "ticket.pkpass", bytes: try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true)).write(to: message)
        // An address extension and upper case reach the mailbox's library too.
        let sent = try postfix.send(message, to: ["Alice+travel@example.org", "bob@example.org"], port: postfix.plainPort)
        XCTAssertEqual(sent.status, 0, sent.output)

        func delivered(_ mailbox: String) -> [URL] {
            let new = mail.appendingPathComponent("\(mailbox)/Maildir/new")
            return ((try? FileManager.default.contentsOfDirectory(atPath: new.path)) ?? []).map { new.appendingPathComponent($0) }
        }
        XCTAssertTrue(MilterKit.waitUntil(120) { delivered("alice@example.org").count == 1 && delivered("bob@example.org").count == 1 },
                      postfix.log + ((try? String(contentsOf: dovecot.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? ""))
        let alice = try delivered("alice@example.org").first.map { try [UInt8](Data(contentsOf: $0)) } ?? []
        let bob = try delivered("bob@example.org").first.map { try [UInt8](Data(contentsOf: $0)) } ?? []
        XCTAssertEqual(FilterPromise.ownHeaderLines(alice).first, "X-Passconduit: 1 pass (1 new)", String(decoding: alice.prefix(2000), as: UTF8.self))
        // bob has no library: the pass's verdict (true for every copy) without a library's state or action.
        let bobOwn = FilterPromise.ownHeaderLines(bob)
        XCTAssertEqual(bobOwn.first, "X-Passconduit: 1 pass (1 valid)", String(decoding: bob.prefix(2000), as: UTF8.self))
        XCTAssertEqual(bobOwn.count, 2, "\(bobOwn)")
        XCTAssertTrue(bobOwn.last?.hasPrefix("X-Passconduit-Pass: valid; unknown; type=pass.org.passconduit.event") ?? false, "\(bobOwn)")
        XCTAssertFalse(bobOwn.joined().contains("new") || bobOwn.joined().contains("action="), "\(bobOwn)")
        XCTAssertTrue(String(decoding: bob, as: UTF8.self).contains("Content-Type: application/vnd.apple.pkpass"))
        // Apart from our fields and the delivery's own, bob's copy is alice's: the same bytes.
        let mta: Set<String> = ["return-path", "delivered-to", "received", "x-original-to"]
        XCTAssertEqual(DeliveredMessage.removing(mta.union(["x-passconduit", "x-passconduit-pass"]), from: bob),
                       DeliveredMessage.removing(mta.union(["x-passconduit", "x-passconduit-pass"]), from: alice))

        // alice's offer is in alice's library, and no library appeared for bob or for vmail.
        let offers = try Sandbox().run("offers", ["--library", libraries.path + "/alice@example.org/library.sqlite",
                                                  "--trust", Run.sample("ca/trust"), "--json"], common: false)
        XCTAssertEqual(offers.objects.count, 1, offers.stdout + offers.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: libraries.path), ["alice@example.org"])
    }
}
