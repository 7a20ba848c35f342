import ArgumentParser
import Conduit
import Foundation
import PassStore

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        _superCommandName: "passconduit",
        abstract: "Remove a pass from your library (asks first).",
        discussion: """
        Nothing is ever removed except by this command. Without a terminal to ask on, --yes is needed.

        Examples:
          passconduit remove 3fa2c1
          passconduit remove --yes pass.org.example.event/EVT-1
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .shortAndLong, help: "Remove without asking.")
    var yes = false

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String

    func validate() throws {
        if global.json {
            throw ValidationError("--json: remove has no JSON output. Use \"passconduit log --json\" to follow removals.")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let (library, passID) = try context.libraryAndPass(id)
            let stored = try context.storedPass(passID, named: id, in: library)
            let terminal = context.terminal
            print(terminal.bold(TerminalText.line("\(stored.organizationName) · \(stored.description)")) + "  " + terminal.dim(TerminalText.line(stored.id.description)))
            if !yes {
                let prompt = Prompt()
                guard prompt.isInteractive else {
                    throw CLIError("not removed: there is no terminal to ask on; run again with --yes", status: .usage)
                }
                guard prompt.confirm("Remove this pass from your library?") else {
                    print("Not removed.")
                    return .success
                }
            }
            try LibraryCall.run { try await library.remove(passID) }
            print("Removed.")
            return .success
        }
    }
}
