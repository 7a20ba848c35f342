import Foundation
import XCTest

/// The add flow and the library commands, run as a user would; the questions on a real pseudo-terminal.
final class AddFlowTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    func message(_ name: String) -> String { Run.sample("messages/" + name) }

    func libraryState(_ sample: String) throws -> String? {
        try sandbox.run("scan", ["--json", message(sample)]).objects.first?["library"] as? String
    }

    func testWithoutTerminalAddNeedsYesAndSaysSo() throws {
        let run = try sandbox.run("add", [message("type.eml")])
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stdout.contains("Run again with --yes"), run.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "new")
    }

    func testALibraryThatCannotSayWhatItHoldsIsReportedNotTakenForNew() throws {
        // Given a library whose pass table another program has damaged (it opens, but cannot answer)
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let damage = Process()
        damage.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        damage.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('ALTER TABLE pass RENAME TO pass_elsewhere'); c.commit()",
                            sandbox.library]
        try damage.run()
        damage.waitUntilExit()
        XCTAssertEqual(damage.terminationStatus, 0, "python3's sqlite3 module (Debian package python3) is needed")
        // When the user adds the newer version
        let run = try sandbox.run("add", [message("update.eml")])
        // Then add says the library failed (74, naming the file) instead of offering a "new" pass
        XCTAssertEqual(run.status, 74, run.stdout + run.stderr)
        XCTAssertTrue(run.stderr.contains(sandbox.library), run.stderr)
        XCTAssertFalse(run.stdout.contains("Run again with --yes"), run.stdout)
    }

    func testAddWithYesThenTheLibraryContainsIt() throws {
        let run = try sandbox.run("add", ["--yes", message("type.eml")])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("Added to your library."), run.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "contained")
        let again = try sandbox.run("add", ["--yes", message("type.eml")])
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("Already in your library."), again.stdout)
    }

    func testInvalidPassIsRefusedWithItsMessage() throws {
        let run = try sandbox.run("add", ["--yes", message("invalid.eml")])
        XCTAssertEqual(run.status, 65)
        XCTAssertTrue(run.stdout.contains("Not added: "), run.stdout)
    }

    func testUntrustedPassNeedsAllowUntrusted() throws {
        let refused = try sandbox.run("add", ["--yes", message("untrusted.eml")])
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(refused.stdout.contains("--allow-untrusted"), refused.stdout)
        let allowed = try sandbox.run("add", ["--yes", "--allow-untrusted", message("untrusted.eml")])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
        XCTAssertEqual(try libraryState("untrusted.eml"), "contained")
    }

    func testUpdateReplacesAndTheOldVersionIsThenStale() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        XCTAssertEqual(try libraryState("update.eml"), "update")
        let run = try sandbox.run("add", ["--yes", message("update.eml")])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("This update changes:"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Updated in your library."), run.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "stale")
        let stale = try sandbox.run("add", ["--yes", message("type.eml")])
        XCTAssertEqual(stale.status, 65)
        XCTAssertTrue(stale.stdout.contains("newer version"), stale.stdout)
    }

    func testListShowExportIconRemoveAndLog() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("two-passes.eml")]).status, 0)
        let list = try sandbox.run("list", ["--json"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(list.objects.map { $0["kind"] as? String }.count, 2)
        let boarding = try XCTUnwrap(list.objects.first { $0["kind"] as? String == "boardingPass" })
        let sha = try XCTUnwrap(boarding["sha256"] as? String)
        XCTAssertEqual(sha, try sha256(ofSample: "passes/boarding-pass.pkpass"))

        let show = try sandbox.run("show", [String(sha.prefix(8))])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("Boarding Pass · "), show.stdout)
        XCTAssertTrue(show.stdout.contains("Back fields"), show.stdout)

        let exported = sandbox.dir.appendingPathComponent("out.pkpass")
        XCTAssertEqual(try sandbox.run("export", [String(sha.prefix(8)), "-o", exported.path]).status, 0)
        XCTAssertEqual(try Data(contentsOf: exported), try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/boarding-pass.pkpass"))))

        let icon = sandbox.dir.appendingPathComponent("icon.png")
        XCTAssertEqual(try sandbox.run("icon", [String(sha.prefix(8)), "-o", icon.path]).status, 0)
        XCTAssertEqual(Array(try Data(contentsOf: icon).prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

        let id = "\(boarding["passTypeIdentifier"] as! String)/\(boarding["serialNumber"] as! String)"
        XCTAssertEqual(try sandbox.run("remove", [id]).status, 64, "no terminal and no --yes")
        XCTAssertEqual(try sandbox.run("remove", ["--yes", id]).status, 0)
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 1)

        let log = try sandbox.run("log", ["--json"])
        XCTAssertEqual(log.objects.map { $0["kind"] as? String }, ["add", "add", "remove"])
        let after = try sandbox.run("log", ["--json", "--after", "2"])
        XCTAssertEqual(after.objects.map { $0["sequence"] as? Int }, [3])
    }

    func testShowFieldPrintsOneLocalizedValue() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let run = try sandbox.run("show", ["pass.org.passconduit.event/EVT-2026-0001", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let fields = try XCTUnwrap((run.objects.first?["fields"] as? [String: Any])?["secondary"] as? [[String: Any]])
        let first = try XCTUnwrap(fields.first)
        let key = try XCTUnwrap(first["key"] as? String)
        let value = try sandbox.run("show", ["pass.org.passconduit.event/EVT-2026-0001", "--field", key])
        XCTAssertEqual(value.stdout, (first["value"] as? String ?? "") + "\n")
        XCTAssertEqual(try sandbox.run("show", ["pass.org.passconduit.event/EVT-2026-0001", "--field", "no-such-key"]).status, 65)
    }

    func testShowIsLocalizedByLang() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/localized.pkpass")]).status, 0)
        let id = try XCTUnwrap(try sandbox.run("list", ["--json"]).objects.first?["id"] as? String)
        var seen: [String: String] = [:]
        for lang in ["en", "de", "fr"] {
            let object = try XCTUnwrap(try sandbox.run("show", ["--json", "--lang", lang, id]).objects.first)
            XCTAssertEqual(object["language"] as? String, lang)
            seen[lang] = object["description"] as? String
        }
        XCTAssertEqual(Set(seen.values).count, 3, "three languages, three descriptions: \(seen)")
        XCTAssertEqual(seen["de"], "Bibliotheksausweis")
    }

    func testLogFollowPrintsChangesAsTheyHappen() throws {
        let follower = Process()
        follower.executableURL = Binary.url
        follower.arguments = ["log", "--follow", "--json"] + sandbox.common
        follower.environment = sandbox.environment
        let out = Pipe()
        follower.standardOutput = out
        follower.standardError = FileHandle.nullDevice
        try follower.run()
        let finished = FinishedFlag()
        defer { finished.set(); follower.terminate(); follower.waitUntilExit() }
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        // Read until the first complete line arrives (the follower polls twice a second); a
        // watchdog ends the follower after 20 s so a broken --follow fails instead of hanging.
        let pid = follower.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if !finished.isSet { kill(pid, SIGTERM) } }
        var data = Data()
        while !data.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        let line = try XCTUnwrap(String(decoding: data, as: UTF8.self).split(separator: "\n").first)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["kind"] as? String, "add")
        XCTAssertEqual(object["id"] as? String, "pass.org.passconduit.event/EVT-2026-0001")
    }

    func testUnknownIDIsNamed() throws {
        let run = try sandbox.run("show", ["pass.org.nowhere/1"])
        XCTAssertEqual(run.status, 66)
        XCTAssertTrue(run.stderr.hasPrefix("passconduit: "), run.stderr)
    }

    // MARK: On a terminal

    func testTerminalAcceptAddsThePass() throws {
        let run = try sandbox.runOnTerminal("add", [message("type.eml")], answers: ["y"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Add to your library? [y/N]"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Added to your library."), run.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "contained")
    }

    func testTerminalDeclineAddsNothing() throws {
        let run = try sandbox.runOnTerminal("add", [message("type.eml")], answers: ["n"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Not added."), run.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "new")
    }

    func testTerminalUpdateListsChangesThenReplaces() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let run = try sandbox.runOnTerminal("add", [message("update.eml")], answers: ["y"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("This update changes:"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Update the pass in your library? [y/N]"), run.stdout)
        XCTAssertEqual(try libraryState("update.eml"), "contained")
    }

    /// Declining an update said "Not added.", though the pass was in the library all along
    /// (only its newer version was not taken).
    func testTerminalDeclinedUpdateSaysNotUpdated() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let run = try sandbox.runOnTerminal("add", [message("update.eml")], answers: ["n"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Not updated."), run.stdout)
        XCTAssertFalse(run.stdout.contains("Not added"), run.stdout)
        XCTAssertEqual(try libraryState("update.eml"), "update")
    }

    func testUpdateWithoutTerminalSaysNotUpdated() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let run = try sandbox.run("add", [message("update.eml")])
        XCTAssertEqual(run.status, 64, run.stdout)
        XCTAssertTrue(run.stdout.contains("Not updated: there is no terminal to ask on. Run again with --yes to do it without asking."), run.stdout)
    }

    func testTerminalContainedPassAsksNothing() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let run = try sandbox.runOnTerminal("add", [message("type.eml")], answers: [])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Already in your library."), run.stdout)
        XCTAssertFalse(run.stdout.contains("[y/N]"), run.stdout)
    }

    func testPipedMessageIsAskedAboutOnTheControllingTerminal() throws {
        let run = try sandbox.runOnTerminal("add", ["-"], answers: ["y"], stdinFile: message("type.eml"))
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Add to your library? [y/N]"), run.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "contained")
    }

    func testTerminalRemoveAsksAndNoKeepsThePass() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let id = "pass.org.passconduit.event/EVT-2026-0001"
        let kept = try sandbox.runOnTerminal("remove", [id], answers: ["n"])
        XCTAssertTrue(kept.stdout.contains("Remove this pass from your library? [y/N]"), kept.stdout)
        XCTAssertTrue(kept.stdout.contains("Not removed."), kept.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "contained")
        let removed = try sandbox.runOnTerminal("remove", [id], answers: ["y"])
        XCTAssertEqual(removed.status, 0, removed.stdout)
        XCTAssertEqual(try libraryState("type.eml"), "new")
    }

    func testTerminalGetsColourUnlessNoColorIsSet() throws {
        let coloured = try sandbox.runOnTerminal("add", [message("type.eml")], answers: ["n"], colour: true)
        XCTAssertTrue(coloured.stdout.contains("\u{1B}[1mEvent Ticket · Passconduit Arena\u{1B}[0m"), coloured.stdout)
        let plain = try sandbox.runOnTerminal("add", [message("type.eml")], answers: ["n"])
        XCTAssertFalse(plain.stdout.contains("\u{1B}["), plain.stdout)
    }

    func testTerminalTwoPassesAreAskedOneByOne() throws {
        let run = try sandbox.runOnTerminal("add", [message("two-passes.eml")], answers: ["n", "y"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertEqual(run.stdout.components(separatedBy: "[y/N]").count - 1, 2)
        let list = try sandbox.run("list", ["--json"])
        XCTAssertEqual(list.objects.map { $0["kind"] as? String }, ["coupon"])
    }
}

/// Set once the test is done with a child, so a late watchdog never signals a reused pid.
final class FinishedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}
