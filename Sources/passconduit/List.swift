import ArgumentParser
import Conduit
import Foundation
import PassStore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        _superCommandName: "passconduit",
        abstract: "List the passes in your library, by relevant date.",
        discussion: """
        One line per pass: the start of its SHA-256 (usable as its ID), its relevant date and \
        time with its zone, organization and description; expired, voided and untrusted passes \
        are marked (the verdict stored when the pass was added, as "show" gives it). With \
        --lang, names and descriptions are given in that language where the pass has it.

        Examples:
          passconduit list
          passconduit list --json | jq -r .description
        """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library(reading: true)
            var passes = try LibraryCall.run { try await library.passes() }
            // The language chain every command follows: --lang, the config, LC_ALL, LC_MESSAGES, LANG.
            if !context.setup.preferredLanguages.isEmpty { passes = try localized(passes, context: context, library: library) }
            let card = PassCard(terminal: context.terminal)
            let dateWidth = passes.map { PassCard.listDate($0).count }.max() ?? 0
            for pass in passes {
                print(global.json ? StoredPassJSON.object(pass).line : card.listLine(pass, dateWidth: dateWidth))
            }
            if passes.isEmpty && !global.json { print("Your library is empty.") }
            return .success
        }
    }
}

extension List {
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

