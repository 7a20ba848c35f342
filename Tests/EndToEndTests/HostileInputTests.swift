import Foundation
import XCTest

/// Inputs a person can hand `scan` by mistake or by malice: each gets one clear line naming
/// it, the scan goes on, the exit status is the documented one.
final class HostileInputTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    override class func tearDown() { Unprivileged.cleanUp() }

    /// Runs `passconduit scan --json ARGS` as a user who cannot read files made mode 000 (tests
    /// run as root, which reads everything: then the scan runs as nobody).
    func scanAsUnprivileged(_ arguments: [String]) throws -> Run {
        let process = Process()
        let home = sandbox.dir.appendingPathComponent("nobody")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o777])
        // The binary and the test CA are copied where nobody can read them: the checkout may be private.
        var argv = [try Unprivileged.binary(), "scan", "--json", "--library", home.appendingPathComponent("library.sqlite").path,
                    "--trust", try Unprivileged.sampleTrust()] + arguments
        if getuid() == 0 { argv = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + argv }
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        var environment = sandbox.environment
        environment["HOME"] = home.path
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        process.environment = environment
        process.currentDirectoryURL = sandbox.dir
        let outURL = home.appendingPathComponent("stdout"), errURL = home.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Run(status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
                   stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// One unreadable file in a Maildir stopped the whole folder ("stopped reading after 0
    /// message(s): …/cur/1:2,S: cannot-open: Permission denied") and hid every pass after it.
    func testUnreadableMaildirMessageIsSkippedAndTheRestScanned() throws {
        let maildir = sandbox.dir.appendingPathComponent("Maildir")
        for sub in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(at: maildir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let message = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml")))
        let locked = maildir.appendingPathComponent("cur/1.host:2,S")
        try message.write(to: locked)
        try message.write(to: maildir.appendingPathComponent("cur/2.host:2,S"))
        try message.write(to: maildir.appendingPathComponent("new/3.host"))
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)

        let run = try scanAsUnprivileged([maildir.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.count, 2, run.stdout)
        XCTAssertEqual(run.stderr, "passconduit: \(locked.path): cannot be read: permission denied\n")
    }

    /// The same folder with only the unreadable message: nothing found, and the exit status is
    /// "unreadable input" (66), not "I/O error midway" (74).
    func testMaildirWhoseOnlyMessageIsUnreadableExitsNoInput() throws {
        let maildir = sandbox.dir.appendingPathComponent("Maildir")
        try FileManager.default.createDirectory(at: maildir.appendingPathComponent("cur"), withIntermediateDirectories: true)
        let locked = maildir.appendingPathComponent("cur/1.host:2,S")
        try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml"))).write(to: locked)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)

        let run = try scanAsUnprivileged([maildir.path])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertEqual(run.stdout, "")
        XCTAssertFalse(run.stderr.contains("cannot-open"), "no internal codes in a sentence: \(run.stderr)")
    }

    /// A Maildir whose new/ cannot be listed was reported as "cannot list the directory"
    /// without saying which one.
    func testMaildirFolderThatCannotBeListedIsNamed() throws {
        let maildir = sandbox.dir.appendingPathComponent("Maildir")
        let new = maildir.appendingPathComponent("new")
        try FileManager.default.createDirectory(at: maildir.appendingPathComponent("cur"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: new, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: new.path)
        let run = try scanAsUnprivileged([maildir.path])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertEqual(run.stderr, "passconduit: \(maildir.path): cannot be read as a Maildir: cannot list the directory \(new.path)\n")
    }

    func testUnreadableFileIsNamedAndTheNextInputScanned() throws {
        let locked = sandbox.dir.appendingPathComponent("locked.eml")
        try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml"))).write(to: locked)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
        // The readable input is copied too: nobody may not reach the checkout's Samples/.
        let readable = sandbox.dir.appendingPathComponent("type.eml")
        try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml"))).write(to: readable)
        let run = try scanAsUnprivileged([locked.path, readable.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.objects.count, 1)
        XCTAssertEqual(run.stderr, "passconduit: \(locked.path): cannot be read: permission denied\n")
    }

    /// A message whose ticket sits `depth` multiparts deep.
    func nestedMessage(depth: Int) throws -> URL {
        let pass = try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/event-ticket.pkpass")))
        var text = "From: a@example.org\nSubject: deep\nMIME-Version: 1.0\n"
        for level in 0..<depth { text += "Content-Type: multipart/mixed; boundary=\"b\(level)\"\n\n--b\(level)\n" }
        text += "Content-Type: application/vnd.apple.pkpass; name=\"ticket.pkpass\"\nContent-Transfer-Encoding: base64\n\n"
        text += pass.base64EncodedString(options: .lineLength76Characters) + "\n"
        for level in (0..<depth).reversed() { text += "--b\(level)--\n" }
        let url = sandbox.dir.appendingPathComponent("nested-\(depth).eml")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A pass 150 multiparts deep is past the depth limit (128): the scan said nothing and
    /// exited 1, "no pass", though it had not looked there.
    func testMessageNestedPastTheDepthLimitSaysItWasNotFullySearched() throws {
        let message = try nestedMessage(depth: 150)
        let run = try sandbox.run("scan", [message.path])
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "passconduit: \(message.path): message 1 is nested more than 128 levels deep; "
            + "the parts below that were not searched for passes\n")
    }

    func testPassNestedWithinTheDepthLimitIsFoundQuietly() throws {
        let run = try sandbox.run("scan", ["--json", try nestedMessage(depth: 100).path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        XCTAssertEqual(run.objects.count, 1)
    }

    /// Past the part-count limit (10 000) the rest of a message is not searched; say so.
    func testMessageWithTooManyPartsSaysItWasNotFullySearched() throws {
        var text = "From: a@example.org\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=B\n\n"
        text += String(repeating: "--B\nContent-Type: text/plain\n\nx\n", count: 10_050) + "--B--\n"
        let url = sandbox.dir.appendingPathComponent("many.eml")
        try Data(text.utf8).write(to: url)
        let run = try sandbox.run("scan", [url.path])
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertEqual(run.stderr, "passconduit: \(url.path): message 1 has more than 10000 parts; the rest were not searched for passes\n")
    }

    /// Problems with standard input said "-: is empty", which reads as a typo.
    func testEmptyStandardInputIsCalledStandardInput() throws {
        let run = try sandbox.run("scan", ["--json", "-"], stdin: Data())
        XCTAssertEqual(run.status, 66)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "passconduit: standard input: is empty\n")
    }

    /// A 3 MB header field before Content-Type: the header section is cut at the limit, the
    /// attachment's Content-Type is never seen, and scan said "no pass" without a word.
    func testHugeHeaderSaysFieldsWereIgnored() throws {
        let message = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml")))
        let url = sandbox.dir.appendingPathComponent("huge-header.eml")
        try (Data(("X-Junk: " + String(repeating: "x", count: 3_000_000) + "\n").utf8) + message).write(to: url)
        let started = Date()
        let run = try sandbox.run("scan", [url.path])
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertEqual(run.stderr, "passconduit: \(url.path): message 1 has a header section over 256 KB; "
            + "the fields after that were ignored, so a pass there may have been missed\n")
    }

    /// `scan --trust /nonexistent ticket.eml` said "passconduit: /nonexistent: no such file or
    /// folder", which reads like a missing input rather than a missing trust folder.
    func testMissingTrustFolderIsCalledATrustFolder() throws {
        let missing = sandbox.dir.appendingPathComponent("no-such-anchors").path
        let run = try sandbox.run("scan", ["--trust", missing, Run.sample("messages/type.eml")])
        XCTAssertEqual(run.status, 66)
        XCTAssertEqual(run.stdout, "")
        XCTAssertEqual(run.stderr, "passconduit: cannot load the trust anchors: \(missing): no such file or folder\n")
    }

    /// A message saved with a UTF-8 byte order mark (Notepad) or pasted after a blank line was
    /// read as one text part with no header, and its ticket was not found.
    func testMessageAfterAByteOrderMarkOrBlankLinesIsStillRead() throws {
        let message = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml")))
        for (name, lead) in [("bom.eml", Data([0xEF, 0xBB, 0xBF])), ("blank.eml", Data("\r\n\n".utf8))] {
            let url = sandbox.dir.appendingPathComponent(name)
            try (lead + message).write(to: url)
            let run = try sandbox.run("scan", ["--json", url.path])
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            XCTAssertEqual(run.objects.count, 1, name)
            XCTAssertEqual((run.objects.first?["source"] as? [String: Any])?["subject"] as? String,
                           "Your ticket for The Linux Philharmonic", name)
        }
    }

    /// A zip past the pass size cap was "larger than 33554432 bytes": a number nobody reads.
    func testOversizeZipNamesItsLimitInMegabytes() throws {
        let url = sandbox.dir.appendingPathComponent("huge.pkpass")
        var bytes = Data([0x50, 0x4B, 0x03, 0x04])
        bytes.append(Data(count: 33 * 1024 * 1024))
        try bytes.write(to: url)
        let run = try sandbox.run("scan", [url.path])
        XCTAssertEqual(run.status, 65)
        XCTAssertEqual(run.stderr, "passconduit: \(url.path): is a zip archive larger than 32 MB, too large for a Wallet pass\n")
    }
}
