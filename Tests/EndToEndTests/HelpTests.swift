import Foundation
import XCTest

/// --help, completions, usage errors: what the parser promises.
final class HelpTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    func testScanHelpShowsItsExamplesWordForWord() throws {
        let run = try sandbox.run("scan", ["--help"], common: false)
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.contains("""
        Examples:
          passconduit scan ticket.eml
          passconduit scan ~/Mail/inbox.mbox ~/Maildir
          passconduit scan --json - < message.eml
          passconduit scan --trust Samples/ca/trust Samples/messages/type.eml

        USAGE: passconduit scan [--library <path>] [--user <name>] [--config <path>] [--trust <dir> ...] [--lang <code>] [--json] [--verbose] [--no-color] [<path> ...]
        """), run.stdout)
    }

    func testShareHelpShowsItsExamplesWordForWord() throws {
        let run = try sandbox.run("share", ["--help"], common: false)
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.contains("""
        Examples:
          passconduit share 3fa2c1 --base-url https://wallet.example.org
          passconduit share 3fa2c1 --days 1 --once
          passconduit share 3fa2c1 --list
          passconduit share --revoke 4

        USAGE: passconduit share [<options>] [<id>]
        """), run.stdout)
        XCTAssertTrue(run.stdout.contains("""
          --days <n>              The link works for this many days (1 to 365; default
                                  7).
          --once                  The link works for one download only.
        """), run.stdout)
        let usage = try sandbox.run("share", ["--revoke", "2", "3fa2c1"], common: false)
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("--revoke LINK-ID takes no pass and no other option of share"), usage.stderr)
        XCTAssertEqual(try sandbox.run("share", [], common: false).status, 64)
        XCTAssertEqual(try sandbox.run("share", ["3fa2c1", "--days", "0"], common: false).status, 64)
    }

    func testEveryCommandHasHelpWithExamples() throws {
        for command in ["scan", "add", "list", "show", "remove", "export", "icon", "offers", "offer", "share", "log", "notices", "filter"] {
            let run = try sandbox.run("help", [command], common: false)
            XCTAssertEqual(run.status, 0, command)
            XCTAssertTrue(run.stdout.contains("Example"), command)
        }
    }

    func testRootHelpListsTheCommands() throws {
        let run = try sandbox.run("--help", [], common: false)
        XCTAssertEqual(run.status, 0)
        for command in ["scan", "add", "list", "show", "remove", "export", "icon", "offers", "offer", "share", "log", "notices", "filter"] {
            XCTAssertTrue(run.stdout.contains("\n  \(command) "), command)
        }
    }

    func testCompletionScriptsAreGenerated() throws {
        for shell in ["bash", "zsh", "fish"] {
            let run = try sandbox.run("--generate-completion-script", [shell], common: false)
            XCTAssertEqual(run.status, 0, shell)
            XCTAssertTrue(run.stdout.contains("passconduit"), shell)
        }
    }

    func testUnknownOptionIsAUsageError() throws {
        let run = try sandbox.run("list", ["--bogus"])
        XCTAssertEqual(run.status, 64)
        XCTAssertTrue(run.stderr.contains("Unknown option '--bogus'"), run.stderr)
    }

    /// `passconduit scan …` is answered by Scan alone (SubcommandDispatch); help, usage errors,
    /// version requests and their exit codes must stay what the full parser (forced by
    /// PASSCONDUIT_FULL_PARSE) answers, with "passconduit scan" in the usage lines.
    func testEveryCommandAnswersAsTheFullParser() throws {
        let commands = ["scan", "add", "list", "show", "remove", "export", "calendar", "send", "icon", "render", "open",
                        "offers", "offer", "share", "log", "update", "milter", "library"]
        var cases = commands.flatMap { command in
            [[command, "--help"], [command, "-h"], [command, "--bogus"], [command, "--generate-completion-script", "bash"], [command, "x", "--version"], [command, "--json", "x", "y", "z"]]
        }
        cases += [["library", "service-tokens", "--help"], ["offer"], ["offer", "--sender", ""], ["library", "copy", "--help"], ["library", "copy", "a"], ["library", "copy", "a", "b", "--version"], ["library"],
                  ["scan", "--experimental-dump-help"], ["scan", "--generate-completion-script", "fish"], ["scan", "--render"],
                  ["scan", "--", "--version"], ["scan", "--json", Run.sample("messages/type-only.eml")], ["list"], ["list", "--json"],
                  ["help", "scan"], ["export"], ["render", "--scale", "7", "x"]]
        for arguments in cases {
            let fast = try sandbox.run(arguments[0], Array(arguments.dropFirst()), common: false)
            let full = try sandbox.run(arguments[0], Array(arguments.dropFirst()), common: false, environment: ["PASSCONDUIT_FULL_PARSE": "1"])
            XCTAssertEqual(fast.status, full.status, "\(arguments)")
            XCTAssertEqual(fast.stdout, full.stdout, "\(arguments)")
            XCTAssertEqual(fast.stderr, full.stderr, "\(arguments)")
        }
        let usage = try sandbox.run("scan", ["--bogus"], common: false)
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("Usage: passconduit scan ["), usage.stderr)
        XCTAssertEqual(try sandbox.run("scan", ["x", "--version"], common: false).stdout, "0.1.0\n")
    }

    /// Issue 26 item 12: `passconduit scna` got no hint and `help nothing` printed the root's help
    /// and exited 0. A word that names no command is one sentence with the nearest name, 64.
    func testAnUnknownCommandIsNamedWithTheNearestOne() throws {
        let typo = try sandbox.run("scna", ["x.eml"], common: false)
        XCTAssertEqual(typo.status, 64, typo.stderr)
        XCTAssertTrue(typo.stderr.hasPrefix("passconduit: scna: there is no such command; did you mean “scan”?"), typo.stderr)
        let help = try sandbox.run("help", ["nothing"], common: false)
        XCTAssertEqual(help.status, 64, help.stdout + help.stderr)
        XCTAssertTrue(help.stderr.contains("help nothing: there is no such command"), help.stderr)
        XCTAssertEqual(help.stdout, "")
        let far = try sandbox.run("zzzzzzzz", [], common: false)
        XCTAssertEqual(far.status, 64)
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)
        // Real commands and help for them are untouched.
        XCTAssertEqual(try sandbox.run("help", ["scan"], common: false).status, 0)
    }

    func testManPageIsCurrent() throws {
        let page = try String(contentsOf: Run.root.appendingPathComponent("Docs/passconduit.1"), encoding: .utf8)
        for command in ["scan", "add", "list", "show", "remove", "export", "icon", "offers", "offer", "share", "log", "notices", "filter"] {
            XCTAssertTrue(page.contains(".It Em \(command)"), "Docs/passconduit.1 lacks \(command); run script/gen-manual")
        }
    }
}
