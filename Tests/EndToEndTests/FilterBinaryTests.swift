import Foundation
import XCTest
import TestRandom

/// `passconduit filter` as a mail host runs it: only ever "complete message + 0" or "nothing + 75".
final class FilterBinaryTests: XCTestCase {
    override class func tearDown() { FilterRun.cleanUp() }

    let plain = Array("From: a@example.org\nTo: b@example.org\nSubject: hello\n\nbody line\n".utf8)

    private func assertPassedThrough(_ r: FilterRun.Result, _ input: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(r.signaled, "died of a signal", file: file, line: line)
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self), file: file, line: line)
        XCTAssertEqual(r.stdout, input, "output is not the input (\(r.stdout.count) vs \(input.count) bytes)", file: file, line: line)
        XCTAssertEqual(r.stderr, [], "stderr on success", file: file, line: line)
    }

    private func assertTempFail(_ r: FilterRun.Result, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(r.signaled, "died of a signal", file: file, line: line)
        XCTAssertEqual(r.status, 75, file: file, line: line)
        XCTAssertEqual(r.stdout, [], "output with exit 75", file: file, line: line)
        XCTAssertTrue(String(decoding: r.stderr, as: UTF8.self).hasPrefix("4.3.0 "), String(decoding: r.stderr, as: UTF8.self), file: file, line: line)
    }

    func testEdgeCaseInputsComeOutByteIdenticalWithSilentStderr() throws {
        let inputs: [[UInt8]] = [[], [0x41], [0x0A], plain, Array(plain.dropLast()),
                                 [UInt8](repeating: 0x61, count: 65_535), [UInt8](repeating: 0x0A, count: 65_536),
                                 [UInt8](repeating: 0, count: 65_537),
                                 Array("From x@y Sat\r\nSubject: crlf\r\n\r\nb\0dy\r\n".utf8)]
        for input in inputs { assertPassedThrough(try FilterRun.filter(input), input) }
    }

    func testBadArgumentsPassTheMessageOrFailClosed() throws {
        assertPassedThrough(try FilterRun.filter(plain, arguments: ["--frobnicate", "--deadline"]), plain)
        assertPassedThrough(try FilterRun.filter(plain, arguments: ["--max-size", "lots"]), plain)
        assertTempFail(try FilterRun.filter(plain, arguments: ["--frobnicate", "--fail-closed"]))
    }

    /// `--help` always answers a person: on stdout with 0 when a terminal is at either end, on stderr with 75 (the
    /// message stays with the host) when both ends are pipes, as on a mail host whose recipe says --help by mistake.
    func testHelpIsShownWithoutATerminalAndNeverReplacesTheMessage() throws {
        let piped = try FilterRun.filter(plain, arguments: ["--help"])
        XCTAssertEqual(piped.status, 75)
        XCTAssertTrue(piped.stdout.isEmpty)
        XCTAssertTrue(String(decoding: piped.stderr, as: UTF8.self).contains("--on-library-error"), String(decoding: piped.stderr, as: UTF8.self))
        let out = FilterRun.directory("help").appendingPathComponent("pty.out")
        let command = "'\(Binary.url.path)' filter --help < /dev/null"
        let onTerminal = try HandOn.run("/usr/bin/script", ["-qec", command, out.path])
        XCTAssertEqual(onTerminal.status, 0, onTerminal.stderr)
        XCTAssertTrue(try String(contentsOf: out, encoding: .utf8).contains("--on-library-error"))
    }

    func testBrokenConfigPassesTheMessageOrFailsClosed() throws {
        let home = FilterRun.directory("home")
        let config = home.appendingPathComponent("config/passconduit/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[filter]\nadd-headers = maybe\n".write(to: config, atomically: true, encoding: .utf8)
        let env = FilterRun.environment(home)
        assertPassedThrough(try FilterRun.filter(plain, environment: env), plain)
        assertTempFail(try FilterRun.filter(plain, arguments: ["--fail-closed"], environment: env))
        assertPassedThrough(try FilterRun.filter(plain, arguments: ["--config", "/nonexistent.toml"], environment: env), plain)
    }

    func testRunsWithoutHomeOrXDGInARootCwdAndAnUnwritableCwd() throws {
        let bare = ["PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C", "SWIFT_BACKTRACE": "enable=no"]
        assertPassedThrough(try FilterRun.filter(plain, arguments: ["--log", "none"], environment: bare, cwd: URL(fileURLWithPath: "/")), plain)
        let locked = FilterRun.directory("locked")
        chmod(locked.path, 0o500)
        defer { chmod(locked.path, 0o700) }
        assertPassedThrough(try FilterRun.filter(plain, arguments: ["--log", "none"], environment: bare, cwd: locked), plain)
    }

    func testLogsOneLinePerMessageToTheStateDirectory() throws {
        let home = FilterRun.directory("home")
        let env = FilterRun.environment(home)
        for _ in 0..<3 { assertPassedThrough(try FilterRun.filter(plain, environment: env), plain) }
        let log = try String(contentsOf: home.appendingPathComponent("state/passconduit/filter.log"), encoding: .utf8)
        let lines = log.split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines.allSatisfy { $0.contains("result=unchanged") && $0.contains("bytes=\(plain.count)") }, log)
        var st = stat()
        stat(home.appendingPathComponent("state/passconduit/filter.log").path, &st)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)
    }

    func testLogIsRotatedPastItsLimit() throws {
        let home = FilterRun.directory("home")
        let log = home.appendingPathComponent("state/passconduit/filter.log")
        try FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 0x2E, count: 4 << 20).write(to: log)
        assertPassedThrough(try FilterRun.filter(plain, environment: FilterRun.environment(home)), plain)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: log.path + ".1")[.size] as? Int), (4 << 20) + 0, "old log kept as .1")
        assertPassedThrough(try FilterRun.filter(plain, environment: FilterRun.environment(home)), plain)
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").count, 2)
    }

    func testSyslogGetsOneLineAtFacilityMail() throws {
        // A private /dev (user + mount namespace) whose /dev/log is a datagram socket we read.
        // The receiver is waited for before rc is echoed, so its line always comes first.
        let script = #"""
            unshare -rm bash -c 'D=$(mktemp -d); mkdir $D/dev; touch $D/dev/null $D/dev/urandom
              mount --bind /dev/null $D/dev/null && mount --bind /dev/urandom $D/dev/urandom && mount --bind $D/dev /dev || exit 9
              python3 -c "import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(\"/dev/log\"); s.settimeout(10); print(s.recv(4096).decode(errors=\"replace\"))" &
              for i in $(seq 100); do [ -S /dev/log ] && break; sleep 0.05; done
              "$PASSCONDUIT" filter --log syslog > /dev/null; rc=$?; wait; echo "rc=$rc"'
            """#
        let r = try FilterRun.shell(script, input: plain, environment: FilterRun.environment(FilterRun.directory("home")))
        let text = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(text.contains("<22>"), "facility mail (2), severity info (6): \(text) \(String(decoding: r.stderr, as: UTF8.self))")
        XCTAssertTrue(text.contains("passconduit[") && text.contains("result=unchanged bytes=\(plain.count)"), text)
        XCTAssertTrue(text.hasSuffix("rc=0\n"), text)
    }

    func testForgedHeadersAreRemovedByTheBinary() throws {
        let forged = Array("X-Passconduit: 1 pass (1 update)\nX-Passconduit-Pass: valid; update;\n org=\"Bank\"\n".utf8) + plain
        let r = try FilterRun.filter(forged)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, plain)
    }

    func testScannerCrashPassesTheMessage() throws {
        let env = FilterRun.environment(FilterRun.directory("home"), extra: ["PASSCONDUIT_FILTER_FAULT": "crash"])
        assertPassedThrough(try FilterRun.filter(plain, environment: env), plain)
        assertTempFail(try FilterRun.filter(plain, arguments: ["-x"], environment: env))
    }

    /// The scan runs in the filter's own process: a crash or the deadline is handled in a signal
    /// handler, which still writes the message's one log line (making the log folder the first time),
    /// and with the real scanner a pass message passes whole too.
    func testACrashOrTheDeadlineInTheScanStillLogsOneLine() throws {
        let home = FilterRun.directory("home")
        let log = home.appendingPathComponent("state/passconduit/filter.log")
        let crash = FilterRun.environment(home, extra: ["PASSCONDUIT_FILTER_FAULT": "crash"])
        assertPassedThrough(try FilterRun.filter(plain, environment: crash), plain)
        assertTempFail(try FilterRun.filter(plain, arguments: ["--fail-closed"], environment: crash))
        let hang = FilterRun.environment(home, extra: ["PASSCONDUIT_FILTER_FAULT": "hang"])
        assertPassedThrough(try FilterRun.filter(plain, arguments: ["--deadline", "0.2"], environment: hang), plain)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
        guard lines.count == 3 else { return }
        XCTAssertTrue(lines[0].contains("result=unchanged bytes=\(plain.count) error=scan-failed detail=\"the scan crashed (signal "), String(lines[0]))
        XCTAssertTrue(lines[1].contains("result=tempfail bytes=\(plain.count) error=scan-failed"), String(lines[1]))
        XCTAssertTrue(lines[2].contains("result=unchanged bytes=\(plain.count) error=deadline"), String(lines[2]))
        let ms = Double(lines[2].split(separator: " ").last?.dropFirst(3) ?? "") ?? 0
        XCTAssertGreaterThanOrEqual(ms, 200, String(lines[2]))
    }

    /// The guard's state lives in its read-only page, headed by a magic number and the lengths: a
    /// scan that bends the handler's pointer (the `scribble` fault points it at writable garbage,
    /// then traps) gets 75 with nothing written, never garbage delivered as the message.
    func testACrashAfterTheGuardsStateWasScribbledOverWritesNothingAndExits75() throws {
        let home = FilterRun.directory("home")
        let env = FilterRun.environment(home, extra: ["PASSCONDUIT_FILTER_FAULT": "scribble"])
        let r = try FilterRun.filter(plain, environment: env)
        XCTAssertFalse(r.signaled)
        XCTAssertEqual(r.status, 75)
        XCTAssertEqual(r.stdout, [])
        XCTAssertEqual(r.stderr, [])
        // The same crash with the state intact delivers the message, so it was the check that spoke.
        let crash = FilterRun.environment(home, extra: ["PASSCONDUIT_FILTER_FAULT": "crash"])
        assertPassedThrough(try FilterRun.filter(plain, environment: crash), plain)
    }

    func testScannerHangIsCutAtTheDeadline() throws {
        let env = FilterRun.environment(FilterRun.directory("home"), extra: ["PASSCONDUIT_FILTER_FAULT": "hang"])
        let r = try FilterRun.filter(plain, arguments: ["--deadline", "0.001"], environment: env)
        assertPassedThrough(r, plain)
        XCTAssertLessThan(r.seconds, 2)
        assertTempFail(try FilterRun.filter(plain, arguments: ["--deadline=0.001", "--fail-closed"], environment: env))
    }

    func testDeadlineOfOneMillisecondOnARealScanEndsInZeroOrSeventyFive() throws {
        let withPass = try [UInt8](Data(contentsOf: FilterMail.repositoryRoot.appendingPathComponent("Samples/messages/two-passes.eml")))
        let trust = FilterMail.repositoryRoot.appendingPathComponent("Samples/ca/trust").path
        for input in [plain, [UInt8](repeating: 0x61, count: 200_000), withPass] {
            let r = try FilterRun.filter(input, arguments: ["--deadline", "0.001", "--trust", trust])
            XCTAssertFalse(r.signaled)
            XCTAssertEqual(r.status, 0)
            FilterPromise.assertIntact(input: input, output: r.stdout)
        }
    }

    func testSIGTERMBeforeOutputExits75WithNothingAndLeavesNoChild() throws {
        let env = FilterRun.environment(FilterRun.directory("home"), extra: ["PASSCONDUIT_FILTER_FAULT": "hang"])
        let r = try FilterRun.filter(plain, arguments: ["--deadline", "30"], environment: env, signalAfter: (0.5, SIGTERM))
        XCTAssertFalse(r.signaled)
        XCTAssertEqual(r.status, 75)
        XCTAssertEqual(r.stdout, [])
        XCTAssertLessThan(r.seconds, 5)
        // The scanning child was killed with the filter: no process still runs the hang.
        usleep(100_000)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in pids where Int(pid) != nil {
            guard let env = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")) else { continue }
            let text = String(decoding: env, as: UTF8.self)
            if text.contains("PASSCONDUIT_FILTER_FAULT=hang"), text.contains(FilterRun.scratch.path) {
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                XCTAssertTrue(stat.contains(") Z "), "a scanning process survived: \(pid) \(stat)")
            }
        }
    }

    func testSIGTERMAfterOutputStartedFinishesTheMessage() throws {
        // 8 MB into a reader that waits a second: the filter is blocked writing when SIGTERM comes.
        let big = Array("Subject: big\n\n".utf8) + [UInt8]((0..<(8 << 20)).map { UInt8(97 + $0 % 26) })
        let env = FilterRun.environment(FilterRun.directory("home"))
        let script = #"exec 3> >(sleep 1; sha256sum) 4<&0; "$PASSCONDUIT" filter <&4 >&3 & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid; echo "rc=$?"; exec 3>&-; sleep 1.5"#
        let r = try FilterRun.shell(script, input: big, environment: env)
        let full = String(decoding: try FilterRun.shell("sha256sum", input: big, environment: env).stdout.prefix(64), as: UTF8.self)
        let text = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("rc=0\n"), text)
        XCTAssertTrue(text.contains(full), "the message was not finished: \(text)")
    }

    func testNonBlockingStdinAndStdoutFromTheHostLoseNothing() throws {
        // Some hosts hand over O_NONBLOCK pipes: reads and writes then return EAGAIN mid-message.
        let script = #"""
import fcntl, os, subprocess, sys, time, hashlib
binary = sys.argv[1]
data = b"Subject: nb\n\n" + bytes((i * 7) & 0xFF for i in range(3 << 20))
r, w = os.pipe(); orr, ow = os.pipe()
for fd in (r, ow):   # the filter's ends: stdin and stdout non-blocking, as some hosts hand them over
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
p = subprocess.Popen([binary, "filter", "--log", "none"], stdin=r, stdout=ow)
os.close(r); os.close(ow)
out = bytearray()
view = memoryview(data); sent = 0
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
fcntl.fcntl(orr, fcntl.F_SETFL, fcntl.fcntl(orr, fcntl.F_GETFL) | os.O_NONBLOCK)
while True:
    if sent < len(data):
        try:
            sent += os.write(w, view[sent:sent + 65536]); time.sleep(0.002)
        except BlockingIOError:
            pass
        if sent == len(data): os.close(w)
    try:
        chunk = os.read(orr, 65536)
        if not chunk and sent == len(data): break
        out += chunk; time.sleep(0.001)
    except BlockingIOError:
        time.sleep(0.001)
rc = p.wait()
print(rc, len(out), out == data)
"""#
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", script, Binary.url.path],
                                  input: [], environment: FilterRun.environment(FilterRun.directory("home")))
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "0 3145741 True\n", String(decoding: r.stderr, as: UTF8.self))
    }

    func testStdoutClosedEarlyExits75() throws {
        let big = [UInt8](repeating: 0x62, count: 4 << 20)
        let env = FilterRun.environment(FilterRun.directory("home"))
        let r = try FilterRun.shell(#""$PASSCONDUIT" filter | head -c 10 >/dev/null; echo "rc=${PIPESTATUS[0]}""#, input: big, environment: env)
        XCTAssertEqual(String(decoding: r.stdout, as: UTF8.self), "rc=75\n")
    }

    func testClosedStdinOrStdoutIsATemporaryFailureAndClosedStderrIsHarmless() throws {
        let env = FilterRun.environment(FilterRun.directory("home"))
        let out = try FilterRun.shell(#""$PASSCONDUIT" filter >&-; echo "rc=$?"; "$PASSCONDUIT" filter <&- >/dev/null; echo "rc=$?""#, input: plain, environment: env)
        XCTAssertEqual(String(decoding: out.stdout, as: UTF8.self), "rc=75\nrc=75\n")
        let quiet = try FilterRun.shell(#""$PASSCONDUIT" filter 2>&-; echo "rc=$?""#, input: plain, environment: env)
        XCTAssertEqual(quiet.stdout, plain + Array("rc=0\n".utf8))
    }

    func testFileSizeLimitGivesCompleteOutputOrNothingNeverASignal() throws {
        let env = FilterRun.environment(FilterRun.directory("home"))
        for size in [100_000, 3 << 20, 12 << 20] {
            let input = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            // 1 MB file size limit: the spool (past 4 MiB in memory) hits EFBIG; stdout is a pipe.
            let r = try FilterRun.shell(#"ulimit -f 1024; "$PASSCONDUIT" filter | sha256sum; echo "rc=${PIPESTATUS[0]}""#, input: input, environment: env)
            let text = String(decoding: r.stdout, as: UTF8.self)
            let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            let full = try FilterRun.shell("sha256sum", input: input, environment: env)
            let fullHash = String(decoding: full.stdout.prefix(64), as: UTF8.self)
            XCTAssertTrue(text.hasPrefix(fullHash) && text.hasSuffix("rc=0\n") || text.hasPrefix(empty) && text.hasSuffix("rc=75\n"),
                          "size \(size): \(text)")
            if size < 4 << 20 { XCTAssertTrue(text.hasSuffix("rc=0\n"), "held in memory, so it passes: \(text)") }
        }
    }

    func testFullDiskUnderTMPDIRGivesCompleteOutputOrNothing() throws {
        // A 1 MB tmpfs as TMPDIR, mounted in a private user+mount namespace (no root needed).
        let probe = try FilterRun.shell("unshare -rm true && echo ok", input: [], environment: FilterRun.environment(FilterRun.directory("home")))
        XCTAssertEqual(String(decoding: probe.stdout, as: UTF8.self), "ok\n", "unshare -rm is needed to mount a tiny tmpfs")
        let env = FilterRun.environment(FilterRun.directory("home"))
        let tiny = FilterRun.directory("tinyfs").path
        for size in [500_000, 8 << 20] {
            let input = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 9)) }
            let script = #"unshare -rm bash -c 'mount -t tmpfs -o size=1m tmpfs "$0" && TMPDIR="$0" "$PASSCONDUIT" filter | sha256sum; echo "rc=${PIPESTATUS[0]}"' "# + tiny
            let r = try FilterRun.shell(script, input: input, environment: env)
            let text = String(decoding: r.stdout, as: UTF8.self)
            let full = String(decoding: try FilterRun.shell("sha256sum", input: input, environment: env).stdout.prefix(64), as: UTF8.self)
            let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            XCTAssertTrue(text.hasPrefix(full) && text.hasSuffix("rc=0\n") || text.hasPrefix(empty) && text.hasSuffix("rc=75\n"), "size \(size): \(text)")
            if size > 4 << 20 { XCTAssertTrue(text.hasSuffix("rc=75\n"), "an 8 MB spool cannot fit in 1 MB: \(text)") }
        }
    }

    func testMutatedMessagesThroughTheBinary() throws {
        var g = SeededGenerator(state: 0xF11_7E5)
        let env = FilterRun.environment(FilterRun.directory("home"), extra: [:])
        let samples = FilterMail.repositoryRoot.appendingPathComponent("Samples/messages")
        var bases: [[UInt8]] = [plain, Array("From a Sat\r\nX-Passconduit: forged\r\nSubject: s\r\n\r\nb\r\n".utf8), Array("x".utf8)]
        for name in ["type.eml", "two-passes-crlf.eml", "bundle.eml", "forwarded.eml", "quoted-printable.eml"] {
            bases.append(try [UInt8](Data(contentsOf: samples.appendingPathComponent(name))))
        }
        let trust = FilterMail.repositoryRoot.appendingPathComponent("Samples/ca/trust").path
        var withHeaders = 0
        for n in 0..<240 {
            let seed = g.next()
            var m = bases[n % bases.count]
            let pos = m.isEmpty ? 0 : Int(seed >> 33) % m.count
            switch n % 4 {
            case 0: if !m.isEmpty { m[pos] ^= UInt8(truncatingIfNeeded: seed >> 13) | 1 }
            case 1: m = Array(m.prefix(pos))
            case 2: m.insert(0, at: pos)
            default: m += (0..<Int(seed >> 50)).map { UInt8(truncatingIfNeeded: $0 ^ Int(seed >> 40)) }
            }
            let r = try FilterRun.filter(m, arguments: ["--deadline", "60", "--trust", trust], environment: env)
            XCTAssertEqual(r.status, 0, "seed \(seed)")
            XCTAssertEqual(r.stderr, [])
            FilterPromise.assertIntact(input: m, output: r.stdout)
            if r.stdout != m { withHeaders += 1 }
        }
        XCTAssertGreaterThan(withHeaders, 30, "too few mutated messages got headers from the binary")
    }
}
