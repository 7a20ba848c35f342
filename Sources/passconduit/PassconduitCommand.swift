#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
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
                      Offers.self, Log.self, Update.self, MailFilter.self, MilterCommand.self, LibraryCommand.self]
    )

    static let version = "0.1.0"

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
