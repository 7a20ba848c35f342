import Foundation
import XCTest

/// Protocol abuse on the milter socket, from two clients nobody here wrote or from raw bytes where
/// no client can lie: OpenDKIM's `miltertest` (Lua scripts) and a plain socket. Each session ends
/// cleanly or goes on, the daemon never dies or grows without bound, and a session opened before
/// the abuse still gets its message answered afterwards.
final class MilterProtocolTests: XCTestCase {
    var home: URL!
    var milter: MilterProcess!

    override func setUpWithError() throws {
        home = FilterRun.directory("milter-protocol")
        milter = try MilterProcess(home: home, arguments: ["--timeout", "2", "--library", home.appendingPathComponent("library.sqlite").path,
                                                           "--max-size", "2000000"])
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    // MARK: - miltertest

    /// Runs a Lua script under miltertest against the daemon; returns its status and output.
    private func miltertest(_ script: String, defines: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let url = home.appendingPathComponent("script-\(UUID().uuidString.prefix(8)).lua")
        let prelude = """
            conn = mt.connect("inet:\(milter.port)@127.0.0.1", 20, 0.1)
            if conn == nil then error("cannot connect") end
            if mt.negotiate(conn, nil, nil, nil) ~= nil then error("negotiate failed") end
            function fail(what) mt.echo("FAIL " .. what) error(what) end
            function check(r, what) if r ~= nil then fail(what .. ": " .. tostring(r)) end end
            function trim(s) return (string.gsub(s or "", "^%s+", "")) end

            """
        try (prelude + script).write(to: url, atomically: true, encoding: .utf8)
        var arguments: [String] = []
        for (k, v) in defines.sorted(by: { $0.key < $1.key }) { arguments += ["-D", "\(k)=\(v)"] }
        return try MilterKit.run("/usr/bin/miltertest", arguments + ["-s", url.path])
    }

    private func assertDaemonAlive(maxRSSMiB: Int = 400, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(milter.process.isRunning, "the daemon died", file: file, line: line)
        let status = (try? String(contentsOfFile: "/proc/\(milter.process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        XCTAssertLessThan(rss / 1024, maxRSSMiB, "resident memory \(rss) KiB", file: file, line: line)
    }

    func testAMessageWithPassesGetsOurHeadersAtTheTopAndForgedOnesRemoved() throws {
        let body = home.appendingPathComponent("body.txt")
        try Data(try MilterProtocolTests.bodyOf("messages/two-passes.eml")).write(to: body)
        let r = try miltertest("""
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
            check(mt.header(conn, "From", "a@example.net"), "from")
            check(mt.header(conn, "X-Passconduit", "1 pass (1 new)"), "forged 1")
            check(mt.header(conn, "Subject", "two passes"), "subject")
            check(mt.header(conn, "x-passconduit", "forged again"), "forged 2")
            check(mt.header(conn, "X-Passconduit-Pass", "valid; new"), "forged pass")
            \(try MilterProtocolTests.headerCalls("messages/two-passes.eml"))
            check(mt.eoh(conn), "eoh")
            check(mt.bodyfile(conn, body), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("final reply") end
            if not mt.eom_check(conn, MT_HDRINSERT, "X-Passconduit") then fail("no summary") end
            if trim(mt.getheader(conn, "X-Passconduit", 0)) ~= "2 passes (2 new)" then fail("summary " .. tostring(mt.getheader(conn, "X-Passconduit", 0))) end
            if not mt.eom_check(conn, MT_HDRINSERT, "X-Passconduit-Pass") then fail("no pass line") end
            if not mt.eom_check(conn, MT_HDRCHANGE, "X-Passconduit") then fail("forged summary kept") end
            if not mt.eom_check(conn, MT_HDRCHANGE, "X-Passconduit-Pass") then fail("forged pass line kept") end
            if mt.eom_check(conn, MT_HDRADD) then fail("an appended header") end
            if mt.eom_check(conn, MT_BODYCHANGE) then fail("the body was changed") end
            mt.echo("ok")
            mt.disconnect(conn)
            """, defines: ["body": body.path])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("ok"), r.output)
        XCTAssertEqual(milter.messageLines.count, 1, milter.logLines.joined(separator: "\n"))
        XCTAssertTrue(milter.messageLines.first?.contains("result=headers") ?? false, milter.logLines.joined(separator: "\n"))
    }

    func testAMessageWithoutPassesIsAcceptedWithoutAnyChange() throws {
        let r = try miltertest("""
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
            check(mt.header(conn, "Subject", "hello"), "subject")
            check(mt.eoh(conn), "eoh")
            check(mt.bodystring(conn, "just text\\r\\n"), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("final reply") end
            if mt.eom_check(conn, MT_HDRINSERT) or mt.eom_check(conn, MT_HDRCHANGE) or mt.eom_check(conn, MT_HDRADD) then fail("changed") end
            mt.echo("ok")
            mt.disconnect(conn)
            """)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("ok"), r.output)
    }

    func testTenThousandRecipientsAndOneHundredThousandHeaderFieldsInOneMessage() throws {
        let r = try miltertest("""
            for i = 1, 10000 do check(mt.rcptto(conn, "<user" .. i .. "@example.org>"), "rcpt " .. i) end
            for i = 1, 100000 do check(mt.header(conn, "X-Filler-" .. (i % 97), "value number " .. i), "header " .. i) end
            check(mt.eoh(conn), "eoh")
            check(mt.bodystring(conn, "body\\r\\n"), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("final reply") end
            mt.echo("ok")
            mt.disconnect(conn)
            """)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("ok"), r.output)
        assertDaemonAlive()
        XCTAssertTrue(milter.messageLines.last?.contains("rcpts=10000") ?? false, milter.logLines.suffix(3).joined(separator: "\n"))
    }

