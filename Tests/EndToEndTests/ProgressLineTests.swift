import Foundation
import XCTest

/// The progress line of `scan` on a large mailbox: drawn on stderr in place ("\r", erase line)
/// when stderr is a terminal, never otherwise, and cleared before the pass cards.
final class ProgressLineTests: XCTestCase {
    var sandbox: Sandbox!
    var mbox: URL!

    /// A 60 MB mbox (past the 50 MB mark where the line starts) of plain messages, with the
    /// sample ticket message last.
    override func setUpWithError() throws {
        sandbox = try Sandbox()
        mbox = sandbox.dir.appendingPathComponent("large.mbox")
        let line = String(repeating: "lorem ipsum dolor sit amet ", count: 38) + "\n"
        let filler = Data(("From someone@example.org Sat Nov 21 09:30:00 2026\nFrom: someone@example.org\n"
            + "Subject: filler\n\n" + String(repeating: line, count: 1000) + "\n").utf8)
        FileManager.default.createFile(atPath: mbox.path, contents: nil)
        let handle = try FileHandle(forWritingTo: mbox)
        var written = 0
        while written < 60_000_000 {
            try handle.write(contentsOf: filler)
            written += filler.count
        }
        try handle.write(contentsOf: Data("From tickets@arena.example.org Sat Nov 21 09:30:00 2026\n".utf8))
        try handle.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml"))))
        try handle.close()
    }

    /// Runs `scan` on the mbox with stderr (and the controlling terminal) on a pseudo-terminal
    /// and stdout to a file; returns what the terminal showed and what stdout got.
    func scanOnTerminal(term: String, command: [String] = ["scan"]) throws -> (terminal: String, cards: String) {
        let outFile = sandbox.dir.appendingPathComponent("cards.txt")
        let script = """
        import os, pty, sys, json
        argv = json.loads(sys.argv[1])
        pid, fd = pty.fork()
        if pid == 0:
            os.dup2(os.open(sys.argv[3], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
            os.execve(argv[0], argv, json.loads(sys.argv[2]))
        out = b""
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
        _, status = os.waitpid(pid, 0)
        sys.stdout.buffer.write(out)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
        let argv = [Binary.url.path] + command + sandbox.common + [mbox.path]
        func json(_ value: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        var environment = sandbox.environment
        environment["TERM"] = term
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, try json(argv), try json(environment), outFile.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let terminal = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, terminal)
        return (terminal, try String(contentsOf: outFile, encoding: .utf8))
    }

    func testProgressLineIsDrawnOnATerminalAndClearedBeforeTheCard() throws {
        let (terminal, cards) = try scanOnTerminal(term: "xterm")
        XCTAssertTrue(terminal.contains("\r\u{1B}[K\(mbox.path): "), "progress line drawn in place: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.contains(" messages, 5"), "says messages and megabytes: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.hasSuffix("\r\u{1B}[K"), "cleared at the end: \(terminal.debugDescription)")
        XCTAssertTrue(cards.hasPrefix("Event Ticket · Passconduit Arena\n"), cards)
        XCTAssertFalse(cards.contains("\u{1B}"), "nothing of the progress line reaches stdout: \(cards.debugDescription)")
    }

    /// Issue 26 item 13: `add` of a large mailbox printed nothing until the end. It draws the
    /// same line while it reads (with the passes found so far), cleared before the cards.
    func testAddDrawsTheProgressLineToo() throws {
        let (terminal, cards) = try scanOnTerminal(term: "xterm", command: ["add", "--yes"])
        XCTAssertTrue(terminal.contains("\r\u{1B}[K\(mbox.path): "), "progress line drawn in place: \(terminal.debugDescription)")
        XCTAssertTrue(terminal.contains(" MB, 0 passes"), "says the passes found: \(terminal.debugDescription)")
        XCTAssertTrue(cards.contains("Added to your library."), cards)
        XCTAssertFalse(cards.contains("\u{1B}[K"), cards.debugDescription)
    }

    /// TERM=dumb (Emacs shell buffers) cannot erase a line: the escapes showed as garbage.
    func testNoProgressLineOnADumbTerminal() throws {
        let (terminal, cards) = try scanOnTerminal(term: "dumb")
        XCTAssertEqual(terminal, "", terminal.debugDescription)
        XCTAssertTrue(cards.hasPrefix("Event Ticket · Passconduit Arena\n"), cards)
    }

    func testNoProgressLineWhenStderrIsNotATerminal() throws {
        let run = try sandbox.run("scan", [mbox.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        XCTAssertTrue(run.stdout.hasPrefix("Event Ticket · Passconduit Arena\n"), run.stdout)
    }
}
