import ArgumentParser
import Conduit
import Foundation

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a pass's original .pkpass bytes, unchanged.",
        discussion: """
        The exported file is byte-identical to the one that was added, so its signature still verifies.

        Examples:
          passconduit export 3fa2c1 -o ticket.pkpass
          passconduit export pass.org.example.event/EVT-1 > ticket.pkpass
        """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String

    func validate() throws {
        if global.json {
            throw ValidationError("--json: export writes the .pkpass bytes, not JSON. Use \"passconduit show --json\" for the pass as JSON.")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let (library, passID) = try context.libraryAndPass(id)
            let bytes = try LibraryCall.run { try library.export(passID) }
            try OutputFile.write(bytes, to: output, what: "pass")
            return .success
        }
    }
}
