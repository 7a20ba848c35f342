import ArgumentParser
import Conduit
import Foundation

struct Icon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "icon",
        _superCommandName: "passconduit",
        abstract: "Write a pass's icon as a PNG file.",
        discussion: """
        The largest icon the pass carries (icon@3x.png, icon@2x.png, icon.png), localized when the \
        pass has one for your language.

        Example:
          passconduit icon 3fa2c1 -o ticket-icon.png
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String

    func validate() throws {
        if global.json {
            throw ValidationError("--json: icon writes a PNG, not JSON. Use \"passconduit show --json\" for the pass as JSON.")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let (library, passID) = try context.libraryAndPass(id, reading: true)
            let bytes = try LibraryCall.run { try await library.export(passID) }
            guard let icon = try context.opener().open(bytes).pass?.icon else {
                throw CLIError("\(passID): the pass has no icon", status: .dataError)
            }
            try OutputFile.write(icon.bytes, to: output, what: "icon")
            return .success
        }
    }
}
