import XCTest
@testable import Conduit

final class DeliveryFilterTests: XCTestCase {
    let newPass = FilterPassReport(status: "valid", library: "new", action: .offered, passTypeIdentifier: "pass.com.example.event",
                                   serialNumber: "E-1", organizationName: "Example")

    private func run(_ message: String, reports: [FilterPassReport], options: FilterOptions = FilterOptions(),
                     isolation: FilterScanIsolation = .inline) -> (String?, FilterPlan) {
        let filter = DeliveryFilter(options: options)
        let runner = FilterScanRunner(isolation: isolation, deadlineSeconds: options.deadlineSeconds)
        let (out, plan) = filter.filter(Array(message.utf8), runner: runner) { FixedScanner(reports: reports) }
        return (out.map { String(decoding: $0, as: UTF8.self) }, plan)
    }

    func testNoPassMeansByteIdenticalOutput() {
        let m = "From a@b Sat\nSubject: x\n\nbody"
        let (out, plan) = run(m, reports: [])
        XCTAssertEqual(out, m)
        XCTAssertEqual(plan.output, .unchanged)
    }

    func testHeadersGoAfterFromLineInTheMessagesLineEnding() {
        let m = "From a@b Sat\r\nSubject: x\r\n\r\nbody\r\n"
        let (out, _) = run(m, reports: [newPass])
        XCTAssertEqual(out, "From a@b Sat\r\nX-Passconduit: 1 pass (1 new)\r\n"
                       + "X-Passconduit-Pass: valid; new; action=offered; type=pass.com.example.event;\r\n serial=E-1; org=\"Example\"\r\n"
                       + "Subject: x\r\n\r\nbody\r\n")
    }

    func testForgedHeadersAreReplacedByOurs() {
        let m = "Subject: x\nX-Passconduit: 5 passes (5 update)\nX-Passconduit-Pass: valid; update;\n org=\"Bank\"\nTo: y\n\nbody\n"
        let (out, _) = run(m, reports: [newPass])
        XCTAssertEqual(out?.components(separatedBy: "X-Passconduit: ").count, 2)
        XCTAssertFalse(out?.contains("Bank") ?? true)
        XCTAssertTrue(out?.hasSuffix("Subject: x\nTo: y\n\nbody\n") ?? false)
    }

    func testForgedHeadersAreRemovedEvenWhenNoPassIsFound() {
        let (out, _) = run("X-Passconduit: 1 pass (1 new)\nSubject: x\n\nb\n", reports: [])
        XCTAssertEqual(out, "Subject: x\n\nb\n")
    }

    func testNoHeadersOptionAlwaysPassesTheInput() {
        var o = FilterOptions()
        o.headers = false
        let m = "X-Passconduit: forged\n\nb"
        XCTAssertEqual(run(m, reports: [newPass], options: o).0, m)
    }

    func testFilteringTwiceEqualsOnce() {
        for m in ["Subject: x\n\nb\n", "From x\r\nX-Passconduit: old\r\n\r\n", "no header at all", ""] {
            let once = run(m, reports: [newPass, newPass]).0 ?? ""
            let twice = run(once, reports: [newPass, newPass]).0
            XCTAssertEqual(twice, once)
        }
    }

    func testMessageStartingWithAFoldedLineGetsNoHeadersSoNothingIsAdoptedOrLost() {
        let m = " looks folded\nSubject: x\n\nbody\n"
        XCTAssertEqual(run(m, reports: [newPass]).0, m)
    }

