import ArgumentParser
import XCTest
@testable import passconduit

/// `passconduit scan …` is parsed, answered and run by `Scan` as a standalone root
/// (`SubcommandDispatch`), decided from the words before any parse; the full tree never sees those
/// arguments. Each standalone root must answer every request as the full tree (`Passconduit`)
/// answered it: the command it runs with the same values, or the same text (help, version, usage
/// error) with the same exit status.
final class SubcommandDispatchTests: XCTestCase {
    /// Tails tried after every subcommand's name: built-in flags in every position ArgumentParser
    /// looks for them, the `--` terminator, the global options, unknown options, nested commands.
    static let tails: [[String]] = [
        [], ["--help"], ["-help"], ["--help-hidden"], ["x", "--help"], ["--", "--help"],
        ["--version"], ["x", "--version"], ["--", "--version"], ["-", "--", "x", "--version"],
        ["--experimental-dump-help"], ["--generate-completion-script", "bash"], ["---completion", "--", "--library"],
        ["--", "--generate-completion-script"], ["help", "copy"], ["x", "help"], ["--bogus"], ["-q"], ["--json", "x"],
        ["-v", "x", "y"], ["--library=/tmp/l", "--trust", "/t", "--trust", "/u", "x"], ["--lang", "de", "--no-color", "1"],
        ["--trust"], ["--", "-"], ["x", "y", "z"], ["--render", "/tmp/r", "x"], ["--all", "-o", "/tmp/o"], ["--offer", "1"],
        ["copy", "--user", "u", "a", "b"], ["copy", "a", "b", "--version"], ["copy", "-h"], ["copy"], ["copy", "help"],
        ["--listen", "unix:/tmp/s"], ["--port", "0", "x"], ["--scale", "2", "x"], ["--time-limit", "5"], ["purge", "--older-than"],
    ]

    static var names: [String] { Passconduit.configuration.subcommands.map { $0._commandName } }

    /// What `main` does with `arguments` under `root`: runs a command with these values, or
    /// prints this text with this exit status. The full tree prints `fullMessage(for:)`
    /// (`exit(withError:)`); a standalone root, `SubcommandDispatch.message(for:_:)`. A help
    /// request parses as `HelpCommand`, whose run throws the request that `Passconduit` reports.
    enum Answer: Equatable {
        case runs(String)
        case says(String, Int32)
    }

    static func answer(_ root: any ParsableCommand.Type, _ arguments: [String]) -> Answer {
        do {
            var command = try root.parseAsRoot(arguments)
            guard String(describing: type(of: command)) != "HelpCommand" else {
                do {
                    try command.run()
                    return .says("", 0)
                } catch {
                    return .says(Passconduit.fullMessage(for: error), Passconduit.exitCode(for: error).rawValue)
                }
            }
            var text = ""
            Swift.dump(command, to: &text)
            return .runs(text)
        } catch {
            let text = root == Passconduit.self ? root.fullMessage(for: error) : SubcommandDispatch.message(for: error, root)
            return .says(text, root.exitCode(for: error).rawValue)
        }
    }

    func testEveryStandaloneRootAnswersAsTheFullTree() throws {
        var compared = 0
        var ran = 0
        for name in Self.names {
            for tail in Self.tails {
                let arguments = [name] + tail
                guard let subcommand = SubcommandDispatch.standalone(arguments) else { continue }
                compared += 1
                let alone = Self.answer(subcommand, SubcommandDispatch.rootArguments(tail, subcommand))
                XCTAssertEqual(alone, Self.answer(Passconduit.self, arguments), "\(arguments)")
                if case .runs = alone { ran += 1 }
            }
        }
        // Every tail but the completion and dump requests and `help …`, after every name but filter's; runs and answers both.
        XCTAssertEqual(compared, (Self.names.count - 1) * (Self.tails.count - 4))
        XCTAssertGreaterThan(ran, 60)
    }