    /// Every chunk size from 1 to 65 535 bytes, spread over messages of about 64 MiB each (the scan
    /// cap here is 2 MB: the rest is counted and dropped, never held).
    func testBodyChunksOfEverySizeUpTo65535() throws {
        let r = try miltertest("""
            local size = 1
            local messages = 0
            while size <= 65535 do
                check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
                check(mt.header(conn, "Subject", "chunks"), "subject")
                check(mt.eoh(conn), "eoh")
                local total = 0
                while size <= 65535 and total < 64 * 1024 * 1024 do
                    check(mt.bodystring(conn, string.rep(string.char(65 + size % 26), size)), "chunk " .. size)
                    total = total + size
                    size = size + 1
                end
                check(mt.eom(conn), "eom")
                if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("final reply") end
                messages = messages + 1
            end
            mt.echo("ok " .. messages)
            mt.disconnect(conn)
            """)
        XCTAssertEqual(r.status, 0, r.output)
        let messages = Int(r.output.split(separator: "\n").first { $0.hasPrefix("ok ") }?.dropFirst(3) ?? "") ?? 0
        XCTAssertGreaterThan(messages, 30, r.output)    // 1 + … + 65 535 bytes is 2 GiB: 32 or 33 messages
        XCTAssertEqual(milter.messageLines.count, messages)
        assertDaemonAlive()
        XCTAssertTrue(milter.messageLines.allSatisfy { $0.contains("result=unchanged") }, milter.messageLines.suffix(3).joined(separator: "\n"))
    }

