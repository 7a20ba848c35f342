import Foundation
import XCTest

/// passconduit as mutt and desktops run it: the shipped mailcap, mime.types and .desktop entry
/// cover the types passes arrive with; a pass added from mutt's temporary file is recorded as the
/// attachment it was; the add question reaches the terminal even when stdout is a pipe.
final class MailClientTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    static let passTypes = ["application/vnd.apple.pkpass", "application/vnd-com.apple.pkpass",
                            "application/pkpass", "application/x-pkpass"]

    func shipped(_ path: String) throws -> String {
        try String(contentsOf: Run.root.appendingPathComponent("Samples/integrations/" + path), encoding: .utf8)
    }

    /// run-mailcap (Debian's mailcap package) reads the shipped entries as mutt's mailcap code does.
    func runMailcap(_ argument: String, home: URL) throws -> String {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: "/usr/bin/run-mailcap"), "run-mailcap is missing (Debian package mailcap)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/run-mailcap")
        p.arguments = ["--norun", "--action=view", argument]
        p.environment = ["HOME": home.path, "MAILCAPS": home.appendingPathComponent(".mailcap").path, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text
    }

    /// Only application/vnd.apple.pkpass[es] had entries: a pass labelled with an alias, or a
    /// .pkpass sent as octet-stream, opened nothing.
    func testMailcapMimeTypesAndDesktopEntryCoverThePassTypesSeenInTheWild() throws {
        let mailcap = try shipped("mutt/mailcap")
        let entries = mailcap.split(separator: "\n").filter { !$0.hasPrefix("#") }
        for type in Self.passTypes + ["application/vnd.apple.pkpasses"] {
            let own = entries.filter { $0.hasPrefix(type + ";") }
            // (open on a graphical display,) then the add flow on a terminal, and the pager view last.
            let add = own.firstIndex { $0.contains("passconduit add --attachment %{name} %s; needsterminal") }
            XCTAssertNotNil(add, "\(type): \(own)")
            XCTAssertTrue(own.prefix(add ?? 0).allSatisfy { $0.contains("passconduit open %s; test=") }, "\(type): \(own)")
            XCTAssertTrue(own.last?.contains("passconduit scan %s; copiousoutput") ?? false, "\(type): \(own)")
        }
        let home = sandbox.dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try mailcap.write(to: home.appendingPathComponent(".mailcap"), atomically: true, encoding: .utf8)
        try shipped("mutt/mime.types").write(to: home.appendingPathComponent(".mime.types"), atomically: true, encoding: .utf8)
        let file = home.appendingPathComponent("ticket.pkpass")
        try Data().write(to: file)
        for type in Self.passTypes {
            XCTAssertTrue(try runMailcap("\(type):\(file.path)", home: home).hasPrefix("passconduit scan \(file.path)"), type)
        }
        // No type at all (a saved octet-stream attachment): the name finds it through mime.types.
        XCTAssertTrue(try runMailcap(file.path, home: home).hasPrefix("passconduit scan \(file.path)"))
        // mutt maps octet-stream and zip attachments through mime.types by their name.
        let muttrc = try shipped("mutt/muttrc")
        for type in ["application/octet-stream", "application/zip", "application/x-zip-compressed"] {
            XCTAssertTrue(muttrc.split(separator: "\n").contains { $0.hasPrefix("mime_lookup") && $0.split(separator: " ").contains(Substring(type)) }, type)
        }
        for (file, types) in [("desktop/passconduit.desktop", Self.passTypes + ["application/vnd.apple.pkpasses"]),
                              ("desktop/passconduit-open.desktop", Self.passTypes)] {
            let desktop = try shipped(file)
            let mimeLine = try XCTUnwrap(desktop.split(separator: "\n").first { $0.hasPrefix("MimeType=") })
            let declared = Set(mimeLine.dropFirst("MimeType=".count).split(separator: ";").map(String.init))
            XCTAssertTrue(declared.isSuperset(of: types), "\(file): \(declared)")
        }
        // The desktop's mime.types: *.pkpass is a pass whatever a mail client saved it as.
        let xml = try shipped("desktop/passconduit-mime.xml")
        XCTAssertTrue(xml.contains("<glob pattern=\"*.pkpass\""))
        for alias in Self.passTypes.dropFirst() { XCTAssertTrue(xml.contains("<alias type=\"\(alias)\"/>"), alias) }
    }

    /// mutt hands `add` a temporary copy and deletes it on return: the library recorded
    /// "/tmp/mutt-host-…" as where the pass came from, a path that no longer exists.
    func testPassAddedFromMuttsTemporaryFileRecordsTheAttachment() throws {
        let temp = sandbox.dir.appendingPathComponent("mutt-host-1000-4242-17.pkpass")
        try FileManager.default.copyItem(atPath: Run.sample("passes/coupon.pkpass"), toPath: temp.path)
        // As the shipped mailcap runs it (mutt quotes %{name} as one word).
        let add = try sandbox.runOnTerminal("add", ["--attachment", "Spring coupon.pkpass", temp.path], answers: ["y"])
        XCTAssertTrue(add.stdout.contains("Added to your library."), add.stdout)
        try FileManager.default.removeItem(at: temp)
        let list = try sandbox.run("list", ["--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertFalse(list.stdout.contains("mutt-host"), list.stdout)
        XCTAssertTrue(list.stdout.contains("mail attachment \\\"Spring coupon.pkpass\\\""), list.stdout)
        XCTAssertFalse(add.stdout.contains("mutt-host"), add.stdout)
    }

    /// `passconduit add x.eml | tail` asked on stdout, so the question went into the pipe and
    /// the person saw nothing while add waited for an answer.
    func testAddAsksOnTheTerminalWhenStdoutIsAPipe() throws {
        let out = sandbox.dir.appendingPathComponent("tail.txt")
        let line = "\"$PASSCONDUIT\" add --library \(sandbox.library) --trust \(Run.sample("ca/trust")) \(Run.sample("messages/type.eml")) | tail -n 100 > \(out.path)"
        let run = try sandbox.runShellOnTerminal("PASSCONDUIT=\(Binary.url.path); " + line, path: "/usr/bin:/bin", cwd: sandbox.dir, timeout: 30)
        XCTAssertNotEqual(run.status, 124, "add waited for an answer to a question the terminal never showed")
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Add to your library? [y/N]"), run.stdout)
        let piped = try String(contentsOf: out, encoding: .utf8)
        XCTAssertTrue(piped.contains("Added to your library."), piped)
        XCTAssertFalse(piped.contains("[y/N]"), "the question went into the pipe: \(piped)")
    }
}
