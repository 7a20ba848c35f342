import Foundation
import PostgresTestKit
import XCTest

/// Issue 27, the gateway an operator can trust, through the built binary: the pipe filter as a
/// mail host runs it and the milter daemon under miltertest, with the tests' own PostgreSQL.
/// Secrets never reach a log; forged `X-Passconduit` fields never survive a path that delivers;
/// one recipient's library state never reaches another's copy; one library-error policy.
final class GatewayTrustTests: XCTestCase {
    var home: URL!
    var milter: MilterProcess?

    override func setUpWithError() throws {
        home = FilterRun.directory("gateway")
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    override class func tearDown() { FilterRun.cleanUp() }

    static let forged = ["X-Passconduit: 9 passes (9 new) FORGED-SUMMARY", "X-PASSCONDUIT-pass: valid; contained; FORGED-PASS"]
    var trust: String { Run.sample("ca/trust") }

    func message(_ passes: [(String, [UInt8])], forged: Bool = true, crlf: Bool = true) -> [UInt8] {
        FilterMail.message(passes: passes.map { (name: $0.0, bytes: $0.1) }, crlf: crlf, extraHeaders: forged ? Self.forged : [])
    }

    func ticket() throws -> (String, [UInt8]) { ("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass")) }

    func logText(_ root: URL, _ name: String = "filter.log") -> String {
        (try? String(contentsOf: root.appendingPathComponent("state/passconduit/\(name)"), encoding: .utf8)) ?? ""
    }

    func milterSend(_ bytes: [UInt8], to recipients: [String]) throws -> String {
        guard let milter else { throw NSError(domain: "GatewayTrustTests", code: 1) }
        return try GatewayMilter.send(bytes, to: recipients, port: milter.port, scratch: home)
    }

    // MARK: - 1. Secrets

    /// A map whose server refuses the login, and one whose server is down: neither password
    /// reaches the milter's log or its standard error, and the failed library is named without it.
    func testAPostgresPasswordNeverReachesTheMilterLog() throws {
        let server = try PostgresTestServer.shared
        let database = try server.database()
        let maps = [server.location(database: database, role: "secret", password: "Wr0ng-pw-4711"),
                    "postgresql://postgres:hunter2-down-secret@/\(database)?host=/nonexistent-pc-pg"]
        for map in maps {
            milter?.stop()
            milter = try MilterProcess(home: home, arguments: ["--library-map", map])
            let out = try milterSend(message([try ticket()]), to: ["alice@example.org", "bob@example.org"])
            XCTAssertTrue(out.contains("reply=continue"), out)
            let log = milter!.logLines.joined(separator: "\n")
            let stderr = (try? String(contentsOf: home.appendingPathComponent("milter.out"), encoding: .utf8)) ?? ""
            for secret in ["Wr0ng-pw-4711", "hunter2-down-secret"] {
                XCTAssertFalse(log.contains(secret), log)
                XCTAssertFalse(stderr.contains(secret), stderr)
            }
            XCTAssertTrue(log.contains("library-error="), log)
            XCTAssertTrue(log.contains("(user alice@example.org)") && log.contains("(user bob@example.org)"), log)
        }
    }

    /// The pipe filter and its --check with a password that the server refuses.
    func testAPostgresPasswordNeverReachesTheFilterLogOrCheck() throws {
        let server = try PostgresTestServer.shared
        let database = try server.database()
        let location = server.location(database: database, role: "secret", password: "Wr0ng-pw-0815", extra: "library_user=carol")
        let env = FilterRun.environment(home)
        let r = try FilterRun.filter(message([try ticket()]), arguments: ["--library", location, "--trust", trust, "--verbose"], environment: env)
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
        let log = logText(home)
        XCTAssertTrue(log.contains("library-error=library-unavailable"), log)
        XCTAssertFalse(log.contains("Wr0ng-pw-0815"), log)
        let check = try FilterRun.filter([], arguments: ["--library", location, "--trust", trust, "--check"], environment: env)
        let said = String(decoding: check.stdout + check.stderr, as: UTF8.self)
        XCTAssertEqual(check.status, 75, said)
        XCTAssertTrue(said.contains("refused the login"), said)
        XCTAssertFalse(said.contains("Wr0ng-pw-0815"), said)
    }

