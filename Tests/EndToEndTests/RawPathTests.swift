import Foundation
import XCTest

/// Issue 9 item 5: file names are bytes on Linux. A name that is not UTF-8 (`caf\xe9.pkpass`,
/// a Maildir file `…\xff,S=1`, `export -o ticket\xe9.pkpass`) is opened, read and written with
/// its exact bytes, shown escaped (`caf\xe9.pkpass`) in text, and carried losslessly in JSON as
/// PEP 383 escapes (`caf\udce9.pkpass`).
///
/// Foundation's `Process` takes arguments as Strings (it cannot pass such bytes), so each case
/// runs through bash, whose `$'\xe9'` quoting makes the exact bytes.
final class RawPathTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    /// Runs `script` with bash in the sandbox; `$PC` runs passconduit with the sandbox's library
    /// and the test CA. Returns status and raw stdout/stderr.
    func bash(_ script: String) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = sandbox.environment
        environment["BIN"] = Binary.url.path
        environment["LIB"] = sandbox.library
        environment["TRUST"] = Run.sample("ca/trust")
        environment["SAMPLES"] = Run.sample("")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -u\npc() { local c=$1; shift; \"$BIN\" \"$c\" --library \"$LIB\" --trust \"$TRUST\" \"$@\"; }\n" + script]
        process.environment = environment
        process.currentDirectoryURL = sandbox.dir
        let out = sandbox.dir.appendingPathComponent("bash-out"), err = sandbox.dir.appendingPathComponent("bash-err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self),
                String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }

    func testAPassWhoseNameIsLatin1IsScannedAddedAndShownEscaped() throws {
        let scan = try bash("""
            cp "$SAMPLES/passes/event-ticket.pkpass" $'caf\\xe9.pkpass'
            pc scan $'caf\\xe9.pkpass'
            """)
        XCTAssertEqual(scan.status, 0, scan.stdout + scan.stderr)
        XCTAssertTrue(scan.stdout.contains("Found in    caf\\xe9.pkpass"), scan.stdout)

        let json = try bash(#"pc scan --json $'caf\xe9.pkpass'"#)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertTrue(json.stdout.contains(#""input":"caf\udce9.pkpass""#), json.stdout)

        let add = try bash(#"pc add --yes $'caf\xe9.pkpass' && pc show pass.org.passconduit.event/EVT-2026-0001 && pc show --json pass.org.passconduit.event/EVT-2026-0001"#)
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        XCTAssertTrue(add.stdout.contains("caf\\xe9.pkpass"), add.stdout)
        XCTAssertTrue(add.stdout.contains(#""file":"caf\udce9.pkpass""#), add.stdout)

        // A name that is missing says so with its bytes escaped, not as U+FFFD.
        let missing = try bash(#"pc scan $'gone\xe9.eml'"#)
        XCTAssertEqual(missing.status, 66)
        XCTAssertTrue(missing.stderr.contains("gone\\xe9.eml: no such file or folder"), missing.stderr)
    }

    /// `render` and `open` said "no such file" for a name that is not UTF-8, which `scan` and
    /// `add` open (issue 26 item 8): every command that takes a path takes its bytes.
    func testRenderAndOpenTakeANameThatIsNotUTF8() throws {
        let render = try bash("""
            cp "$SAMPLES/passes/event-ticket.pkpass" $'caf\\xe9.pkpass'
            pc render $'caf\\xe9.pkpass' --format svg -o card.svg && head -c 200 card.svg
            """)
        XCTAssertEqual(render.status, 0, render.stdout + render.stderr)
        XCTAssertTrue(render.stdout.contains("<svg"), render.stdout)
        // open gets as far as the browser (none here): the file itself was read.
        let open = try bash(#"PATH=/nonexistent pc open $'caf\xe9.pkpass'"#)
        XCTAssertFalse(open.stderr.contains("no such file"), open.stderr)
        XCTAssertTrue(open.stderr.contains("xdg-open"), open.stderr)
        let missing = try bash(#"pc render $'gone\xe9.pkpass' --format svg -o x.svg"#)
        XCTAssertEqual(missing.status, 66, missing.stderr)
    }

    func testAMaildirMessageWhoseNameIsNotUTF8IsRead() throws {
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))])
        try FileManager.default.createDirectory(at: sandbox.dir.appendingPathComponent("Maildir/new"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sandbox.dir.appendingPathComponent("Maildir/cur"), withIntermediateDirectories: true)
        try Data(message).write(to: sandbox.dir.appendingPathComponent("message.eml"))
        let run = try bash(#"mv message.eml $'Maildir/new/1763717400.M9P1.host\xff,S=1' && pc scan Maildir && pc scan --json Maildir"#)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("Maildir/new/1763717400.M9P1.host\\xff,S=1"), run.stdout)
        XCTAssertTrue(run.stdout.contains(#""messagePath":"Maildir/new/1763717400.M9P1.host\udcff,S=1""#), run.stdout)
        XCTAssertEqual(run.stderr, "")
    }

    func testExportWritesToTheExactName() throws {
        let run = try bash("""
            pc add --yes "$SAMPLES/passes/event-ticket.pkpass" >/dev/null &&
            pc export -o $'ticket\\xe9.pkpass' pass.org.passconduit.event/EVT-2026-0001 &&
            cmp $'ticket\\xe9.pkpass' "$SAMPLES/passes/event-ticket.pkpass" && echo same &&
            ls | LC_ALL=C grep -c '^ticket' && ls | LC_ALL=C grep -c $'^ticket\\xe9\\.pkpass$'
            """)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertEqual(run.stdout, "same\n1\n1\n")
    }
}
