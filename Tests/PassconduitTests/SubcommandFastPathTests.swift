import ArgumentParser
import XCTest
@testable import passconduit

/// `SubcommandFastPath` parses `passconduit scan …` with `Scan` alone. Whatever it accepts must be
/// what the full parser (`Passconduit.parseAsRoot`) makes of the same arguments; everything else
/// must go back to the full parser (nil), which answers help, version, completion and errors.
final class SubcommandFastPathTests: XCTestCase {
    /// Tails tried after every subcommand's name: built-in flags in every position ArgumentParser
    /// looks for them, the `--` terminator, the global options, unknown options, nested commands.
    static let tails: [[String]] = [
        [], ["--help"], ["-h"], ["-help"], ["--help-hidden"], ["x", "--help"], ["--", "--help"],
        ["--version"], ["x", "--version"], ["--version", "x"], ["--", "--version"], ["--", "-h"], ["-", "--", "x", "--version"],
        ["--experimental-dump-help"], ["--generate-completion-script"], ["--generate-completion-script", "bash"],
        ["--generate-completion-script=zsh"], ["---completion", "--", "--library"], ["---completion"],
        ["help"], ["help", "copy"], ["x", "help"], ["--bogus"], ["-q"], ["--json"], ["--json", "x"], ["--json", "--", "x"],
        ["--verbose", "-v", "x"], ["-v", "x", "y"], ["--library", "/tmp/l", "x"], ["--library=/tmp/l", "--trust", "/t", "--trust", "/u", "x"],
        ["--lang", "de", "--no-color", "1"], ["--trust"], ["--library"], ["-"], ["--", "-"], ["--", "--json"], ["x", "y", "z"],
        ["--render", "/tmp/r", "x"], ["--all"], ["--all", "-o", "/tmp/o"], ["--offers"], ["--offer", "1"], ["--yes", "x"],
        ["copy", "a", "b"], ["copy", "--user", "u", "a", "b"], ["copy", "a", "b", "--version"], ["copy", "-h"], ["copy"],
        ["copy", "help"], ["copy", "a", "b", "c"], ["--user", "u", "copy", "a", "b"], ["--listen", "unix:/tmp/s"], ["--port", "0", "x"],
        ["--timeout", "5m", "x"], ["--format", "svg", "x"], ["--scale", "2", "x"], ["-o", "-", "x"], ["--time-limit", "5"],
    ]

    static var names: [String] { Passconduit.configuration.subcommands.map { $0._commandName } }

    func testWhatTheFastPathAcceptsTheFullParserParsesTheSame() throws {
        var fast = 0
        for name in Self.names {
            for tail in Self.tails {
                let arguments = [name] + tail
                guard let command = SubcommandFastPath.parse(arguments) else { continue }
                fast += 1
                guard let full = try? Passconduit.parseAsRoot(arguments) else {
                    XCTFail("\(arguments): the full parser rejects what the fast path accepts")
                    continue
                }
                XCTAssertTrue(type(of: command) == type(of: full), "\(arguments): \(type(of: command)) vs \(type(of: full))")
                XCTAssertEqual(Self.dump(command), Self.dump(full), "\(arguments)")
            }
        }
        // Most of these are errors or built-in requests; a fast path that never answers is broken too.
        XCTAssertGreaterThan(fast, 100)
    }

    func testEverydayCommandsTakeTheFastPath() {
        for arguments in [["scan", "--json", "a.eml"], ["scan", "-"], ["scan", "--", "--version"], ["list"], ["list", "--json"],
                          ["add", "--trust", "/t", "a.eml"], ["show", "1"], ["library", "copy", "a", "b"], ["log", "--json"]] {
            XCTAssertNotNil(SubcommandFastPath.parse(arguments), "\(arguments)")
        }
    }

    /// ArgumentParser answers these itself (help, version, completion, errors); the fast path must
    /// leave them to the full parser so the text says "passconduit scan" and the version shows.
    func testBuiltInRequestsAndErrorsGoToTheFullParser() {
        for arguments in [["scan", "--help"], ["scan", "-h"], ["scan", "x", "--version"], ["scan", "--version"],
                          ["list", "--experimental-dump-help"], ["scan", "--generate-completion-script", "bash"],
                          ["library", "help"], ["library", "help", "copy"], ["library", "copy", "-h"], ["library", "copy", "a", "b", "--version"],
                          ["scan", "---completion", "--", "--library"], ["list", "--bogus"], ["list", "--kind"], ["export"],
                          ["help", "scan"], ["--help"], ["--version"], ["bogus"], []] {
            XCTAssertNil(SubcommandFastPath.parse(arguments), "\(arguments)")
        }
    }

    /// Without `commandName`, ArgumentParser derives the name from `String(describing: Type.self)`,
    /// which reflects over the type (~5.7 M instructions, a third of a standalone parse).
    func testEveryCommandNamesItself() {
        func check(_ command: any ParsableCommand.Type) {
            XCTAssertNotNil(command.configuration.commandName, "\(command): give it a commandName")
            command.configuration.subcommands.forEach(check)
        }
        check(Passconduit.self)
    }

    /// ArgumentParser reads `_superCommandName` only from the root of the tree it parses with: under
    /// `Passconduit` never, so help, usage and completions stay as they were; as the root of a
    /// standalone parse it skips the `--generate-completion-script` probe (two more commands
    /// reflected over, ~12 M instructions: two thirds of `scan`'s parse). The probe's request
    /// then fails the standalone parse and the full parser answers it. `filter` captures its
    /// arguments for passthrough (the probe is what answers there) and has its own bypass.
    func testSubcommandsNameTheirSuperCommand() {
        XCTAssertNil(Passconduit.configuration._superCommandName)
        for command in Passconduit.configuration.subcommands where command != MailFilter.self {
            XCTAssertEqual(command.configuration._superCommandName, Passconduit._commandName, "\(command)")
        }
        XCTAssertNil(MailFilter.configuration._superCommandName)
        XCTAssertNil(SubcommandFastPath.parse(["filter", "--generate-completion-script", "bash"]))
    }

    static func dump(_ command: any ParsableCommand) -> String {
        var text = ""
        Swift.dump(command, to: &text)
        return text
    }
}
