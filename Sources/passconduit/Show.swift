import ArgumentParser
import Conduit
import Foundation
import PassStore
import WalletPass

struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        _superCommandName: "passconduit",
        abstract: "Show everything about a pass in your library.",
        discussion: """
        ID is "passTypeIdentifier/serialNumber" or a short unique start of the pass's SHA-256 \
        (as "passconduit list" shows it). Texts are localized (--lang). --field KEY prints the \
        value of one field, for scripts; it exits 65 when the pass has no such field.

        On a terminal the barcode is drawn under the details, black on white, for a phone or a \
        gate scanner to read off the screen (--no-barcode leaves it out); when the terminal is \
        too narrow or the barcode cannot be drawn, its text is shown instead.

        Examples:
          passconduit show 3fa2c1
          passconduit show pass.org.example.event/EVT-1 --field seat
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Print only the value of this field.", valueName: "key"))
    var field: String?

    @Flag(name: .long, help: "Do not draw the barcode on the terminal.")
    var noBarcode = false

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let (library, passID, stored, bytes) = try context.namedPass(id)
            let verdict = try context.opener().open(bytes)
            if let field {
                guard let value = verdict.pass?.localizedValue(forFieldKey: field) else {
                    Terminal.warn("\(passID): the pass has no field \"\(field)\"")
                    return .dataError
                }
                print(TerminalText.lines(value))
                return .success
            }
            let web = try LibraryCall.run { try await library.webServiceState(passID) }
            if global.json {
                print(StoredPassJSON.show(stored, verdict: verdict, lastUpdateCheck: web).line)
            } else {
                print(PassDetails(terminal: context.terminal).render(stored, verdict: verdict))
                if let line = UpdateCheckText.line(web, canUpdate: verdict.pass?.canUpdate ?? false) { print(line) }
                if !noBarcode, Terminal.stdoutIsTerminal, let pass = verdict.pass {
                    let barcode = TerminalBarcodeView(terminal: context.terminal).lines(for: pass)
                    if !barcode.isEmpty { print("\n" + barcode.joined(separator: "\n")) }
                }
            }
            return .success
        }
    }
}
