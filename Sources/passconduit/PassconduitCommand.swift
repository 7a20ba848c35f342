#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CBuildInfo
import Conduit
import MailMIME

@main
struct Passconduit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passconduit",
        abstract: "Find Apple Wallet passes in mail, verify them, and keep a local pass library.",
        discussion: """
        passconduit finds .pkpass attachments in messages, mbox files and Maildir folders, \
        verifies them the way Wallet does, and keeps them in a library on this computer.

        The main job, on a saved message:
          passconduit scan ticket.eml    # what is it, is it genuine, is it new?
          passconduit add ticket.eml     # show it, ask, add it to your library

        In a mail delivery pipeline, "passconduit filter" reads a message on standard input, \
        writes it unchanged to standard output, and stages the passes it carries as offers \
        ("passconduit offers").

        Shell completions: passconduit --generate-completion-script bash|zsh|fish
        """,
        version: Passconduit.version,
        subcommands: [Scan.self, Add.self, List.self, Show.self, Remove.self, Export.self, CalendarCommand.self, Send.self, Icon.self, Render.self, Open.self,
                      Offers.self, OfferCommand.self, Share.self, Log.self, Update.self, Notices.self, MailFilter.self, MilterCommand.self, Serve.self, LibraryCommand.self]
    )

    /// The release; the package version (script/build-deb) is this.
    static let release = "0.1.0"

    /// `passconduit --version`: the release, and the commit a `make build` was made from.
    static let version: String = {
        let commit = String(cString: passconduit_build_commit())
        return commit.isEmpty ? release : "\(release) (\(commit))"
    }()

    static func main() {
        let arguments = rawArguments()
        // Before ArgumentParser: building its command tree (reflection over every subcommand's
        // properties) costs more than the rest of `--version`, and the filter must not wait for it.
        if arguments == ["--version"] {
            let line = Array((version + "\n").utf8)
            _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            _exit(0)
        }
        // The delivery filter must never exit with ArgumentParser's codes (64 on a bad flag).
        if arguments.first == "filter" {
            FilterCommand.run(arguments: Array(arguments.dropFirst()))
        }
        if arguments.first == MilterWorkerCommand.name {
            MilterWorkerCommand.run(arguments: Array(arguments.dropFirst()))
        }
        if let subcommand = SubcommandDispatch.standalone(arguments) {
            SubcommandDispatch.main(subcommand, Array(arguments.dropFirst()))
        }
        if let problem = UnknownCommand.problem(arguments) {
            let line = Array(("passconduit: " + problem + "\n").utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            _exit(64)
        }
        Self.main(arguments)
    }

    /// The arguments with their exact bytes. `CommandLine.arguments` repairs bytes that are not
    /// UTF-8 (U+FFFD), so `caf\xe9.pkpass` would name a file that does not exist; argv holds the
    /// bytes, kept here as `PathBytes` carriers (identical Strings for UTF-8 arguments).
    static func rawArguments() -> [String] {
        guard CommandLine.argc > 1 else { return [] }
        return (1..<Int(CommandLine.argc)).compactMap { index in
            CommandLine.unsafeArgv[index].map { PathBytes.string(cString: $0) }
        }
    }
}

/// Which parser answers (issue 17's start-up fast path, issue 28's single parse): `passconduit
/// scan …` is parsed, answered and run by `Scan` as a standalone root, as SwiftPM dispatches
/// `swift package …`; nothing else parses those arguments, and nothing falls back. So building the
/// whole tree (reflection over every subcommand's properties, most of a scan's start-up) is
/// skipped, and no two parsers can take the same arguments two ways.
///
/// As a root, a subcommand reads like one under `passconduit`: it names `_superCommandName:
/// "passconduit"` (usage, help and errors say `passconduit scan`) and the version (`--version`
/// after it prints it). One line differs: ArgumentParser (1.8.2, MessageInfo) leaves the super
/// command out of a usage error's "See 'scan --help'", so `message(for:)` puts it back. The full
/// tree (`Passconduit.main`) answers the rest: the bare root, root flags, `help …`, unknown names,
/// `help` after the name, and what describes a command's place in the whole tree
/// (`--generate-completion-script` and `--experimental-dump-help` anywhere before `--`, and the
/// completion callback `---completion`).
/// Tests/PassconduitTests/SubcommandDispatchTests checks that each standalone root answers every
/// request as the full tree does, byte for byte.
enum SubcommandDispatch {
    /// Set (to anything) in tests to have the full tree answer, for comparison.
    static let fullTreeVariable = "PASSCONDUIT_FULL_PARSE"

