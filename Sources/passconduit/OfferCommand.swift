import ArgumentParser
import Conduit
import Foundation
import PassStore

/// `passconduit offer`: stages the passes in files as offers, with where they came from (issue 42
/// item 3): what a chat bot runs for a pass someone sent it. Never writes a pass itself.
struct OfferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offer",
        _superCommandName: "passconduit",
        abstract: "Stage the passes in files as offers for the library's owner to accept.",
        discussion: """
        Finds the passes in each file by content, as add does, and stages every valid or \
        untrusted one as an offer ("passconduit offers" lists them; "passconduit add --offer \
        ID" accepts one), the way the delivery filter stages passes from mail. Nothing is added \
        to the library itself. There is one offer per pass: a newer version replaces a pending \
        offer; a pass the library holds already, or an older version of it, is not offered; an \
        invalid or unsigned pass is refused.

        A chat bot records where the pass was sent with --from-network, --room, --event-id and \
        --sender; show, offers and the web wallet then say "Sent by … in room …". --name \
        records the file under the name it was sent with instead of its (temporary) path.

        One line per pass (with --json, one object per pass). Exit status: 0 when every pass \
        was offered or needed no offer; 65 when a pass was refused; 1 when the files held no \
        pass; 66 when a file does not exist.

        Examples:
          passconduit offer boarding.pkpass
          passconduit offer --user alice@example.org --from-network matrix \\
            --room '!abc:example.org' --event-id '$xyz' --sender @alice:example.org ticket.pkpass
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .customLong("from-network"), help: ArgumentHelp("The chat network the passes were sent on, e.g. matrix.", valueName: "network"))
    var network: String?

    @Option(name: .long, help: ArgumentHelp("The chat room they were sent in.", valueName: "room"))
    var room: String?

    @Option(name: .customLong("event-id"), help: ArgumentHelp("The chat message (event) that carried them.", valueName: "id"))
    var eventID: String?

    @Option(name: .long, help: ArgumentHelp("Who sent them, e.g. @alice:example.org.", valueName: "id"))
    var sender: String?

    @Option(name: .long, help: ArgumentHelp("Record each file under this name instead of its path.", valueName: "name"))
    var name: String?

    @Argument(help: ArgumentHelp("Passes, bundles, zips or saved messages; - for standard input.", valueName: "file"))
    var files: [String] = []

    func validate() throws {
        if files.isEmpty { throw ValidationError("Missing expected argument '<file> ...' (the files holding the passes to offer)") }
        for (flag, value) in [("--from-network", network), ("--room", room), ("--event-id", eventID), ("--sender", sender), ("--name", name)] {
            guard let value else { continue }
            if value.isEmpty || value.utf8.count > 255 || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw ValidationError("\(flag): give 1 to 255 characters without control characters")
            }
        }
    }

    /// The chat message the flags describe, or nil when none was given.
    func chat(at time: Date) -> PassSource? {
        let source = PassSource(receivedAt: time, network: network, room: room, eventID: eventID, sender: sender)
        return source.isChat ? source : nil
    }

    func run() throws {
        try Self.exiting {
            for file in files where file != "-" && !FileManager.default.fileExists(atPath: file) {
                throw CLIError("\(file): no such file", status: .noInput)
            }
            let context = try Context(global)
            let library = try context.library()
            let scanner = try context.scanner(library: library, onPurpose: true)
            let inputs = InputScanner(scanner: scanner, workers: 1)
            var found: [FoundPass] = []
            var unreadable = false
            for file in files {
                inputs.scan(file) { event in
                    switch event {
                    case .found(var pass):
                        if let name {
                            pass.source.input = name
                            pass.record?.source?.file = name
                        }
                        found.append(pass)
                    case .problem(let problem):
                        unreadable = true
                        Terminal.warn(problem.description)
                    case .progress: break
                    }
                }
            }
            let chat = chat(at: Date())
            var refused = false
            var seen = Set<String>()
            for pass in found where seen.insert(pass.verdict.sha256).inserted {
                let outcome = try LibraryCall.run { try await OfferIntake.stage(pass, chat: chat, library: library) }
                if outcome.isRefusal { refused = true }
                if global.json {
                    print(OfferIntake.json(pass, outcome).line)
                } else {
                    print(TerminalText.line(OfferIntake.line(OfferIntake.title(pass), outcome)))
                }
            }
            if found.isEmpty {
                if !unreadable { Terminal.warn("no pass found in \(files.joined(separator: ", "))") }
                return unreadable ? .dataError : .noPassFound
            }
            return refused ? .dataError : .success
        }
    }
}
