import ArgumentParser
import Conduit
import Foundation
import PassStore
import WalletPass

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show everything about a pass in your library.",
        discussion: """
        ID is "passTypeIdentifier/serialNumber" or a short unique start of the pass's SHA-256 \
        (as "passconduit list" shows it). Texts are localized (--lang). --field KEY prints the \
        value of one field, for scripts; it exits 65 when the pass has no such field.

        Examples:
          passconduit show 3fa2c1
          passconduit show pass.org.example.event/EVT-1 --field seat
        """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Print only the value of this field.", valueName: "key"))
    var field: String?

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let (library, passID) = try context.libraryAndPass(id)
            let stored = try context.storedPass(passID, named: id, in: library)
            let bytes = try LibraryCall.run { try library.export(passID) }
            let verdict = try context.opener().open(bytes)
            if let field {
                guard let value = verdict.pass?.localizedValue(forFieldKey: field) else {
                    Terminal.warn("\(passID): the pass has no field \"\(field)\"")
                    return .dataError
                }
                print(TerminalText.lines(value))
                return .success
            }
            if global.json {
                print(StoredPassJSON.detailed(stored, info: verdict.pass, verdict: verdict).line)
            } else {
                print(PassDetails(terminal: context.terminal).render(stored, verdict: verdict))
            }
            return .success
        }
    }
}
