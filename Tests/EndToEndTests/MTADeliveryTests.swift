import Foundation
import XCTest

/// Real mail delivery agents run `passconduit filter` the way their manuals say (the recipes in
/// Samples/integrations/) and deliver into a Maildir: the delivered bytes are the message plus
/// exactly our header lines.
final class MTADeliveryTests: XCTestCase {
    override class func tearDown() {
        FilterRun.cleanUp()
        Unprivileged.cleanUp()
    }

    struct Delivery {
        var status: Int32
        var delivered: [[UInt8]]
        var log: String
    }

    /// The sample messages: Samples/messages/ when present, plus mail built around sample passes.
    static func messages() throws -> [(name: String, bytes: [UInt8])] {
        var out: [(String, [UInt8])] = []
        let dir = FilterMail.repositoryRoot.appendingPathComponent("Samples/messages")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) {
            for n in names.sorted() where n.hasSuffix(".eml") {
                out.append((n, try [UInt8](Data(contentsOf: dir.appendingPathComponent(n)))))
            }
        }
        let event = try FilterMail.samplePass("event-ticket.pkpass")
        out.append(("plain.eml", Array("From: a@example.org\nTo: b@example.net\nSubject: no pass\n\nhello\n".utf8)))
        out.append(("event-lf.eml", FilterMail.message(passes: [("event.pkpass", event)], subject: "LF ticket")))
        out.append(("event-crlf-from.eml", FilterMail.message(passes: [("event.pkpass", event)], crlf: true, fromLine: true, subject: "CRLF ticket")))
        out.append(("forged.eml", FilterMail.message(passes: [], extraHeaders: ["X-Passconduit: 9 passes (9 update)", "X-Passconduit-Pass: valid; update;", " org=\"Your Bank\""], subject: "forged")))
        out.append(("bad-pass.eml", FilterMail.message(passes: [("broken.pkpass", try FilterMail.samplePass("bad-manifest-mismatch.pkpass"))], subject: "broken")))
        return out
    }

    private func tool(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    private func maildirFiles(_ maildir: URL) throws -> [[UInt8]] {
        let new = maildir.appendingPathComponent("new")
        return try FileManager.default.contentsOfDirectory(atPath: new.path).sorted().map {
            try [UInt8](Data(contentsOf: new.appendingPathComponent($0)))
        }
    }

    private func makeMaildir(_ root: URL) -> URL {
        let md = root.appendingPathComponent("Maildir")
        for sub in ["cur", "new", "tmp"] {
            try? FileManager.default.createDirectory(at: md.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        return md
    }

    /// The filter command line every recipe uses in these tests.
    /// Dovecot runs it as nobody (see `dovecot`), so the binary and the test CA come from
    /// copies that user can read: the checkout may sit in a private folder.
    private func filterCommand(_ root: URL) throws -> String {
        "\(try Unprivileged.binary()) filter --log none --deadline 60 --library \(root.path)/library.sqlite --trust \(try Unprivileged.sampleTrust())"
    }

    /// The shipped recipe (Samples/integrations/procmail/procmailrc) with the test's command line.
    /// The Passes folder is not made beforehand: the recipe must make it (or deliver to the inbox).
    /// procmail takes $HOME from the passwd entry, not the environment: the recipe's
    /// `$HOME/Maildir` is pointed at the test's Maildir, the folder an IMAP server would read.
    func procmail(_ message: [UInt8], root: URL) throws -> Delivery {
        let md = makeMaildir(root)
        let shipped = try String(contentsOf: FilterMail.repositoryRoot.appendingPathComponent("Samples/integrations/procmail/procmailrc"), encoding: .utf8)
        XCTAssertTrue(shipped.contains(":0 fw\n| passconduit filter\n"))
        XCTAssertTrue(shipped.contains("\n$HOME/Maildir/.Passes/\n"), "the recipe files into the Maildir++ folder, with the trailing slash")
        let rc = root.appendingPathComponent("procmailrc")
        try ("LOGFILE=\(root.path)/procmail.log\nVERBOSE=on\n"
             + shipped.replacingOccurrences(of: "| passconduit filter\n", with: "| \(try filterCommand(root))\n")
                .replacingOccurrences(of: "$HOME/Maildir", with: md.path)).write(to: rc, atomically: true, encoding: .utf8)
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/procmail"), arguments: ["-m", rc.path], input: message,
                                  environment: FilterRun.environment(root))
        return Delivery(status: r.status, delivered: try maildirFiles(md) + passesFolder(md),
                        log: (try? String(contentsOf: root.appendingPathComponent("procmail.log"), encoding: .utf8)) ?? "")
    }

    /// The messages in the Maildir++ folder `.Passes` (none when the folder was never made); a
    /// folder made by the recipe must be a whole Maildir (cur, new, tmp), or IMAP cannot show it.
    func passesFolder(_ md: URL) throws -> [[UInt8]] {
        let passes = md.appendingPathComponent(".Passes")
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: passes.path, isDirectory: &isFolder), isFolder.boolValue else { return [] }
        for sub in ["cur", "new", "tmp"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: passes.appendingPathComponent(sub).path), "\(passes.path) has no \(sub)/")
        }
        return try maildirFiles(passes)
    }

    /// The shipped recipe (Samples/integrations/maildrop/mailfilter) with the test's command line.
    /// The Passes folder is not made beforehand (`blockPasses`: a file stands where it would be).
    func maildrop(_ message: [UInt8], root: URL, blockPasses: Bool = false) throws -> Delivery {
        let md = makeMaildir(root)
        if blockPasses { try Data("not a folder\n".utf8).write(to: md.appendingPathComponent(".Passes")) }
        let shipped = try String(contentsOf: FilterMail.repositoryRoot.appendingPathComponent("Samples/integrations/maildrop/mailfilter"), encoding: .utf8)
        XCTAssertTrue(shipped.contains("xfilter \"passconduit filter\""))
        let rc = root.appendingPathComponent("mailfilter")
        // maildrop takes $HOME from the passwd entry, not the environment: point the recipe at the test's folder.
        try shipped.replacingOccurrences(of: "xfilter \"passconduit filter\"", with: "xfilter \"\(try filterCommand(root))\"")
            .replacingOccurrences(of: "$HOME/Maildir", with: md.path)
            .write(to: rc, atomically: true, encoding: .utf8)
        chmod(rc.path, 0o600)
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/maildrop"), arguments: [rc.path], input: message,
                                  environment: FilterRun.environment(root))
        return Delivery(status: r.status, delivered: try maildirFiles(md) + passesFolder(md), log: String(decoding: r.stderr, as: UTF8.self))
    }

    /// dovecot-lda with a global Sieve script that runs `filter "passconduit-filter"` (Pigeonhole
    /// sieve_extprograms); as root it runs as nobody, since dovecot-lda needs a userdb for root.
    func dovecot(_ message: [UInt8], root: URL) throws -> Delivery {
        let md = makeMaildir(root)
        let bin = root.appendingPathComponent("sieve-bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\nexec \(try filterCommand(root))\n".write(to: bin.appendingPathComponent("passconduit-filter"), atomically: true, encoding: .utf8)
        chmod(bin.appendingPathComponent("passconduit-filter").path, 0o755)
        let sieve = try String(contentsOf: FilterMail.repositoryRoot.appendingPathComponent("Samples/integrations/dovecot/passconduit.sieve"), encoding: .utf8)
        try sieve.write(to: root.appendingPathComponent("passconduit.sieve"), atomically: true, encoding: .utf8)
        for d in ["run", "state", "home"] { try FileManager.default.createDirectory(at: root.appendingPathComponent(d), withIntermediateDirectories: true) }
        try """
        base_dir = \(root.path)/run
        state_dir = \(root.path)/state
        log_path = \(root.path)/dovecot.log
        protocols =
        ssl = no
        first_valid_uid = 0
        mail_location = maildir:\(md.path)
        mail_home = \(root.path)/home
        protocol lda {
          mail_plugins = sieve
        }
        plugin {
          sieve_before = \(root.path)/passconduit.sieve
          sieve_plugins = sieve_extprograms
          sieve_global_extensions = +vnd.dovecot.filter
          sieve_filter_bin_dir = \(bin.path)
          sieve_filter_exec_timeout = 10s
        }
        """.write(to: root.appendingPathComponent("dovecot.conf"), atomically: true, encoding: .utf8)
        var args = ["/usr/lib/dovecot/dovecot-lda", "-c", root.appendingPathComponent("dovecot.conf").path, "-e"]
        if geteuid() == 0 {
            chmod(root.path, 0o777)
            _ = try FilterRun.run(executable: URL(fileURLWithPath: "/bin/chown"), arguments: ["-R", "nobody", root.path], input: [], environment: ["PATH": "/usr/bin:/bin"])
            args = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + args
        }
        var env = FilterRun.environment(root.appendingPathComponent("home"))
        env["USER"] = geteuid() == 0 ? "nobody" : (ProcessInfo.processInfo.environment["USER"] ?? "user")
        let r = try FilterRun.run(executable: URL(fileURLWithPath: args[0]), arguments: Array(args.dropFirst()), input: message, environment: env)
        // The shipped script files mail with a new pass into "Passes" (Maildir++: .Passes).
        let passes = md.appendingPathComponent(".Passes")
        let filed = FileManager.default.fileExists(atPath: passes.path) ? try maildirFiles(passes) : []
        return Delivery(status: r.status, delivered: try maildirFiles(md) + filed,
                        log: (try? String(contentsOf: root.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? "")
    }

    /// What the filter alone makes of `message` (in a fresh library, like each delivery).
    private func filtered(_ message: [UInt8], root: URL) throws -> [UInt8] {
        let r = try FilterRun.shell("\(try filterCommand(root))", input: message, environment: FilterRun.environment(root))
        XCTAssertEqual(r.status, 0)
        return r.stdout
    }

    private func check(_ mta: String, deliver: (([UInt8], URL) throws -> Delivery)) throws {
        for (name, message) in try Self.messages() {
            let root = FilterRun.directory("\(mta)-\(name)")
            let d = try deliver(message, root)
            XCTAssertEqual(d.status, 0, "\(mta) \(name): \(d.log)")
            XCTAssertEqual(d.delivered.count, 1, "\(mta) \(name) delivered \(d.delivered.count) messages: \(d.log)")
            guard var got = d.delivered.first else { continue }
            var input = message
            if mta == "procmail", input.starts(with: Array("From ".utf8)), let lf = input.firstIndex(of: 10) {
                input = Array(input[(lf + 1)...])   // procmail drops the mbox From_ line when it writes a Maildir
            }
            if mta == "procmail" && !input.reversed().starts(with: [10, 10]) && got.reversed().starts(with: [10, 10]) {
                got.removeLast()     // procmail ends every delivered message with an empty line (mta-conventions §1.1)
            }
            if mta == "dovecot" {     // Dovecot stores LF and drops a leading From_ line; compare in that form
                input = Self.lf(input)
                if input.starts(with: Array("From ".utf8)), let lf = input.firstIndex(of: 10) { input = Array(input[(lf + 1)...]) }
                got = Self.lf(got)
            }
            FilterPromise.assertIntact(input: input, output: got)
            let expected = try filtered(message, root: FilterRun.directory("\(mta)-expect-\(name)"))
            XCTAssertEqual(FilterPromise.ownHeaderLines(got), FilterPromise.ownHeaderLines(expected), "\(mta) \(name)")
            if name == "forged.eml" { XCTAssertFalse(String(decoding: got, as: UTF8.self).contains("Your Bank"), "\(mta) kept a forged header") }
            // Every pass the headers say was offered is waiting in the library.
            let offered = FilterPromise.ownHeaderLines(got).filter { $0.contains("action=offered") }.count
            XCTAssertEqual(try offerCount(root), offered, "\(mta) \(name)")
        }
    }

    /// Offer rows in the delivery's library, read with Python's sqlite3 (0 when no library was made).
    func offerCount(_ root: URL) throws -> Int {
        let db = root.appendingPathComponent("library.sqlite")
        guard FileManager.default.fileExists(atPath: db.path) else { return 0 }
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/python3"),
                                  arguments: ["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from offer').fetchone()[0])", db.path],
                                  input: [], environment: ["PATH": "/usr/bin:/bin"])
        return Int(String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// An update through each host: the library holds event-ticket v1 (added with `passconduit
    /// add --yes`), update.eml carries v2: it is applied, not offered.
    func testUpdatesAreAppliedThroughEveryHost() throws {
        let update = FilterMail.repositoryRoot.appendingPathComponent("Samples/messages/update.eml")
        let message = try [UInt8](Data(contentsOf: update))
        for (mta, deliver) in [("procmail", procmail), ("maildrop", { try self.maildrop($0, root: $1) }), ("dovecot", dovecot)] as [(String, ([UInt8], URL) throws -> Delivery)] {
            let root = FilterRun.directory("\(mta)-update")
            let add = try FilterRun.run(executable: Binary.url, arguments: ["add", "--yes", "--library", root.appendingPathComponent("library.sqlite").path,
                                                                           "--trust", FilterMail.repositoryRoot.appendingPathComponent("Samples/ca/trust").path,
                                                                           FilterMail.repositoryRoot.appendingPathComponent("Samples/passes/event-ticket.pkpass").path],
                                        input: [], environment: FilterRun.environment(root))
            XCTAssertEqual(add.status, 0, String(decoding: add.stdout + add.stderr, as: UTF8.self))
            let d = try deliver(message, root)
            XCTAssertEqual(d.status, 0, "\(mta): \(d.log)")
            XCTAssertEqual(d.delivered.count, 1, "\(mta): \(d.log)")
            let own = FilterPromise.ownHeaderLines(d.delivered.first ?? [])
            XCTAssertEqual(own.first, "X-Passconduit: 1 pass (1 update)", "\(mta): \(own)")
            XCTAssertTrue(own.last?.contains("valid; update; action=updated;") ?? false, "\(mta): \(own)")
            XCTAssertEqual(try offerCount(root), 0, mta)
        }
    }

    static func lf(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        for (i, x) in b.enumerated() where !(x == 13 && i + 1 < b.count && b[i + 1] == 10) { out.append(x) }
        return out
    }

    func testProcmailDeliversEverySampleThroughTheFilter() throws {
        XCTAssertTrue(tool("/usr/bin/procmail"), "procmail is not installed (script/bootstrap installs it)")
        try check("procmail", deliver: procmail)
    }

    func testMaildropDeliversEverySampleThroughTheFilter() throws {
        XCTAssertTrue(tool("/usr/bin/maildrop"), "maildrop is not installed (script/bootstrap installs it)")
        try check("maildrop", deliver: { try self.maildrop($0, root: $1) })
    }

    /// Mail with a new pass lands in the Passes folder the recipe makes, the one IMAP shows.
    func testProcmailAndMaildropFileNewPassesIntoTheMaildirPassesFolder() throws {
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))], subject: "ticket")
        for (mta, deliver) in [("procmail", procmail), ("maildrop", { try self.maildrop($0, root: $1) })] as [(String, ([UInt8], URL) throws -> Delivery)] {
            let root = FilterRun.directory("\(mta)-passes")
            let d = try deliver(message, root)
            XCTAssertEqual(d.status, 0, "\(mta): \(d.log)")
            let filed = try passesFolder(root.appendingPathComponent("Maildir"))
            XCTAssertEqual(filed.count, 1, "\(mta): \(d.log)")
            XCTAssertEqual(try maildirFiles(root.appendingPathComponent("Maildir")).count, 0, mta)
            XCTAssertTrue(FilterPromise.ownHeaderLines(filed.first ?? []).first?.contains("new") ?? false, mta)
        }
    }

    /// maildrop: a Passes folder that cannot be made never defers the mail; it goes to the inbox.
    func testMaildropDeliversToTheInboxWhenThePassesFolderCannotBeMade() throws {
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))], subject: "ticket")
        let root = FilterRun.directory("maildrop-blocked")
        let d = try maildrop(message, root: root, blockPasses: true)
        XCTAssertEqual(d.status, 0, d.log)
        let inbox = try maildirFiles(root.appendingPathComponent("Maildir"))
        XCTAssertEqual(inbox.count, 1, d.log)
        FilterPromise.assertIntact(input: message, output: inbox.first ?? [])
    }

    func testDovecotSieveFilterDeliversEverySampleThroughTheFilter() throws {
        XCTAssertTrue(tool("/usr/lib/dovecot/dovecot-lda"), "dovecot-lda is not installed (script/bootstrap installs dovecot-core dovecot-sieve)")
        try check("dovecot", deliver: dovecot)
    }

    func testProcmailTimeoutKillsAHungFilterAndRescuesTheMessage() throws {
        // procmail's TIMEOUT sends SIGTERM; the filter kills its scanning child and exits 75, and
        // nothing keeps procmail's pipes open (mta-conventions: a grandchild holding them wedged it).
        let root = FilterRun.directory("procmail-timeout")
        let md = makeMaildir(root)
        let rc = root.appendingPathComponent("procmailrc")
        // procmail hands its own variables, not the caller's environment, to the programs it runs.
        try "TIMEOUT=2\nPASSCONDUIT_FILTER_FAULT=hang\n:0 fw\n| \(try filterCommand(root))\n:0\n\(md.path)/\n".write(to: rc, atomically: true, encoding: .utf8)
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))])
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/procmail"), arguments: ["-m", rc.path], input: message,
                                  environment: FilterRun.environment(root))
        XCTAssertEqual(r.status, 0)
        XCTAssertLessThan(r.seconds, 15)
        XCTAssertGreaterThan(r.seconds, 1.5, "the filter did not hang, so procmail's TIMEOUT was not exercised")
        var delivered = try maildirFiles(md)
        if var only = delivered.first, only.count == message.count + 1, only.last == 10 { only.removeLast(); delivered = [only] }
        XCTAssertTrue(delivered == [message], "not the original: \(delivered.map(\.count)) vs \(message.count) bytes")
    }

    func testProcmailKeepsTheMessageWhenTheFilterFailsClosed() throws {
        // A scanner crash with --fail-closed: the filter exits 75 with nothing, procmail rescues the original.
        let root = FilterRun.directory("procmail-failclosed")
        let md = makeMaildir(root)
        let rc = root.appendingPathComponent("procmailrc")
        try ":0 fw\n| \(try filterCommand(root)) --fail-closed\n:0\n\(md.path)/\n".write(to: rc, atomically: true, encoding: .utf8)
        let message = Array("From: a@example.org\nSubject: s\n\nbody\n".utf8)
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/procmail"), arguments: ["-m", rc.path], input: message,
                                  environment: FilterRun.environment(root, extra: ["PASSCONDUIT_FILTER_FAULT": "crash"]))
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(try maildirFiles(md), [message + [10]])   // the original, plus procmail's final empty line
    }
}
