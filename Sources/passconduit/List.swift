import ArgumentParser
import Conduit
import Foundation
import PassStore
import WalletPass

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        _superCommandName: "passconduit",
        abstract: "List the passes in your library, what comes next first.",
        discussion: """
        One line per pass: the start of its SHA-256 (usable as its ID), its relevant date and \
        time with its zone, organization and description; expired, voided and untrusted passes \
        are marked (the verdict stored when the pass was added, as "show" gives it). With \
        --lang, names and descriptions are given in that language where the pass has it.

        The order is Wallet's: passes with a date still to come (relevant dates, event and \
        departure times), soonest first, then the others in the order they were added; passes \
        that share a groupingIdentifier (one trip, one order) together. Expired and voided passes, \
        and passes without an expiration date whose dates are all more than a day past, come last \
        under "Expired" (only them with --archived). The web wallet ("passconduit serve") shows \
        the same order.

        Examples:
          passconduit list
          passconduit list berlin --upcoming
          passconduit list --kind boarding --json | jq -r .description
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Only passes whose organization, description or field values hold these words.", valueName: "text"))
    var text: [String] = []

    @Option(name: .long, help: ArgumentHelp("Only this kind: boardingPass, eventTicket, coupon, storeCard, generic (or boarding, event, store).", valueName: "kind"))
    var kind: String?

    @Flag(name: .long, help: "Only passes with a date still to come.")
    var upcoming = false

    @Flag(name: .long, help: "Only passes whose dates are past (expired and voided ones too).")
    var past = false

    @Flag(name: .long, help: "Only the expired and voided passes (the \"Expired\" section).")
    var archived = false

    func validate() throws {
        if let kind, LibraryView.Query.kinds(named: kind) == nil {
            throw ValidationError("--kind: “\(kind)” is not a kind of pass; use boardingPass, eventTicket, coupon, storeCard or generic.")
        }
        if upcoming && (past || archived) { throw ValidationError("--upcoming and --past/--archived exclude each other.") }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library(reading: true)
            var passes = try LibraryCall.run { try await library.passes() }
            // The language chain every command follows: --lang, the config, LC_ALL, LC_MESSAGES, LANG.
            if !context.setup.preferredLanguages.isEmpty { passes = try localized(passes, context: context, library: library) }
            let times = try self.times(passes, context: context, library: library)
            let query = LibraryView.Query(text: text.isEmpty ? nil : text.joined(separator: " "), kind: kind,
                                          upcoming: upcoming, past: past)
            let view = LibraryView(passes: passes, times: times, query: query)
            let current = archived ? [] : view.currentItems
            let old = view.archivedItems
            let card = PassCard(terminal: context.terminal)
            let shown = current + old
            let dateWidth = shown.map { PassCard.listDate($0.pass).count }.max() ?? 0
            for item in current {
                print(global.json ? StoredPassJSON.listObject(item).line : card.listLine(item.pass, dateWidth: dateWidth))
            }
            if !old.isEmpty && !global.json && !archived {
                print("")
                print(context.terminal.bold("Expired"))
            }
            for item in old {
                print(global.json ? StoredPassJSON.listObject(item).line : card.listLine(item.pass, dateWidth: dateWidth))
            }
            if passes.isEmpty && !global.json { print("Your library is empty.") }
            else if shown.isEmpty && !global.json { print("No pass matches.") }
            return .success
        }
    }
}

extension List {
    /// Each pass's group and moments, from its stored pass.json (the order needs them).
    func times(_ passes: [StoredPass], context: Context, library: any PassLibraryBackend) throws -> [String: PassTimes] {
        let limits = context.limits.pass
        var out: [String: PassTimes] = [:]
        for pass in passes {
            let id = pass.id
            let bytes = try LibraryCall.run { try await library.export(id) }
            if let document = PassOpener.document(of: bytes, limits: limits) { out[pass.sha256] = PassTimes(document) }
        }
        return out
    }

    /// The organization names and descriptions in the `--lang` language: the library keeps
    /// them in the language of the day each pass was added, so each pass's stored bytes are
    /// read again (what `show` does). A pass that no longer opens keeps its stored texts.
    func localized(_ passes: [StoredPass], context: Context, library: any PassLibraryBackend) throws -> [StoredPass] {
        let opener = try context.opener()
        return try passes.map { pass in
            var pass = pass
            let id = pass.id
            let bytes = try LibraryCall.run { try await library.export(id) }
            if let info = opener.open(bytes).pass {
                pass.organizationName = info.organizationName
                pass.description = info.description
            }
            return pass
        }
    }
}