    func testSubcommandsAreDispatchedFromTheirNameAlone() {
        for arguments in [["scan", "--json", "a.eml"], ["scan", "-"], ["scan", "--", "--version"], ["scan", "--bogus"], ["scan", "--help"],
                          ["scan", "x", "--version"], ["list", "--kind"], ["library", "copy", "help"], ["library", "copy", "a", "b"],
                          ["scan", "--", "--generate-completion-script"], ["log", "--json"], ["export"]] {
            XCTAssertTrue(SubcommandDispatch.standalone(arguments).map { $0._commandName == arguments[0] } ?? false, "\(arguments)")
        }
    }

    /// The root answers what describes the whole tree or names no subcommand.
    func testTheRootAnswersTheRest() {
        for arguments in [["--help"], ["--version"], ["help", "scan"], ["help"], ["bogus"], [], ["-h"],
                          ["scan", "--generate-completion-script", "bash"], ["list", "--json", "--generate-completion-script=zsh"],
                          ["scan", "---completion", "--", "--library"], ["---completion", "scan", "--", "--library"],
                          ["scan", "--experimental-dump-help"], ["library", "copy", "--experimental-dump-help"],
                          ["library", "help", "copy"], ["scan", "help"], ["filter", "--help"]] {
            XCTAssertNil(SubcommandDispatch.standalone(arguments), "\(arguments)")
        }
    }

    /// A standalone root takes only its own arguments: an option on the root would be an option
    /// `passconduit scan --x` no longer understood. Options every command takes go in GlobalOptions.
    func testTheRootTakesNoArguments() {
        XCTAssertTrue(Mirror(reflecting: Passconduit()).children.isEmpty)
        XCTAssertEqual(Self.answer(Passconduit.self, ["--library", "x", "scan"]),
                       .says("Error: Unknown option '--library'\nUsage: passconduit <subcommand>\n  See 'passconduit --help' for more information.", 64))
    }

    /// Why there is one parser (issue 28, item 7): issue 17's fast path parsed with the subcommand
    /// alone and, when that failed, again with the full tree, so whatever both accepted had to
    /// mean the same to both. An option on the root broke that unseen: `root sub --name x` gave
    /// `x` to the subcommand alone, and to the root under the full tree. This small tree is
    /// today's shape plus such an option.
    struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "root", subcommands: [Sub.self])
        @Option var name: String?
    }

    struct Sub: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sub", _superCommandName: "root")
        @Option var name: String?
        @Argument var paths: [String] = []
    }

    func testARootOptionMadeTheTwoParsersDisagree() throws {
        let arguments = ["--name", "x", "a"]
        // Issue 17's fast path: Sub alone accepted it, so the full tree was never asked.
        let alone = try XCTUnwrap(try Sub.parseAsRoot(arguments) as? Sub)
        XCTAssertEqual(alone.name, "x")
        // The full tree takes the same words another way.
        XCTAssertNotEqual(Self.answer(Root.self, ["sub"] + arguments), Self.answer(Sub.self, arguments))
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

    /// As a standalone root, a subcommand must read as one under `passconduit`: its super-command
    /// name puts "passconduit" in usage and help (and spares the completion probe, which reflects
    /// over two more commands), and its version answers `--version`. ArgumentParser reads both
    /// only where the tree shows them: `_superCommandName` at the root of the tree parsed, the
    /// version when any command of the stack has one, so under `Passconduit` nothing changes.
    /// `filter` captures its arguments for passthrough and has its own bypass.
    func testSubcommandsNameTheirSuperCommandAndVersion() {
        XCTAssertNil(Passconduit.configuration._superCommandName)
        for command in Passconduit.configuration.subcommands where command != MailFilter.self {
            XCTAssertEqual(command.configuration._superCommandName, Passconduit._commandName, "\(command)")
            XCTAssertEqual(command.configuration.version, Passconduit.version, "\(command)")
        }
        XCTAssertNil(MailFilter.configuration._superCommandName)
        XCTAssertNil(SubcommandDispatch.standalone(["filter", "--generate-completion-script", "bash"]))
    }
}
