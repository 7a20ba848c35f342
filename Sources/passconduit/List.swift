import ArgumentParser
import Conduit
import Foundation
import PassStore

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the passes in your library, by relevant date.",
        discussion: """
        One line per pass: the start of its SHA-256 (usable as its ID), its relevant date, \
        organization and description; expired, voided and untrusted passes are marked.

        Examples:
          passconduit list
          passconduit list --json | jq -r .description
        """)

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library()
            let passes = try LibraryCall.run { try library.passes() }
            let card = PassCard(terminal: context.terminal)
            for pass in passes {
                print(global.json ? StoredPassJSON.object(pass).line : card.listLine(pass))
            }
            if passes.isEmpty && !global.json { print("Your library is empty.") }
            return .success
        }
    }
}

/// Library errors as CLI errors: a refusal is a data error, the rest are I/O errors.
enum LibraryCall {
    static func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LibraryError {
            let status: ExitStatus
            switch error.kind {
            case .refused: status = .dataError
            case .notFound, .ambiguousID: status = .noInput
            default: status = .ioError
            }
            throw CLIError(error.description, status: status)
        }
    }
}
