import Foundation
import XCTest

/// The README is what a new user follows: its commands must work as written once set-up has made
/// `passconduit` a command (script/bootstrap runs script/link-command), and `make install-user`
/// must not print errors on a machine without desktop-file-utils.
final class ReadmeTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    /// The indented `passconduit …` lines of README.md that a new user can type as they stand, in
    /// order: those working on the repository's own files (`Samples/…`) and those naming no file
    /// at all. Lines naming a placeholder (`ticket.pkpass`, an ID like `3fa2c1` with `-o x.pdf`)
    /// show a shape, not a command to run here.
    static func readmeCommands() throws -> [String] {
        let text = try String(contentsOf: Run.root.appendingPathComponent("README.md"), encoding: .utf8)
        return text.split(separator: "\n").filter { $0.hasPrefix("    passconduit ") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            // A line with "…" shows a command's form (`update ID… --json`), not a command to run.
            .filter { !$0.contains("…") }
            .filter { line in
                line.contains("Samples/")
                    || !line.split(separator: " ").dropFirst().contains { !$0.hasPrefix("-") && ($0.contains(".") || $0.contains("/")) }
            }
    }

    /// The indented block after "where it was found (dates in your time zone):", without its
    /// indent: the output the README shows for its first `scan` (in UTC, the sandbox's zone).
    static func firstExampleOutput() throws -> String {
        let text = try String(contentsOf: Run.root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "where it was found (dates in your time zone):\n\n"
        let start = try XCTUnwrap(text.range(of: marker), "README.md lost its first example's output").upperBound
        var lines: [String] = []
        for line in text[start...].split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("    ") else { break }
            lines.append(String(line.dropFirst(4)))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Runs `script/link-command` into a folder of the sandbox, as bootstrap does into /usr/local/bin.
    func linkCommand() throws -> URL {
        let bin = sandbox.dir.appendingPathComponent("bin")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [Run.root.appendingPathComponent("script/link-command").path]
        p.environment = ["PATH": "\(bin.path):/usr/bin:/bin", "HOME": sandbox.dir.path, "PASSCONDUIT_BIN_DIR": bin.path]
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, message)
        XCTAssertFalse(message.contains("not on your PATH"), message)
        return bin
    }

    /// The Usage commands, then the filter example and the commands that follow it, one after the
    /// other in one home, as a new user types them: each exits 0 and does what the text says.
    /// Before: bootstrap left no `passconduit` ("command not found"), and after the filter example
    /// `add --offers` without the test CA refused the staged passes as untrusted.
    func testReadmeCommandsWorkAsWrittenAfterSetUp() throws {
        let bin = try linkCommand()
        let commands = try Self.readmeCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 5, "README lost its Usage commands: \(commands)")
        var outputs: [String: String] = [:]
        for command in commands {
            // The sample ticket's issuer (passes.example.org) does not exist, and no test reaches
            // beyond this machine: `update` goes through a proxy on a closed local port, and says
            // what a user sees, that the issuer could not be reached (75, try again later).
            let isUpdate = command.hasPrefix("passconduit update")
            let line = isUpdate ? "https_proxy=http://127.0.0.1:9 " + command : command
            let r = try sandbox.runShellOnTerminal(line, path: "\(bin.path):/usr/bin:/bin", cwd: Run.root)
            if isUpdate {
                XCTAssertEqual(r.status, 75, "\(command)\n\(r.stdout)")
                XCTAssertTrue(r.stdout.contains("failed — ") && r.stdout.contains("try again later"), "\(command)\n\(r.stdout)")
                outputs[command] = r.stdout
                continue
            }
            // Notices are off by default (the README says to switch them on first): sending says
            // so, as a configuration problem (78), and sends nothing.
            if command.hasPrefix("passconduit notices --send") {
                XCTAssertEqual(r.status, 78, "\(command)\n\(r.stdout)")
                XCTAssertTrue(r.stdout.contains("notices are off: set enabled = true"), "\(command)\n\(r.stdout)")
                continue
            }
            XCTAssertEqual(r.status, 0, "\(command)\n\(r.stdout)")
            XCTAssertFalse(r.stdout.contains("command not found"), "\(command)\n\(r.stdout)")
            outputs[command] = r.stdout
        }
        let scan = try XCTUnwrap(outputs.first { $0.key.contains(" scan ") }?.value)
        XCTAssertTrue(scan.contains("Status      valid"), scan)
        // The card the README shows under the first command is what the user sees, line for
        // line (issue 38 item 3: it showed a current ticket that had expired months before).
        let shown = try Self.firstExampleOutput()
        XCTAssertEqual(scan.replacingOccurrences(of: "\r\n", with: "\n"), shown)
        let add = try XCTUnwrap(outputs.first { $0.key.hasPrefix("passconduit add ") && $0.key.contains(".eml") }?.value)
        XCTAssertTrue(add.contains("Added to your library."), add)
        let filter = try XCTUnwrap(outputs.first { $0.key.contains(" filter ") }?.value)
        XCTAssertTrue(filter.contains("X-Passconduit:"), filter)
        let offers = try XCTUnwrap(outputs.first { $0.key.contains("--offers") }?.value)
        XCTAssertTrue(offers.contains("Added to your library."), offers)
        XCTAssertFalse(offers.contains("untrusted"), offers)
    }

    /// `make install-user` on a machine without update-desktop-database printed
    /// "make: [Makefile:45: install-user] Error 127 (ignored)". It must print no error, install the
    /// entry and the mailcap lines, and leave one set of mailcap lines when run twice.
    func testInstallUserWithoutDesktopDatabasePrintsNoError() throws {
        let bin = sandbox.dir.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        // Only what the recipe needs: update-desktop-database is missing, whatever this machine has.
        for tool in ["install", "grep", "cat", "touch", "mktemp", "rm"] {
            try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent(tool).path,
                                                       withDestinationPath: "/usr/bin/\(tool)")
        }
        let home = sandbox.dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        for _ in 0..<2 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/make")
            p.arguments = ["-C", Run.root.path, "install-user", "HOME=\(home.path)", "XDG_DATA_HOME=\(home.path)/share"]
            p.environment = ["PATH": bin.path]
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, stderr)
            XCTAssertEqual(stderr, "", "make install-user printed errors")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent("share/applications/passconduit.desktop").path))
        let mailcap = try String(contentsOf: home.appendingPathComponent(".mailcap"), encoding: .utf8)
        let shipped = try String(contentsOf: Run.root.appendingPathComponent("Samples/integrations/mutt/mailcap"), encoding: .utf8)
        let entries = shipped.split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertFalse(entries.isEmpty)
        XCTAssertEqual(mailcap.split(separator: "\n").map(String.init), entries.map(String.init))
    }
}
