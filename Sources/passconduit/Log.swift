import ArgumentParser
import Conduit
import Foundation
import PassStore

struct Log: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        _superCommandName: "passconduit",
        abstract: "Show the library's change log; --follow waits for more.",
        discussion: """
        Every add, replace, remove, revert, offer and decline gets a sequence number that only \
        grows. A program can remember the last number it saw and ask for what came after it \
        (--after N), or keep following (--follow), as PassKit's change notification does.

        Examples:
          passconduit log
          passconduit log --json --follow --after 41
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Only changes after this sequence number.", valueName: "n"))
    var after: Int64 = 0

    @Flag(name: .shortAndLong, help: "Keep running and print changes as they happen.")
    var follow = false

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            // --follow waits for a library that may not exist yet (made by the first add), as before.
            let library = try context.library(reading: !follow)
            var last = after
            var waiting = false
            repeat {
                let after = last
                let entries: [ChangeEntry]
                do {
                    entries = try LibraryCall.run { try await library.changes(after: after) }
                } catch let error as CLIError where follow && error.status == .tempFailure {
                    // A server restarting or a library busy for a while: --follow keeps
                    // following on both backends, and says so once.
                    if !waiting { Terminal.warn("\(error.message); still following, trying again every 2 seconds") }
                    waiting = true
                    usleep(2_000_000)
                    continue
                }
                if waiting { Terminal.warn("the library answers again; following") }
                waiting = false
                for entry in entries {
                    print(global.json ? Self.json(entry).line : Self.line(entry, terminal: context.terminal))
                    last = max(last, entry.sequence)
                }
                fflush(nil)
                if follow && entries.isEmpty { usleep(500_000) }
            } while follow
            return .success
        }
    }

    static func line(_ entry: ChangeEntry, terminal: Terminal) -> String {
        var text = "\(entry.sequence)  \(DateText.iso(entry.at))  \(entry.kind.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(TerminalText.line(entry.passID.description))"
        if let sha = entry.sha256 { text += "  " + terminal.dim(String(sha.prefix(12))) }
        // What a replace changed, as Wallet announces it: the pass's changeMessage, else the field.
        for change in entry.changes {
            if let message = change.message {
                text += "\n    " + message
            } else {
                text += "\n    \(change.label ?? change.key): \(change.oldValue ?? "(none)") → \(change.newValue ?? "(removed)")"
            }
        }
        return UpdateOutcomeText.sanitized(text)
    }

    static func json(_ entry: ChangeEntry) -> JSONOutput {
        .object([
            ("schema", .int(FoundPassJSON.schema)),
            ("sequence", .int(entry.sequence)),
            ("kind", .string(entry.kind.rawValue)),
            ("id", .string(entry.passID.description)),
            ("sha256", .string(entry.sha256)),
            ("at", .date(entry.at)),
            ("changes", .array(entry.changes.map(UpdateOutcomeText.change))),
        ])
    }
}
