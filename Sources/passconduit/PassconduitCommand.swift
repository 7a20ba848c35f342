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
                      Offers.self, Log.self, Update.self, MailFilter.self, MilterCommand.self, Serve.self, LibraryCommand.self]
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
        if var command = SubcommandFastPath.parse(arguments) {
            // What `main` does after `parseAsRoot`, with the same type reporting the error.
            do {
                try command.run()
            } catch {
                Self.exit(withError: error)
            }
            return
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

/// Start-up fast path (issue 17): `passconduit scan …` parses with `Scan` as the root, so the
/// other subcommands' arguments are never reflected over (that was most of a scan's start-up).
///
/// Only a successful parse is used. Every error, help or version request, completion script,
/// `help` pseudo-command or anything else ArgumentParser would answer itself gives `nil`, and
/// the full parser (`Passconduit.main`) then parses again and answers as it always did: usage
/// lines say `passconduit scan`, `--version` after a subcommand prints the version. A parse
/// that succeeds alone succeeds the same way under the root: the root declares no arguments or
/// option groups (so it takes nothing away from the subcommand's and hands it no values), no
/// subcommand declares a version, help names or `@ParentCommand`, and the built-in flags a
/// standalone parse does not know (`--version`) fail it. Tests/PassconduitTests/SubcommandFastPathTests.
enum SubcommandFastPath {
    /// Set (to anything) in tests to compare the full parser's answers with the fast path's.
    static let disableVariable = "PASSCONDUIT_FULL_PARSE"

    /// Subcommands name `_superCommandName` for this: read only from the root of the tree being
    /// parsed (never under `Passconduit`), it spares a standalone parse the
    /// `--generate-completion-script` probe, which reflects over two more commands. `filter`
    /// (captured passthrough arguments) has its own bypass in `main` and never comes here.
    static func parse(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first, name != "filter", getenv(disableVariable) == nil,
              let subcommand = Passconduit.configuration.subcommands.first(where: {
                  $0._commandName == name || $0.configuration.aliases.contains(name)
              }),
              let command = try? subcommand.parseAsRoot(Array(arguments.dropFirst())),
              // A nested command (`library copy`) or the subcommand itself; not HelpCommand.
              declares(type(of: command), in: subcommand)
        else { return nil }
        return command
    }

    static func declares(_ type: any ParsableCommand.Type, in command: any ParsableCommand.Type) -> Bool {
        ObjectIdentifier(type) == ObjectIdentifier(command)
            || command.configuration.subcommands.contains { declares(type, in: $0) }
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
