import ArgumentParser
import Conduit
import Foundation
import PassStore

struct Offers: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offers",
        _superCommandName: "passconduit",
        abstract: "List the passes staged for you: by the delivery filter, or sent to a chat bot.",
        discussion: """
        The delivery filter ("passconduit filter") never adds a new pass by itself: it stages an \
        offer. A chat bot stages the passes it is sent the same way ("passconduit offer"), with \
        the room and sender they came from. Accept offers with "passconduit add --offer ID" (or \
        review them all with "passconduit add --offers"); decline one with --decline ID.

        Examples:
          passconduit offers
          passconduit offers --decline 3
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Decline (drop) the offer with this number; repeatable.", valueName: "id"))
    var decline: [Int64] = []

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library()
            let terminal = context.terminal
            if !decline.isEmpty {
                for id in decline {
                    try LibraryCall.run { try await library.declineOffer(id) }
                    print("Declined offer \(id).")
                }
                return .success
            }
            let offers = try LibraryCall.run { try await library.offers() }
            for offer in offers {
                if global.json {
                    print(OfferJSON.object(offer).line)
                    continue
                }
                var line = terminal.bold("#\(offer.offerID)") + "  " + TerminalText.line("\(offer.organizationName) · \(offer.description)")
                if offer.status != .valid { line += "  " + terminal.yellow("[\(TerminalText.line(offer.status.rawValue))]") }
                print(line)
                var from = "  " + terminal.dim("staged \(DateText.human(offer.createdAt))")
                if let subject = offer.source?.subject { from += terminal.dim(" from \"\(TerminalText.line(subject))\"") }
                print(from)
                if let source = offer.source, let chat = SourceText.chat(source) { print("  " + terminal.dim(TerminalText.line(chat))) }
            }
            if offers.isEmpty && !global.json { print("No pending offers.") }
            return .success
        }
    }
}