    /// The subcommand that answers `arguments` as a standalone root, or nil for the full tree.
    /// Decided from the words alone, before any parse. `filter` (captured passthrough arguments)
    /// has its own bypass in `main` and never comes here.
    static func standalone(_ arguments: [String]) -> (any ParsableCommand.Type)? {
        guard let name = arguments.first, name != "filter", getenv(fullTreeVariable) == nil,
              !needsTheWholeTree(arguments.dropFirst()) else { return nil }
        return Passconduit.configuration.subcommands.first {
            $0._commandName == name || $0.configuration.aliases.contains(name)
        }
    }

    /// A completion or help-dump request: its answer describes the whole tree, so only the root
    /// can give it.
    static func needsTheWholeTree(_ tail: ArraySlice<String>) -> Bool {
        // `library help copy`: a standalone root takes `help` for its own help command.
        if tail.first == "---completion" || tail.first == "help" { return true }
        for argument in tail {
            if argument == "--" { return false }
            if argument.hasPrefix("--generate-completion-script") || argument == "--experimental-dump-help" { return true }
        }
        return false
    }

    /// The arguments a standalone root parses: `passconduit show` alone is `show --`, because
    /// ArgumentParser answers a root given no arguments at all with its whole help, where a
    /// subcommand under the full tree says which argument is missing. A command with
    /// subcommands (`library`) answers both ways the same.
    static func rootArguments(_ arguments: [String], _ subcommand: any ParsableCommand.Type) -> [String] {
        arguments.isEmpty && subcommand.configuration.subcommands.isEmpty ? ["--"] : arguments
    }

    /// What `subcommand.exit(withError:)` prints for a parse error, with "passconduit" in its
    /// last line as under the full tree: "  See 'passconduit scan --help' for more information."
    static func message(for error: any Error, _ subcommand: any ParsableCommand.Type) -> String {
        let text = subcommand.fullMessage(for: error)
        let see = "\n  See '\(subcommand._commandName)"
        guard let superName = subcommand.configuration._superCommandName, let range = text.range(of: see, options: .backwards),
              text[range.upperBound...].hasSuffix(" for more information."), !text[range.upperBound...].contains("\n") else { return text }
        return text.replacingCharacters(in: range, with: "\n  See '\(superName) \(subcommand._commandName)")
    }

    /// `ParsableCommand.main` for `subcommand` as the root, except that an error its `run` throws
    /// is reported by `Passconduit`, as it was when the full tree ran every command.
    static func main(_ subcommand: any ParsableCommand.Type, _ arguments: [String]) -> Never {
        var command: any ParsableCommand
        do {
            command = try subcommand.parseAsRoot(rootArguments(arguments, subcommand))
        } catch {
            // `exit(withError:)`'s output, with the message above.
            let text = message(for: error, subcommand)
            let status = subcommand.exitCode(for: error)
            if !text.isEmpty {
                let line = Array((text + "\n").utf8)
                _ = line.withUnsafeBytes { write(status.isSuccess ? 1 : 2, $0.baseAddress, $0.count) }
            }
            _exit(status.rawValue)
        }
        do {
            try command.run()
        } catch {
            Passconduit.exit(withError: error)
        }
        Passconduit.exit()
    }
}

/// A first word that names no command (`passconduit scna`, `passconduit help nothing`): one
/// sentence with the closest command name, and 64, where ArgumentParser said only "Unexpected
/// argument" (or, for `help nothing`, printed the root's help and exited 0).
enum UnknownCommand {
    static var names: [String] {
        Passconduit.configuration.subcommands.map { $0._commandName }
    }

    static func problem(_ arguments: [String]) -> String? {
        guard var word = arguments.first, !word.hasPrefix("-") else { return nil }
        var prefix = ""
        if word == "help" {
            guard arguments.count >= 2, !arguments[1].hasPrefix("-") else { return nil }
            word = arguments[1]
            prefix = "help "
        }
        let known = names
        guard !known.contains(word) else { return nil }
        let hint = closest(to: word, in: known).map { "; did you mean “\($0)”?" } ?? ""
        return "\(prefix)\(word): there is no such command\(hint) (the commands: \(known.joined(separator: ", ")); see passconduit --help)"
    }

    /// The name within two edits of `word` (Levenshtein), the nearest first; nil if none is.
    static func closest(to word: String, in names: [String]) -> String? {
        let scored = names.map { ($0, distance(Array(word.lowercased()), Array($0))) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