    // MARK: - 2. Forged headers

    /// Every way the filter gives up still delivers the message without fields of our names.
    func testForgedHeadersAreRemovedOnEveryPathTheFilterDelivers() throws {
        let input = message([try ticket()])
        let library = ["--library", home.appendingPathComponent("library.sqlite").path, "--trust", trust]
        let cases: [(String, [String], [String: String])] = [
            ("deadline", library + ["--deadline", "0.5"], ["PASSCONDUIT_FILTER_FAULT": "hang"]),
            ("crash", library, ["PASSCONDUIT_FILTER_FAULT": "crash"]),
            ("scan error", library, ["PASSCONDUIT_FILTER_FAULT": "error"]),
            ("unknown option", library + ["--frobnicate"], [:]),
            ("library unusable", ["--library", "/proc/passconduit-none/library.sqlite", "--trust", trust], [:]),
        ]
        for (name, arguments, extra) in cases {
            let r = try FilterRun.filter(input, arguments: arguments, environment: FilterRun.environment(home, extra: extra))
            XCTAssertEqual(r.status, 0, "\(name): " + String(decoding: r.stderr, as: UTF8.self))
            let text = String(decoding: r.stdout, as: UTF8.self)
            XCTAssertFalse(text.contains("FORGED"), "\(name): " + String(text.prefix(600)))
            XCTAssertEqual(FilterPromise.stripOwn(r.stdout), FilterPromise.stripOwn(input), name)
        }
    }

    /// A validly signed pass whose serial number holds a NUL is refused by the library: one
    /// failed pass. The good pass beside it is still offered, and the message gets its headers.
    func testAPassTheLibraryRefusesIsOneFailedPassNotAFailedScan() throws {
        let nul = try FilterPassForge.pass(edits: ["serialNumber": "NUL\u{0}SERIAL"])
        let good = try FilterMail.samplePass("coupon.pkpass")
        let input = message([("nul.pkpass", nul), ("good.pkpass", good)])
        let server = try PostgresTestServer.shared
        let database = try server.database()
        // Both backends: a file library and a PostgreSQL one.
        for libraryPath in [home.appendingPathComponent("library.sqlite").path, server.location(database: database, extra: "library_user=nul")] {
            let r = try FilterRun.filter(input, arguments: ["--library", libraryPath, "--trust", trust], environment: FilterRun.environment(home))
            XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
            let own = FilterPromise.ownHeaderLines(r.stdout)
            XCTAssertEqual(own.count, 3, "\(libraryPath): \(own)\n\(logText(home))")
            XCTAssertTrue(own.contains { $0.contains("action=refused") }, "\(own)")
            XCTAssertTrue(own.contains { $0.contains("action=offered") }, "\(own)")
            XCTAssertFalse(String(decoding: r.stdout, as: UTF8.self).contains("FORGED"))
            let sandbox = try Sandbox()
            let offers = try sandbox.run("offers", ["--library", libraryPath, "--trust", trust, "--json"], common: false)
            XCTAssertEqual(offers.objects.count, 1, libraryPath + ": " + offers.stdout + offers.stderr)
        }
    }