    func testScanFailurePassesOriginalUnchangedOrFailsClosed() {
        let m = "X-Passconduit: forged\nSubject: x\n\nb\n"
        let filter = DeliveryFilter(options: FilterOptions())
        let (out, plan) = filter.filter(Array(m.utf8), runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) { ThrowingScanner() }
        XCTAssertEqual(out, Array(m.utf8))
        XCTAssertEqual(plan.error?.code, .scanFailed)

        var closed = FilterOptions()
        closed.failClosed = true
        let (none, plan2) = DeliveryFilter(options: closed).filter(Array(m.utf8), runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 5)) { ThrowingScanner() }
        XCTAssertNil(none)
        XCTAssertEqual(plan2.exitStatus, .tempFailure)
    }

    func testDeadlinePassesTheMessageThrough() {
        var o = FilterOptions()
        o.deadlineSeconds = 0.001
        let filter = DeliveryFilter(options: o)
        let m = Array("Subject: x\n\nb\n".utf8)
        let started = Date()
        let (out, plan) = filter.filter(m, runner: FilterScanRunner(isolation: .thread, deadlineSeconds: 0.001)) {
            FixedScanner(reports: [FilterPassReport(status: "valid", library: "new")], delay: 500_000)
        }
        XCTAssertEqual(out, m)
        XCTAssertEqual(plan.error?.code, .deadline)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.4)
    }

    func testOversizeMessagePassesUnscannedButLosesForgedHeaders() {
        var o = FilterOptions()
        o.maxScanBytes = 10
        let (out, plan) = run("X-Passconduit: forged\nSubject: a long enough message\n\nb\n", reports: [newPass], options: o)
        XCTAssertEqual(out, "Subject: a long enough message\n\nb\n")
        XCTAssertTrue(plan.oversize)
        XCTAssertEqual(plan.reports, [])
    }

    func testSpoolSpillsToAnUnnamedPrivateFileAndReadsBackExactly() throws {
        var g = SeededGenerator(state: 7)
        let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &g) }
        let spool = try FilterSpool(bytes: bytes, memoryLimit: 1000)
        XCTAssertTrue(spool.isOnDisk)
        XCTAssertEqual(try spool.contents(maxBytes: 1 << 30), bytes)
        XCTAssertNil(try spool.contents(maxBytes: 299_999))
        XCTAssertEqual(try spool.bytes(in: 299_990..<400_000), Array(bytes[299_990...]))
        var copied: [UInt8] = []
        try spool.copy(5..<299_000) { copied.append(contentsOf: $0) }
        XCTAssertEqual(copied, Array(bytes[5..<299_000]))
    }

    func testPrivateFileIsMode0600AndNameless() throws {
        let fd = try FilterSpool.createPrivateFile(in: NSTemporaryDirectory())
        defer { close(fd) }
        var st = stat()
        XCTAssertEqual(fstat(fd, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
        XCTAssertEqual(st.st_nlink, 0)
    }

    func testReadToEndFromAPipeSpoolsEverything() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let payload = [UInt8](repeating: 0x61, count: 3 << 20)
        let writeEnd = fds[1]
        let writer = Thread {
            payload.withUnsafeBytes { b in
                var done = 0
                while done < b.count { let n = write(writeEnd, b.baseAddress! + done, b.count - done); if n <= 0 { break }; done += n }
            }
            close(writeEnd)
        }
        writer.start()
        let spool = FilterSpool(memoryLimit: 1 << 20)
        try spool.readToEnd(from: fds[0], temporaryDirectory: nil)
        close(fds[0])
        XCTAssertEqual(spool.byteCount, payload.count)
        XCTAssertTrue(spool.isOnDisk)
        XCTAssertEqual(try spool.contents(maxBytes: .max), payload)
    }

    func testArgumentsAreParsedLenientlyAndProblemsRecorded() {
        let a = FilterArguments(["--no-headers", "--deadline=0.5", "--max-size", "100", "--frobnicate", "--log", "loud", "-x", "--deadline"])
        XCTAssertFalse(a.options.headers)
        XCTAssertEqual(a.options.deadlineSeconds, 0.5)
        XCTAssertEqual(a.options.maxScanBytes, 100)
        XCTAssertTrue(a.options.failClosed)
        XCTAssertEqual(a.problems, ["unknown argument --frobnicate", "--log wants file, syslog or none, not loud", "--deadline needs a value"])
    }

    func testConfigurationFillsWhatTheCommandLineLeftOpen() throws {
        let config = try Config.parse("""
            language = "de"
            [library]
            path = "/srv/lib.sqlite"
            [trust]
            directories = ["/etc/anchors"]
            [filter]
            apply-updates = false
            add-headers = false
            deadline-seconds = 2
            max-message-bytes = 1000
            """, file: "/etc/passconduit/config.toml", environment: [:])
        var args = FilterArguments(["--deadline", "1", "--trust", "/mine"])
        FilterConfiguration.apply(config, to: &args.options, explicit: args.explicit, environment: [:])
        let o = args.options
        XCTAssertEqual(o.deadlineSeconds, 1)          // the flag wins
        XCTAssertEqual(o.maxScanBytes, 1000)
        XCTAssertFalse(o.applyUpdates)
        XCTAssertFalse(o.headers)
        // Library, anchors and language resolve exactly as for every other command.
        let setup = FilterScanner(options: o, environment: ["LANG": "fr_FR.UTF-8"]).setup
        XCTAssertEqual(setup.libraryPath, "/srv/lib.sqlite")
        XCTAssertEqual(Array(setup.trustDirectories.suffix(2)), ["/etc/anchors", "/mine"])
        XCTAssertEqual(setup.preferredLanguages, ["de"])
        var cli = o
        cli.libraryPath = "/flag.sqlite"
        XCTAssertEqual(FilterScanner(options: cli, environment: [:]).setup.libraryPath, "/flag.sqlite")
    }

    func testBrokenConfigIsReportedNotThrown() {
        var o = FilterOptions()
        o.configPath = "/nonexistent/passconduit.toml"
        XCTAssertEqual(FilterConfiguration.apply(to: &o, explicit: [], environment: [:])?.code, .badConfig)
    }

    func testReportsSurviveTheChildProcessCodec() {
        let reports = [newPass, FilterPassReport(status: "invalid", errorCode: "not-a-zip"),
                       FilterPassReport(status: "valid", library: "update", action: .updated, organizationName: "Ünïcode,:\r\n", sha256: "ab")]
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encode(reports)), .success(reports))
        XCTAssertEqual(FilterReportCodec.decode(FilterReportCodec.encodeFailure("boom")), .failure(FilterError(.scanFailed, detail: "boom")))
        let good = FilterReportCodec.encode(reports)
        for cut in 0..<good.count { XCTAssertNil(FilterReportCodec.decode(Array(good.prefix(cut))), "prefix \(cut)") }
        XCTAssertNil(FilterReportCodec.decode(Array("R999999999:".utf8)))
    }

    func testEnvironmentIsReadFromEnviron() {
        XCTAssertEqual(FilterEnvironment.current()["PATH"], ProcessInfo.processInfo.environment["PATH"])
    }

    func testLogLineCarriesOutcomeCountsAndNoAddresses() {
        var plan = FilterPlan(byteCount: 1234)
        plan.output = .rewritten(headers: [], layout: FilterMessageLayout(insertionOffset: 0, lineEnding: [10], ownFieldRanges: []))
        plan.reports = [newPass]
        let line = FilterLog.line(for: plan, elapsed: 0.01234, wroteOutput: true)
        XCTAssertTrue(line.contains(" result=headers bytes=1234 passes=\"1 pass (1 new)\" pass=new/offered/pass.com.example.event,- ms=12.3"), line)
        XCTAssertTrue(line.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ pid=\d+ "#, options: .regularExpression) != nil, line)
    }

    func testEnvironmentWithoutHomeFallsBackToPasswd() {
        let env = FilterEnvironment.resolve(["XDG_STATE_HOME": "relative/dir", "TMPDIR": "tmp"])
        XCTAssertEqual(env["HOME"], FilterEnvironment.passwdHome())
        XCTAssertNil(env["XDG_STATE_HOME"])
        XCTAssertNil(env["TMPDIR"])
        XCTAssertEqual(FilterEnvironment.stateDirectory(["HOME": "/h"]), "/h/.local/state/passconduit")
        XCTAssertEqual(FilterEnvironment.stateDirectory(["HOME": "/h", "XDG_STATE_HOME": "/s"]), "/s/passconduit")
    }
}