    func testBodyBeforeHeadersAndAnAbortedMessageLeaveTheSessionWorking() throws {
        let r = try miltertest("""
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
            check(mt.bodystring(conn, "a body with no header block\\r\\n"), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("reply 1") end
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt 2")
            check(mt.header(conn, "Subject", "will be aborted"), "subject")
            check(mt.abort(conn), "abort")
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt 3")
            check(mt.header(conn, "Subject", "after the abort"), "subject 3")
            check(mt.eoh(conn), "eoh 3")
            check(mt.bodystring(conn, "x\\r\\n"), "body 3")
            check(mt.eom(conn), "eom 3")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("reply 3") end
            mt.echo("ok")
            mt.disconnect(conn)
            """)
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("ok"), r.output)
        XCTAssertEqual(milter.messageLines.count, 2, milter.logLines.joined(separator: "\n"))
    }

    // MARK: - Raw bytes (no client sends these)

    func testLyingLengthsUnknownCommandsAndHalfPacketsEndOnlyTheirOwnSession() throws {
        // A well-behaved session, opened first and kept open across the abuse.
        let bystander = try RawMilterClient(port: milter.port)
        try bystander.negotiate()
        try bystander.send(RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0]))
        try bystander.send(RawMilterClient.packet("L", Array("Subject".utf8) + [0] + Array(" waiting".utf8) + [0]))
        // Macros need no answer; the bystander sends one now and then, as an MTA may, so the 2 s
        // session timeout of this daemon does not end it while the abuse goes on.
        let keepAlive = RawMilterClient.packet("D", [UInt8(ascii: "R")] + Array("{rcpt_addr}".utf8) + [0] + Array("x".utf8) + [0])

        let abuses: [(String, [UInt8])] = [
            ("length 0", [0, 0, 0, 0]),
            ("length 4 GB - 1", [0xFF, 0xFF, 0xFF, 0xFF] + Array(repeating: 0x41, count: 100)),
            ("length 2 GB (negative as int32)", [0x80, 0, 0, 0, 0x4F]),
            ("length past the cap", [0, 1, 0x20, 0, 0x42] + Array(repeating: 0x41, count: 1000)),
            ("unknown command", RawMilterClient.packet("Z", [1, 2, 3])),
            ("unknown command after negotiation", RawMilterClient.optionNegotiation + RawMilterClient.packet("z", [])),
            ("header with no NUL", RawMilterClient.optionNegotiation + RawMilterClient.packet("L", Array("Subject".utf8))),
            ("body before negotiation", RawMilterClient.packet("B", Array("x".utf8))),
            ("second negotiation", RawMilterClient.optionNegotiation + RawMilterClient.optionNegotiation),
        ]
        for (name, bytes) in abuses {
            let c = try RawMilterClient(port: milter.port)
            try? c.send(bytes)   // the daemon may close before all of a lie has arrived
            XCTAssertTrue(c.waitForClose(seconds: 5), "\(name): the session should end")
            try bystander.send(keepAlive)
        }

        // Stops mid-packet (a length, then silence) and never speaks: both end at the session timeout (2 s).
        let half = try RawMilterClient(port: milter.port)
        try half.send([0, 0, 0, 50, 0x4C, 0x41])
        let silent = try RawMilterClient(port: milter.port)
        var halfClosed = false, silentClosed = false
        for _ in 0..<40 where !(halfClosed && silentClosed) {
            try bystander.send(keepAlive)    // the bystander speaks (a macro packet) and stays
            halfClosed = halfClosed || half.waitForClose(seconds: 0.25)
            silentClosed = silentClosed || silent.waitForClose(seconds: 0.25)
        }
        XCTAssertTrue(halfClosed, "a half packet ends at the timeout")
        XCTAssertTrue(silentClosed, "a silent session ends at the timeout")

        // A header after the body has started: that message passes unchanged, the session goes on.
        let late = try RawMilterClient(port: milter.port)
        try late.negotiate()
        try late.send(RawMilterClient.packet("B", Array("body first\r\n".utf8)))
        try late.send(RawMilterClient.packet("L", Array("X-Late".utf8) + [0, 0x20, 0x31, 0]))
        try late.send(RawMilterClient.packet("E", []))
        XCTAssertEqual(try late.readReply(), UInt8(ascii: "c"))

        // The bystander still gets its answer. (It negotiated no-reply for headers and body.)
        try bystander.send(RawMilterClient.packet("N", []))
        try bystander.send(RawMilterClient.packet("B", Array("still here\r\n".utf8)))
        try bystander.send(RawMilterClient.packet("E", []))
        XCTAssertEqual(try bystander.readReply(), UInt8(ascii: "c"))
        assertDaemonAlive()
    }

    /// The session timeout counts whole packets: a peer that drips a packet one byte at a time
    /// (every 0.3 s, well inside the 2 s timeout) is cut off all the same, and a bystander that
    /// sends whole packets stays.
    func testAPacketDrippedOneByteAtATimeEndsAtTheSessionTimeout() throws {
        let bystander = try RawMilterClient(port: milter.port)
        try bystander.negotiate()
        let keepAlive = RawMilterClient.packet("D", [UInt8(ascii: "R")] + Array("{rcpt_addr}".utf8) + [0] + Array("x".utf8) + [0])
        let drip = try RawMilterClient(port: milter.port)
        try drip.negotiate()
        let packet = RawMilterClient.packet("L", Array("Subject".utf8) + [0] + Array(repeating: 0x61, count: 100) + [0])
        let started = Date()
        var closed = false
        for byte in packet {
            if (try? drip.send([byte])) == nil { closed = true; break }
            try bystander.send(keepAlive)
            if drip.waitForClose(seconds: 0.3) { closed = true; break }
        }
        XCTAssertTrue(closed, "a dripped packet kept the session open")
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
        try bystander.send(RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0]))
        try bystander.send(RawMilterClient.packet("N", []))
        try bystander.send(RawMilterClient.packet("E", []))
        XCTAssertEqual(try bystander.readReply(), UInt8(ascii: "c"))
        XCTAssertTrue(milter.logLines.contains { $0.contains("result=session-closed") && $0.contains("no packet for") },
                      milter.logLines.joined(separator: "\n"))
    }

    /// A message past the 1 MiB held in memory per session moves to a temporary file and is still
    /// scanned whole: a 1.5 MB preamble before the parts, then the passes. The daemon stays small.
    func testAMessageSpooledPastTheMemoryThresholdIsScannedWhole() throws {
        let body = home.appendingPathComponent("big-body.txt")
        let padding = Array(String(repeating: "a preamble line that no MIME reader shows to anybody\r\n", count: 28_000).utf8)
        try Data(padding + (try MilterProtocolTests.bodyOf("messages/two-passes.eml"))).write(to: body)
        XCTAssertGreaterThan(padding.count, 1 << 20)
        let r = try miltertest("""
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
            \(try MilterProtocolTests.headerCalls("messages/two-passes.eml"))
            check(mt.eoh(conn), "eoh")
            check(mt.bodyfile(conn, body), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("final reply") end
            if trim(mt.getheader(conn, "X-Passconduit", 0)) ~= "2 passes (2 new)" then fail("summary " .. tostring(mt.getheader(conn, "X-Passconduit", 0))) end
            mt.echo("ok")
            mt.disconnect(conn)
            """, defines: ["body": body.path])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("ok"), r.output)
        XCTAssertTrue(milter.messageLines.last?.contains("result=headers bytes=") ?? false, milter.logLines.joined(separator: "\n"))
        assertDaemonAlive(maxRSSMiB: 200)
    }

    func testSIGTERMFinishesTheMessageInProgressAndThenExits() throws {
        let c = try RawMilterClient(port: milter.port)
        try c.negotiate()
        try c.send(RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0]))
        try c.send(RawMilterClient.packet("L", Array("Subject".utf8) + [0] + Array(" in progress".utf8) + [0]))
        usleep(200_000)
        kill(milter.process.processIdentifier, SIGTERM)
        usleep(300_000)
        XCTAssertFalse(MilterKit.isListening(milter.port), "no new sessions after SIGTERM")
        try c.send(RawMilterClient.packet("N", []))
        try c.send(RawMilterClient.packet("B", Array("the end\r\n".utf8)))
        try c.send(RawMilterClient.packet("E", []))
        XCTAssertEqual(try c.readReply(), UInt8(ascii: "c"), "the message in progress is answered")
        XCTAssertTrue(c.waitForClose(seconds: 5), "then the session ends")
        milter.process.waitUntilExit()
        XCTAssertEqual(milter.process.terminationStatus, 0)
        XCTAssertEqual(milter.messageLines.count, 1)
    }

    /// Issue 38 item 6 (operator trial D4): with an SMTP session between RCPT and DATA, SIGTERM
    /// made the milter stop at once; Postfix applied milter_default_action = accept and delivered
    /// the forged `X-Passconduit: 9 passes (9 new)`. A session that has begun its message (the
    /// envelope sent, as Postfix sends it: macros and RCPT) is answered within the grace, its
    /// forged fields removed, even when the rest of the message comes seconds after the stop.
    func testSIGTERMBetweenRecipientAndDataStillAnswersTheMessageAndRemovesForgedFields() throws {
        let c = try RawMilterClient(port: milter.port)
        try c.negotiate()
        // Postfix: the MAIL FROM macros (MAIL itself is skipped), then the recipient's macros and RCPT.
        try c.send(RawMilterClient.packet("D", Array("M".utf8) + Array("{mail_addr}".utf8) + [0] + Array("tickets@example.org".utf8) + [0]))
        try c.send(RawMilterClient.packet("D", Array("R".utf8) + Array("{rcpt_addr}".utf8) + [0] + Array("alice@example.org".utf8) + [0]))
        try c.send(RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0]))
        usleep(200_000)
        kill(milter.process.processIdentifier, SIGTERM)
        XCTAssertTrue(MilterKit.waitUntil(5) { self.milter.logLines.contains { $0.contains("stopping: 1 open session(s)") } },
                      milter.logLines.joined(separator: "\n"))
        // The SMTP client is slow to send DATA (a second; this daemon's session timeout is 2 s,
        // which ends any silent session): before the fix the milter had stopped by then.
        sleep(1)
        XCTAssertTrue(milter.process.isRunning, "the milter stopped with a message begun: " + milter.logLines.joined(separator: "\n"))
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))],
                                         extraHeaders: ["X-Passconduit: 9 passes (9 new)"])
        try RawMilterClient.sendMessage(c, message)
        let answer = c.readAnswer()
        XCTAssertEqual(answer.last, "c", "\(answer)")
        XCTAssertTrue(answer.contains { $0.hasPrefix("m X-Passconduit #1") }, "the forged field is removed: \(answer)")
        XCTAssertTrue(c.waitForClose(seconds: 5), "then the session ends")
        milter.process.waitUntilExit()
        XCTAssertEqual(milter.process.terminationStatus, 0)
    }

    func testSIGHUPReloadsTheConfigurationFile() throws {
        milter.stop()
        let config = home.appendingPathComponent("config.toml")
        try "[filter]\nadd-headers = true\n".write(to: config, atomically: true, encoding: .utf8)
        milter = try MilterProcess(home: home, arguments: ["--config", config.path])
        let body = home.appendingPathComponent("body.txt")
        try Data(try MilterProtocolTests.bodyOf("messages/two-passes.eml")).write(to: body)
        let script = """
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
            \(try MilterProtocolTests.headerCalls("messages/two-passes.eml"))
            check(mt.eoh(conn), "eoh")
            check(mt.bodyfile(conn, body), "body")
            check(mt.eom(conn), "eom")
            if mt.eom_check(conn, MT_HDRINSERT, "X-Passconduit") then mt.echo("headers") else mt.echo("none") end
            mt.disconnect(conn)
            """
        XCTAssertTrue(try miltertest(script, defines: ["body": body.path]).output.contains("headers"))
        try "[filter]\nadd-headers = false\n".write(to: config, atomically: true, encoding: .utf8)
        kill(milter.process.processIdentifier, SIGHUP)
        XCTAssertTrue(MilterKit.waitUntil(10) { self.milter.logLines.contains { $0.contains("reloaded settings") } })
        XCTAssertTrue(try miltertest(script, defines: ["body": body.path]).output.contains("none"))
        // A broken file keeps the settings that work.
        try "[filter\n".write(to: config, atomically: true, encoding: .utf8)
        kill(milter.process.processIdentifier, SIGHUP)
        XCTAssertTrue(MilterKit.waitUntil(10) { self.milter.logLines.contains { $0.contains("reload failed") } })
        XCTAssertTrue(milter.process.isRunning)
    }

    /// Issue 38 item 8 (operator trial D7/D8): `--log syslog` on a machine where no syslog daemon
    /// listens dropped every line in silence (glibc's syslog(3) does). The milter says so on
    /// standard error once and writes its lines there instead; a reload does not say it again.
    func testLogSyslogWithoutASyslogDaemonSaysSoOnceAndWritesToStandardError() throws {
        milter.stop()
        try? FileManager.default.removeItem(at: home.appendingPathComponent("milter.out"))
        try? FileManager.default.removeItem(at: milter.logURL)
        milter = try MilterProcess(home: home, arguments: ["--log", "syslog"],
                                   environment: ["PASSCONDUIT_SYSLOG_SOCKET": home.appendingPathComponent("no-syslog-here").path])
        let c = try RawMilterClient(port: milter.port)
        try c.negotiate()
        try c.send(RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0]))
        try RawMilterClient.sendMessage(c, Array("Subject: hello\r\n\r\njust text\r\n".utf8))
        XCTAssertEqual(c.readAnswer().last, "c")
        kill(milter.process.processIdentifier, SIGHUP)
        let out = home.appendingPathComponent("milter.out")
        func text() -> String { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        XCTAssertTrue(MilterKit.waitUntil(10) { text().contains("reloaded settings") }, text())
        let said = text()
        XCTAssertEqual(said.components(separatedBy: "--log syslog: no syslog daemon listens on").count - 1, 1, said)
        XCTAssertTrue(said.contains("the log lines go to standard error instead"), said)
        XCTAssertTrue(said.contains("listening on inet:"), said)
        XCTAssertTrue(said.contains(" result=unchanged "), said)
        XCTAssertFalse(FileManager.default.fileExists(atPath: milter.logURL.path), "no log file with --log syslog")
    }

    /// A scan that crashes or hangs costs its worker process, never the daemon or the message:
    /// the message is accepted unchanged (or 4xx with --on-error tempfail), at the deadline at worst.
    func testACrashingOrHangingScanPassesTheMessageUnchangedAndTheDaemonLives() throws {
        let body = home.appendingPathComponent("body.txt")
        try Data(try MilterProtocolTests.bodyOf("messages/two-passes.eml")).write(to: body)
        let script = """
            check(mt.rcptto(conn, "<alice@example.org>"), "rcpt")
            \(try MilterProtocolTests.headerCalls("messages/two-passes.eml"))
            check(mt.eoh(conn), "eoh")
            check(mt.bodyfile(conn, body), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) == SMFIR_TEMPFAIL then mt.echo("tempfail") end
            if mt.getreply(conn) == SMFIR_CONTINUE then mt.echo("continue") end
            if mt.eom_check(conn, MT_HDRINSERT) then mt.echo("changed") end
            mt.disconnect(conn)
            """
        for (fault, extra) in [("crash", [String]()), ("hang", ["--deadline", "1"]), ("crash", ["--on-error", "tempfail"])] {
            milter.stop()
            try? FileManager.default.removeItem(at: milter.logURL)
            milter = try MilterProcess(home: home, arguments: extra, environment: ["PASSCONDUIT_FILTER_FAULT": fault])
            for _ in 0..<2 {
                let r = try miltertest(script, defines: ["body": body.path])
                XCTAssertEqual(r.status, 0, r.output)
                XCTAssertFalse(r.output.contains("changed"), "\(fault): \(r.output)")
                XCTAssertTrue(r.output.contains(extra.contains("tempfail") ? "tempfail" : "continue"), "\(fault) \(extra): \(r.output)")
            }
            assertDaemonAlive()
            let errors = milter.messageLines.map { $0.contains(fault == "hang" ? "error=deadline" : "error=scan-failed") }
            XCTAssertEqual(errors, [true, true], milter.messageLines.joined(separator: "\n"))
        }
    }

    // MARK: - Sample messages as miltertest calls

    /// The message's body bytes (after the first empty line), with CRLF line ends as SMTP has them.
    static func bodyOf(_ sample: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.sample(sample))))
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = text.range(of: "\n\n") else { return [] }
        return Array(String(text[split.upperBound...]).replacingOccurrences(of: "\n", with: "\r\n").utf8)
    }

    /// `check(mt.header(conn, name, value))` lines for the sample's header fields (unfolded).
    static func headerCalls(_ sample: String) throws -> String {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.sample(sample))))
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        let head = text.components(separatedBy: "\n\n")[0].replacingOccurrences(of: "\n ", with: " ").replacingOccurrences(of: "\n\t", with: " ")
        return head.split(separator: "\n").compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            func lua(_ s: Substring) -> String { "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
            return "check(mt.header(conn, \(lua(line[..<colon])), \(lua(line[line.index(after: colon)...].drop { $0 == " " }))), \"header\")"
        }.joined(separator: "\n")
    }
}