    /// The milter removes forged fields when its scan fails, too.
    func testTheMilterRemovesForgedHeadersWhenTheScanFails() throws {
        milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path],
                                   environment: ["PASSCONDUIT_FILTER_FAULT": "error"])
        let out = try milterSend(message([try ticket()]), to: ["alice@example.org"])
        XCTAssertTrue(out.contains("reply=continue"), out)
        XCTAssertTrue(out.contains("removed X-Passconduit\n") || out.contains("removed X-Passconduit\r\n"), out)
        XCTAssertTrue(out.contains("removed X-Passconduit-Pass"), out)
        XCTAssertFalse(out.contains("FORGED"), out)
        XCTAssertTrue(milter!.messageLines.first?.contains("error=scan-failed") ?? false, milter!.logLines.joined(separator: "\n"))
    }

    /// Defect 8's last hole: messages with forged fields in flight when the daemon is told to
    /// stop. One is being scanned when the grace period ends (its scan hangs, the deadline is far
    /// off): it is answered then, unscanned, its forged fields removed. One is still arriving: its
    /// end of message, after the grace period, gets the same answer at once. Closing either
    /// session instead leaves the message to Postfix's milter_default_action (accept in the
    /// shipped recipe), which delivered the forged fields.
    func testAStoppingMilterRemovesForgedHeadersFromWhatItLetsThrough() throws {
        milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path,
                                                            "--grace", "1", "--deadline", "120"],
                                   environment: ["PASSCONDUIT_FILTER_FAULT": "hang"])
        let input = message([try ticket()])
        let text = String(decoding: input, as: UTF8.self)
        let split = try XCTUnwrap(text.range(of: "\r\n\r\n"))
        let headers: [[UInt8]] = text[..<split.lowerBound].replacingOccurrences(of: "\r\n ", with: " ").components(separatedBy: "\r\n").map { line in
            let colon = line.firstIndex(of: ":")!
            return RawMilterClient.packet("L", Array(line[..<colon].utf8) + [0] + Array(line[line.index(after: colon)...].utf8) + [0])
        }
        let body = RawMilterClient.packet("B", Array(text[split.upperBound...].utf8))
        let start = [RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0])] + headers + [RawMilterClient.packet("N", [])]
        let scanning = try RawMilterClient(port: milter!.port)
        try scanning.negotiate()
        try scanning.send((start + [body, RawMilterClient.packet("E", [])]).flatMap { $0 })
        let arriving = try RawMilterClient(port: milter!.port)
        try arriving.negotiate()
        try arriving.send(start.flatMap { $0 })
        usleep(500_000)   // the first message's scan is running (and hangs)
        let stopped = Date()
        kill(milter!.process.processIdentifier, SIGTERM)
        // Removals go from the last field up (MilterVerdict.replies).
        let expected = ["m X-PASSCONDUIT-pass #1", "m X-Passconduit #1", "c"]
        XCTAssertEqual(scanning.readAnswer(seconds: 20), expected, "the message being scanned")
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 10, "answered at the grace period's end, not the scan deadline")
        XCTAssertTrue(scanning.waitForClose(seconds: 5))
        usleep(UInt32(max(0, 1.5 - Date().timeIntervalSince(stopped)) * 1e6))
        try arriving.send(body + RawMilterClient.packet("E", []))
        XCTAssertEqual(arriving.readAnswer(seconds: 20), expected, "the message still arriving")
        XCTAssertTrue(arriving.waitForClose(seconds: 5))
        milter!.process.waitUntilExit()
        XCTAssertEqual(milter!.process.terminationStatus, 0)
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 15, "the hanging worker does not hold the exit")
        let lines = milter!.logLines.filter { $0.contains("error=stopping") }
        XCTAssertEqual(lines.count, 2, milter!.logLines.joined(separator: "\n"))
        XCTAssertTrue(lines.allSatisfy { $0.contains("result=unchanged") && $0.contains("removed=2") }, lines.joined(separator: "\n"))

        // With --on-error tempfail the message waits instead (nothing is delivered to remove from).
        try? FileManager.default.removeItem(at: milter!.logURL)
        milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path,
                                                            "--grace", "1", "--deadline", "120", "--on-error", "tempfail"],
                                   environment: ["PASSCONDUIT_FILTER_FAULT": "hang"])
        let held = try RawMilterClient(port: milter!.port)
        try held.negotiate()
        try held.send((start + [body, RawMilterClient.packet("E", [])]).flatMap { $0 })
        usleep(500_000)
        kill(milter!.process.processIdentifier, SIGTERM)
        XCTAssertEqual(held.readAnswer(seconds: 20), ["t"])
        milter!.process.waitUntilExit()
    }

    // MARK: - 3. Per-recipient truth

    /// alice holds the pass, dave does not: the header every copy carries says only the verdict;
    /// dave's library gets the offer; the log has one entry per library.
    func testSeveralRecipientsShareOnlyTheVerdictAndEachLibraryGetsItsOwnOutcome() throws {
        let libraries = home.appendingPathComponent("libraries")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        let alice = libraries.appendingPathComponent("alice@example.org.sqlite").path
        let dave = libraries.appendingPathComponent("dave@example.net.sqlite").path
        let sandbox = try Sandbox()
        let added = try sandbox.run("add", ["--library", alice, "--trust", trust, "--yes", Run.sample("passes/event-ticket.pkpass")], common: false)
        XCTAssertEqual(added.status, 0, added.stderr)
        // An empty library for dave (offers opens for writing; list only reads, and creates nothing).
        XCTAssertEqual(try sandbox.run("offers", ["--library", dave], common: false).status, 0)
        milter = try MilterProcess(home: home, arguments: ["--library-map", libraries.path + "/%{local}@%{domain}.sqlite"])
        let input = message([try ticket()], forged: false)
        for order in [["alice@example.org", "dave@example.net"], ["dave@example.net", "alice@example.org"]] {
            let out = try milterSend(input, to: order)
            XCTAssertTrue(out.contains("reply=continue"), out)
            XCTAssertTrue(out.contains("summary 0: 1 pass (1 valid)"), out)
            XCTAssertFalse(out.contains("contained") || out.contains("new") || out.contains("offered"), "\(order): \(out)")
        }
        let offers = try sandbox.run("offers", ["--library", dave, "--trust", trust, "--json"], common: false)
        XCTAssertEqual(offers.objects.count, 1, offers.stdout + offers.stderr)
        let aliceOffers = try sandbox.run("offers", ["--library", alice, "--trust", trust, "--json"], common: false)
        XCTAssertEqual(aliceOffers.objects.count, 0, aliceOffers.stdout)
        let first = milter!.messageLines.first ?? ""
        XCTAssertTrue(first.contains("alice@example.org.sqlite\" outcome=contained/none"), first)
        XCTAssertTrue(first.contains("dave@example.net.sqlite\" outcome=new/offered"), first)

        // One recipient: the header is that recipient's whole truth, as before.
        let single = try milterSend(input, to: ["alice@example.org"])
        XCTAssertTrue(single.contains("summary 0: 1 pass (1 contained)"), single)
    }

    // MARK: - 5. One library-error policy

    /// PostgreSQL down: by default the milter accepts with verdict headers and names the
    /// library; with --on-library-error tempfail it answers 451 4.3.0; a message for a recipient
    /// without a library is never delayed.
    func testTheMilterLibraryErrorPolicy() throws {
        let down = "postgresql://postgres@/passconduit?host=/nonexistent-pc-pg"
        milter = try MilterProcess(home: home, arguments: ["--library-map", down])
        var out = try milterSend(message([try ticket()]), to: ["alice@example.org"])
        XCTAssertTrue(out.contains("reply=continue") && out.contains("summary 0: 1 pass (1 valid)"), out)
        XCTAssertTrue(milter!.messageLines.last?.contains("library=\"postgresql://postgres@/passconduit?host=/nonexistent-pc-pg (user alice@example.org)\" library-error=library-unavailable") ?? false,
                      milter!.logLines.joined(separator: "\n"))
        milter?.stop()
        milter = try MilterProcess(home: home, arguments: ["--library-map", down, "--on-library-error", "tempfail"])
        out = try milterSend(message([try ticket()]), to: ["alice@example.org"])
        XCTAssertTrue(out.contains("reply=replycode"), out)
        // A file map: a recipient without a library file is not affected by the policy.
        milter?.stop()
        milter = try MilterProcess(home: home, arguments: ["--library-map", home.path + "/none/%{local}.sqlite", "--on-library-error", "tempfail"])
        out = try milterSend(message([try ticket()]), to: ["alice@example.org"])
        XCTAssertTrue(out.contains("reply=continue"), out)
    }

    /// The pipe filter: a library it cannot use delivers with verdict headers and logs it by
    /// default, exits 75 with --on-library-error tempfail; --user picks the server library.
    func testTheFilterLibraryErrorPolicyAndUser() throws {
        let input = message([try ticket()], forged: false)
        let down = "postgresql://postgres@/passconduit?host=/nonexistent-pc-pg"
        let env = FilterRun.environment(home)
        let accepted = try FilterRun.filter(input, arguments: ["--library", down, "--trust", trust], environment: env)
        XCTAssertEqual(accepted.status, 0)
        XCTAssertEqual(FilterPromise.ownHeaderLines(accepted.stdout).first, "X-Passconduit: 1 pass (1 valid)")
        XCTAssertTrue(logText(home).contains("library-error=library-unavailable"), logText(home))
        let held = try FilterRun.filter(input, arguments: ["--library", down, "--trust", trust, "--on-library-error", "tempfail"], environment: env)
        XCTAssertEqual(held.status, 75)
        XCTAssertEqual(held.stdout, [])

        let server = try PostgresTestServer.shared
        let database = try server.database()
        let up = server.location(database: database)
        let r = try FilterRun.filter(input, arguments: ["--library", up, "--user", "erin", "--trust", trust], environment: env)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(FilterPromise.ownHeaderLines(r.stdout).first, "X-Passconduit: 1 pass (1 new)", logText(home))
        XCTAssertEqual(try server.psql(database, #"SELECT "user" FROM passconduit.offer"#).trimmingCharacters(in: .whitespacesAndNewlines), "erin")
    }

    /// filter --check fails for a library that cannot be created and for a server that is down.
    func testFilterCheckFailsForALibraryItCannotUse() throws {
        let env = FilterRun.environment(home)
        let readOnly = home.appendingPathComponent("read-only")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        chmod(readOnly.path, 0o500)
        defer { chmod(readOnly.path, 0o700) }
        let cases: [(String, Int32)] = [
            ("postgresql://postgres@/passconduit?host=/nonexistent-pc-pg", 75),
            ("/proc/passconduit-none/library.sqlite", 73),
        ] + (geteuid() == 0 ? [] : [(readOnly.appendingPathComponent("sub/library.sqlite").path, Int32(73))])
        for (location, status) in cases {
            let r = try FilterRun.filter([], arguments: ["--library", location, "--trust", trust, "--check"], environment: env)
            XCTAssertEqual(r.status, status, location + ": " + String(decoding: r.stderr, as: UTF8.self))
            XCTAssertTrue(String(decoding: r.stderr, as: UTF8.self).contains("library"), String(decoding: r.stderr, as: UTF8.self))
        }
        let fine = try FilterRun.filter([], arguments: ["--library", home.appendingPathComponent("new/library.sqlite").path, "--trust", trust, "--check"], environment: env)
        XCTAssertEqual(fine.status, 0, String(decoding: fine.stderr, as: UTF8.self))
    }
}

/// Issue 27 defects 2 and 6: upgrade then reload, and the checks an operator's unit runs.
final class GatewayDaemonTests: XCTestCase {
    var home: URL!
    var milter: MilterProcess?

    override func setUpWithError() throws {
        home = FilterRun.directory("gateway-daemon")
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    override class func tearDown() { FilterRun.cleanUp() }

    func send(_ recipients: [String]) throws -> String {
        try GatewayMilter.send(FilterMail.message(passes: [(name: "ticket.pkpass", bytes: try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true),
                               to: recipients, port: milter!.port, scratch: home)
    }

    /// `passconduit milter …` to its end; killed after 20 s (a daemon that starts when it should
    /// have refused fails the test instead of hanging it).
    func milterRun(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try MilterKit.run("/usr/bin/timeout", ["-s", "KILL", "20", Binary.url.path, "milter"] + arguments, environment: FilterRun.environment(home))
    }

    /// The binary is replaced the way a package upgrade does it (a new file renamed over the old
    /// one), then SIGHUP: the daemon still starts its workers and scans.
    func testAfterTheBinaryIsReplacedAReloadStillScans() throws {
        let bin = home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let installed = bin.appendingPathComponent("passconduit")
        try FileManager.default.copyItem(at: Binary.url, to: installed)
        milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path],
                                   executable: installed)
        XCTAssertTrue(try send(["alice@example.org"]).contains("summary 0: 1 pass (1 new)"))
        let upgrade = bin.appendingPathComponent("passconduit.new")
        try FileManager.default.copyItem(at: Binary.url, to: upgrade)
        XCTAssertEqual(rename(upgrade.path, installed.path), 0)
        kill(milter!.process.processIdentifier, SIGHUP)
        XCTAssertTrue(MilterKit.waitUntil(30) { self.milter!.logLines.contains { $0.contains("reloaded settings") || $0.contains("reload refused") } },
                      milter!.logLines.joined(separator: "\n"))
        let out = try send(["alice@example.org"])
        XCTAssertTrue(out.contains("summary 0: 1 pass (1 new)"), out + milter!.logLines.joined(separator: "\n"))
        XCTAssertFalse(milter!.logLines.joined().contains("cannot start scan worker"), milter!.logLines.joined(separator: "\n"))
    }

    /// Listen failures end with 75 and one sentence, never a trap; a broken config or library
    /// map at start is 78 with the reason.
    func testStartFailuresExitWithASentence() throws {
        let missing = try milterRun(["--listen", "unix:/missing-pc-dir/milter.sock"])
        XCTAssertEqual(missing.status, 75, missing.output)
        XCTAssertTrue(missing.output.contains("cannot listen on unix:/missing-pc-dir/milter.sock: No such file or directory"), missing.output)
        XCTAssertFalse(missing.output.contains("leaking promise") || missing.output.contains("Fatal error"), missing.output)

        // A port someone else holds.
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(holder, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(holder, $0, &length) } }
        XCTAssertEqual(listen(holder, 1), 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let busy = try milterRun(["--listen", "inet:\(port)@127.0.0.1"])
        XCTAssertEqual(busy.status, 75, busy.output)
        XCTAssertTrue(busy.output.contains("Address already in use"), busy.output)

        let listenArgs = ["--listen", "inet:\(MilterKit.freePort())@127.0.0.1"]
        for (map, words) in [("/var/lib/pc/%{locl}@%{domain}.sqlite", "unknown placeholder %{locl}"),
                             ("/var/lib/pc/library.sqlite", "has no %{local}")] {
            let r = try milterRun(listenArgs + ["--library-map", map])
            XCTAssertEqual(r.status, 78, r.output)
            XCTAssertTrue(r.output.contains(words), r.output)
            XCTAssertFalse(r.output.contains("Usage:"), r.output)
        }
        let config = home.appendingPathComponent("config.toml")
        try "[filter\n".write(to: config, atomically: true, encoding: .utf8)
        let broken = try milterRun(listenArgs + ["--config", config.path])
        XCTAssertEqual(broken.status, 78, broken.output)
        XCTAssertTrue(broken.output.contains(config.path), broken.output)
        XCTAssertFalse(broken.output.contains("Usage:"), broken.output)
    }

    /// `milter --check`: what ExecStartPre and ExecReload run.
    func testMilterCheck() throws {
        let trust = Run.sample("ca/trust")
        let ok = try milterRun(["--listen", "unix:\(home.path)/milter.sock", "--trust", trust, "--check",
                                "--library-map", home.path + "/%{local}@%{domain}.sqlite"])
        XCTAssertEqual(ok.status, 0, ok.output)
        XCTAssertTrue(ok.output.contains("passconduit milter --check: ok"), ok.output)
        let down = try milterRun(["--listen", "unix:\(home.path)/milter.sock", "--trust", trust, "--check",
                                  "--library-map", "postgresql://postgres:pw-in-check@/passconduit?host=/nonexistent-pc-pg"])
        XCTAssertEqual(down.status, 75, down.output)
        XCTAssertFalse(down.output.contains("pw-in-check"), down.output)
        let socketFolder = try milterRun(["--listen", "unix:/missing-pc-dir/milter.sock", "--trust", trust, "--check"])
        XCTAssertEqual(socketFolder.status, 73, socketFolder.output)
        XCTAssertTrue(socketFolder.output.contains("/missing-pc-dir"), socketFolder.output)
    }

    /// `--recipient-delimiter +`: alice+travel@example.org's offer lands in alice's library.
    func testRecipientDelimiterMapsAnExtensionToTheMailbox() throws {
        let alice = home.appendingPathComponent("alice@example.org.sqlite").path
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("offers", ["--library", alice], common: false).status, 0)   // creates it; list would not
        milter = try MilterProcess(home: home, arguments: ["--library-map", home.path + "/%{local}@%{domain}.sqlite", "--recipient-delimiter", "+"])
        let out = try send(["Alice+Travel@example.org"])
        XCTAssertTrue(out.contains("summary 0: 1 pass (1 new)"), out + milter!.logLines.joined(separator: "\n"))
        let offers = try sandbox.run("offers", ["--library", alice, "--trust", Run.sample("ca/trust"), "--json"], common: false)
        XCTAssertEqual(offers.objects.count, 1, offers.stdout + offers.stderr)
    }
}

/// miltertest as an MTA: one message to the daemon, what it answered.
enum GatewayMilter {

    /// `check(mt.header(…))` lines for the header fields of `bytes`, and its body (CRLF) in a file.
    static func milterInput(_ bytes: [UInt8], scratch home: URL) throws -> (headers: String, body: URL) {
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        let split = text.range(of: "\n\n")!
        let head = String(text[..<split.lowerBound]).replacingOccurrences(of: "\n ", with: " ")
        let body = home.appendingPathComponent("body-\(UUID().uuidString.prefix(8)).txt")
        try Data(String(text[split.upperBound...]).replacingOccurrences(of: "\n", with: "\r\n").utf8).write(to: body)
        func lua(_ s: Substring) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
        let calls = head.split(separator: "\n").compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return "check(mt.header(conn, \(lua(line[..<colon])), \(lua(line[line.index(after: colon)...].drop { $0 == " " }))), \"header\")"
        }
        return (calls.joined(separator: "\n"), body)
    }

    /// Sends `bytes` to `recipients` through the milter; the script's output (`reply=…`, our
    /// headers as `hdr N: value`, `removed NAME`) and status.
    /// `queueID`: sent as the `i` macro before the recipients, as Postfix sends `{i}`.
    /// `socket`: a Unix socket's path to connect to instead of the port.
    static func send(_ bytes: [UInt8], to recipients: [String], port: Int, scratch home: URL, queueID: String? = nil,
                     socket: String? = nil) throws -> String {
        let (headers, body) = try milterInput(bytes, scratch: home)
        let script = home.appendingPathComponent("send-\(UUID().uuidString.prefix(8)).lua")
        try """
            conn = mt.connect("\(socket.map { "unix:" + $0 } ?? "inet:\(port)@127.0.0.1")", 20, 0.1)
            if conn == nil then error("cannot connect") end
            if mt.negotiate(conn, nil, nil, nil) ~= nil then error("negotiate failed") end
            function fail(what) mt.echo("FAIL " .. what) error(what) end
            function check(r, what) if r ~= nil then fail(what .. ": " .. tostring(r)) end end
            \(queueID.map { "check(mt.macro(conn, SMFIC_RCPT, \"i\", \"\($0)\"), \"macro\")" } ?? "")
            \(recipients.map { "check(mt.rcptto(conn, \"<\($0)>\"), \"rcpt\")" }.joined(separator: "\n"))
            \(headers)
            check(mt.eoh(conn), "eoh")
            check(mt.bodyfile(conn, "\(body.path)"), "body")
            check(mt.eom(conn), "eom")
            local r = mt.getreply(conn)
            if r == SMFIR_CONTINUE then mt.echo("reply=continue")
            elseif r == SMFIR_TEMPFAIL then mt.echo("reply=tempfail")
            elseif r == SMFIR_REPLYCODE then mt.echo("reply=replycode")
            else mt.echo("reply=other") end
            for i = 0, 5 do
              local v = mt.getheader(conn, "X-Passconduit", i)
              if v ~= nil then mt.echo("summary " .. i .. ":" .. v) end
              local p = mt.getheader(conn, "X-Passconduit-Pass", i)
              if p ~= nil then mt.echo("pass " .. i .. ":" .. p) end
            end
            if mt.eom_check(conn, MT_HDRCHANGE, "X-Passconduit") then mt.echo("removed X-Passconduit") end
            if mt.eom_check(conn, MT_HDRCHANGE, "X-PASSCONDUIT-pass") then mt.echo("removed X-Passconduit-Pass") end
            if mt.eom_check(conn, MT_BODYCHANGE) then mt.echo("BODY CHANGED") end
            mt.disconnect(conn)
            """.write(to: script, atomically: true, encoding: .utf8)
        let r = try MilterKit.run("/usr/bin/miltertest", ["-s", script.path])
        XCTAssertEqual(r.status, 0, r.output)
        return r.output
    }

}
