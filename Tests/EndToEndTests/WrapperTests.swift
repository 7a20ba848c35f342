import Foundation
import XCTest

/// Passes as people receive them in other wrappers: a zip of a folder of tickets, a pass zipped
/// with its folder, a TNEF `winmail.dat` from Outlook, a Maildir++ folder; and a scan that finds
/// nothing says so to a person at a terminal.
final class WrapperTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    /// A message with one base64 attachment of the given type and name.
    func message(attachment: [UInt8], type: String, name: String, subject: String = "Your tickets") -> Data {
        var lines = ["From: Tickets <tickets@example.org>", "To: you@example.net", "Subject: \(subject)",
                     "Message-ID: <wrapper-\(name)@example.org>", "MIME-Version: 1.0",
                     "Content-Type: multipart/mixed; boundary=\"b1\"", "", "--b1", "Content-Type: text/plain", "", "Attached.", "",
                     "--b1", "Content-Type: \(type); name=\"\(name)\"", "Content-Disposition: attachment; filename=\"\(name)\"",
                     "Content-Transfer-Encoding: base64", ""]
        let b64 = Data(attachment).base64EncodedString()
        var i = b64.startIndex
        while i < b64.endIndex {
            let j = b64.index(i, offsetBy: 76, limitedBy: b64.endIndex) ?? b64.endIndex
            lines.append(String(b64[i..<j]))
            i = j
        }
        lines += ["--b1--", ""]
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// Runs a tool (zip, python3, tnef) in `dir`; fails the test naming the Debian package when missing.
    @discardableResult
    func tool(_ path: String, _ arguments: [String], in dir: URL, package: String) throws -> Int32 {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path), "\(path) is missing (Debian package \(package))")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.currentDirectoryURL = dir
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func folder(_ name: String) throws -> URL {
        let u = sandbox.dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    /// "packed in an unsafe way" before: the folder entry and the member path were refused.
    func testZipOfAFolderOfTicketsIsOpenedAndTheMemberPathShown() throws {
        let work = try folder("zipwork")
        let tickets = work.appendingPathComponent("Tickets")
        try FileManager.default.createDirectory(at: tickets.appendingPathComponent("More"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Run.sample("passes/event-ticket.pkpass"), toPath: tickets.appendingPathComponent("event.pkpass").path)
        try FileManager.default.copyItem(atPath: Run.sample("passes/boarding-pass.pkpass"), toPath: tickets.appendingPathComponent("More/boarding.pkpass").path)
        // What a Mac adds beside each file: an AppleDouble fork that is no pass.
        let fork = work.appendingPathComponent("__MACOSX/Tickets")
        try FileManager.default.createDirectory(at: fork, withIntermediateDirectories: true)
        try Data([0, 5, 22, 7, 0, 2, 0, 0]).write(to: fork.appendingPathComponent("._event.pkpass"))
        try tool("/usr/bin/zip", ["-q", "-r", "tickets.zip", "Tickets", "__MACOSX"], in: work, package: "zip")
        let zip = try [UInt8](Data(contentsOf: work.appendingPathComponent("tickets.zip")))
        let eml = sandbox.dir.appendingPathComponent("zip.eml")
        try message(attachment: zip, type: "application/zip", name: "tickets.zip").write(to: eml)

        let run = try sandbox.run("scan", ["--json", eml.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        let sources = run.objects.compactMap { $0["source"] as? [String: Any] }
        XCTAssertEqual(Set(sources.compactMap { $0["member"] as? String }), ["Tickets/event.pkpass", "Tickets/More/boarding.pkpass"])
        XCTAssertEqual(run.objects.map { $0["status"] as? String }, ["valid", "valid"])
        XCTAssertEqual(sources.first?["filename"] as? String, "tickets.zip")
        // The zip file itself, named on the command line.
        let bare = try sandbox.run("scan", ["--json", work.appendingPathComponent("tickets.zip").path])
        XCTAssertEqual(bare.objects.count, 2, bare.stderr)
    }

    /// A pass zipped with its folder: the verdict says pass.json is not where Wallet looks and
    /// names the folder (it said "unsafe-archive" before).
    func testPassZippedWithItsFolderIsMissingPassJSONAndNamesTheFolder() throws {
        let work = try folder("folderpass")
        let inner = work.appendingPathComponent("MyPass")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        try tool("/usr/bin/unzip", ["-q", Run.sample("passes/event-ticket.pkpass"), "-d", inner.path], in: work, package: "unzip")
        try tool("/usr/bin/zip", ["-q", "-r", "ticket.pkpass", "MyPass"], in: work, package: "zip")
        let run = try sandbox.run("scan", ["--json", work.appendingPathComponent("ticket.pkpass").path])
        let error = try XCTUnwrap(run.objects.first?["error"] as? [String: Any], run.stdout + run.stderr)
        XCTAssertEqual(error["code"] as? String, "missing-pass-json")
        XCTAssertTrue((error["detail"] as? String)?.contains("\"MyPass/\"") ?? false, "\(error)")
        XCTAssertEqual(run.objects.first?["status"] as? String, "invalid")
    }

    /// Outlook's "Rich Text" mail: the pass inside winmail.dat is found and named; `tnef`
    /// (the reference) extracts the same files from the same stream.
    func testPassInsideWinmailDatIsFoundAsTnefExtractsIt() throws {
        let work = try folder("tnef")
        let pass = Run.sample("passes/event-ticket.pkpass")
        let note = work.appendingPathComponent("note.txt")
        try Data("Your ticket is attached.\n".utf8).write(to: note)
        XCTAssertEqual(try tool("/usr/bin/python3", [Run.sample("make-winmail.py"), "winmail.dat", "\(pass)=Concert ticket.pkpass", note.path],
                                in: work, package: "python3"), 0)
        let dat = try [UInt8](Data(contentsOf: work.appendingPathComponent("winmail.dat")))

        let extracted = try folder("tnef-out")
        XCTAssertEqual(try tool("/usr/bin/tnef", ["-C", extracted.path, "-f", work.appendingPathComponent("winmail.dat").path], in: work, package: "tnef"), 0)
        XCTAssertEqual(try Data(contentsOf: extracted.appendingPathComponent("Concert ticket.pkpass")), try Data(contentsOf: URL(fileURLWithPath: pass)))

        let eml = sandbox.dir.appendingPathComponent("outlook.eml")
        try message(attachment: dat, type: "application/ms-tnef", name: "winmail.dat").write(to: eml)
        let run = try sandbox.run("scan", ["--json", eml.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.count, 1, run.stdout)
        let source = try XCTUnwrap(run.objects.first?["source"] as? [String: Any])
        XCTAssertEqual(source["member"] as? String, "Concert ticket.pkpass")
        XCTAssertEqual(source["filename"] as? String, "winmail.dat")
        XCTAssertEqual(run.objects.first?["status"] as? String, "valid")
        XCTAssertEqual(run.objects.first?["sha256"] as? String, try sha256(ofSample: "passes/event-ticket.pkpass"))

        // The delivery filter finds it too (its cheap pre-check lets winmail.dat through).
        let filtered = try FilterRun.filter([UInt8](try Data(contentsOf: eml)),
                                            arguments: ["--log", "none", "--library", sandbox.library, "--trust", Run.sample("ca/trust")],
                                            environment: FilterRun.environment(sandbox.dir))
        XCTAssertEqual(filtered.status, 0)
        XCTAssertEqual(FilterPromise.ownHeaderLines(filtered.stdout).first, "X-Passconduit: 1 pass (1 new)")

        // Labelled application/octet-stream with another name: found from its first bytes.
        try message(attachment: dat, type: "application/octet-stream", name: "ATT00001.dat").write(to: eml)
        XCTAssertEqual(try sandbox.run("scan", ["--json", eml.path]).objects.count, 1)

        // Cut short: one line says the part was read only in part; nothing crashes.
        try message(attachment: Array(dat.prefix(dat.count / 2)), type: "application/ms-tnef", name: "winmail.dat").write(to: eml)
        let cut = try sandbox.run("scan", ["--json", eml.path])
        XCTAssertTrue(cut.stderr.contains("part 2 (winmail.dat) could be read only in part"), cut.stderr)
        XCTAssertTrue(cut.status == 1 || cut.status == 65 || cut.status == 0, "\(cut.status)")
    }

    /// `scan ~/Maildir` searched only the inbox; Maildir++ folders (.Travel/) hold the rest.
    func testMaildirPlusPlusFoldersAreSearched() throws {
        let maildir = sandbox.dir.appendingPathComponent("Maildir")
        for sub in ["cur", "new", "tmp", ".Travel/cur", ".Travel/new", ".Travel/tmp", ".notes"] {
            try FileManager.default.createDirectory(at: maildir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/no-pass.eml"))).write(to: maildir.appendingPathComponent("cur/1.host:2,S"))
        try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml"))).write(to: maildir.appendingPathComponent(".Travel/cur/2.host:2,S"))
        let run = try sandbox.run("scan", ["--json", maildir.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.count, 1)
        let source = try XCTUnwrap(run.objects.first?["source"] as? [String: Any])
        XCTAssertEqual(source["input"] as? String, maildir.appendingPathComponent(".Travel").path)
    }

    /// `add` said "no pass found"; `scan` said nothing at all on a terminal.
    func testScanThatFindsNothingSaysSoOnATerminal() throws {
        let run = try sandbox.runOnTerminal("scan", [Run.sample("messages/no-pass.eml")], answers: [])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stdout.contains("passconduit: no pass found in \(Run.sample("messages/no-pass.eml"))"), run.stdout)
        // Not for scripts: without a terminal the exit status says it, as grep does.
        let quiet = try sandbox.run("scan", [Run.sample("messages/no-pass.eml")])
        XCTAssertEqual(quiet.status, 1)
        XCTAssertEqual(quiet.stderr, "")
    }
}