/// A milter client from raw bytes, for what no client would send.
final class RawMilterClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else { throw NSError(domain: "RawMilterClient", code: Int(errno)) }
    }

    deinit { close(fd) }

    static func packet(_ command: Character, _ payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count + 1)
        return [UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
                command.asciiValue ?? 0] + payload
    }

    /// Version 6, every action, every step (no replies to recipients, headers and body chunks).
    static let optionNegotiation = packet("O", [0, 0, 0, 6, 0, 0, 0x01, 0xFF, 0, 0x1F, 0xFF, 0xFF])

    func send(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + done, $0.count - done, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw NSError(domain: "RawMilterClient.send", code: Int(errno)) }
            done += n
        }
    }

    func negotiate() throws {
        try send(Self.optionNegotiation)
        guard try readReply() == UInt8(ascii: "O") else { throw NSError(domain: "RawMilterClient.negotiate", code: 1) }
    }

    /// A whole message after the envelope: its header fields (unfolded) one packet each, the end
    /// of headers, the body in chunks, the end of message. The answer is left to read.
    static func sendMessage(_ c: RawMilterClient, _ message: [UInt8]) throws {
        let text = String(decoding: message, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        let parts = text.components(separatedBy: "\n\n")
        let head = parts[0].replacingOccurrences(of: "\n ", with: " ").replacingOccurrences(of: "\n\t", with: " ")
        for line in head.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            try c.send(packet("L", Array(line[..<colon].utf8) + [0] + Array(value.utf8) + [0]))
        }
        try c.send(packet("N", []))
        let body = Array(parts.dropFirst().joined(separator: "\n\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
        var offset = 0
        while offset < body.count {
            let end = min(offset + 60_000, body.count)
            try c.send(packet("B", Array(body[offset..<end])))
            offset = end
        }
        try c.send(packet("E", []))
    }

    /// The next reply's command byte (its payload is read and dropped).
    func readReply(seconds: Double = 30) throws -> UInt8? {
        guard let header = read(5, seconds: seconds) else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        if length > 1 { _ = read(length - 1, seconds: seconds) }
        return header[4]
    }

    /// The next reply packet: its command byte and payload (nil when none came in time).
    func readPacket(seconds: Double = 30) -> (command: UInt8, payload: [UInt8])? {
        guard let header = read(5, seconds: seconds) else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length >= 1 else { return nil }
        guard length > 1 else { return (header[4], []) }
        guard let payload = read(length - 1, seconds: seconds) else { return nil }
        return (header[4], payload)
    }

    /// The replies to an end of message, up to its final answer: the header changes as
    /// "m NAME #INDEX" / "h NAME: VALUE" / "i …", then the answer's letter ("c", "t", …).
    func readAnswer(seconds: Double = 30) -> [String] {
        var out: [String] = []
        while let (command, payload) = readPacket(seconds: seconds) {
            switch command {
            case UInt8(ascii: "m"), UInt8(ascii: "i"):
                let index = payload.prefix(4).reduce(0) { $0 << 8 | Int($1) }
                let fields = payload.dropFirst(4).split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
                out.append("\(Character(UnicodeScalar(command))) \(fields.first ?? "") #\(index)\(fields.count > 1 && !fields[1].isEmpty ? ": " + fields[1] : "")")
            default:
                out.append(String(Character(UnicodeScalar(command))))
                return out
            }
        }
        return out
    }

    private func read(_ count: Int, seconds: Double) -> [UInt8]? {
        var out: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        while out.count < count, Date() < end {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: count - out.count)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            out += buffer[0..<n]
        }
        return out.count == count ? out : nil
    }

    /// True when the peer closed the connection within `seconds`.
    func waitForClose(seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return true }
        }
        return false
    }
}
