import Conduit
import PassStore

/// Library work from a command's main thread, with library errors as CLI errors.
enum LibraryCall {
    /// Runs library work (async) and maps its errors to exit codes (`CLIError(_: LibraryError)`).
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        do {
            return try Blocking.run(body)
        } catch let error as LibraryError {
            throw CLIError(error)
        }
    }
}

extension CLIError {
    /// The library error's sentence, with its exit status.
    init(_ error: LibraryError) {
        self.init(error.description, status: ExitStatus(error))
    }
}

extension ExitStatus {
    /// The one mapping from a library error to an exit status, whichever command meets it: a
    /// refusal is bad data (65), a pass or offer that is not there a missing input (66), an
    /// ambiguous ID prefix a usage error (64, the argument must be longer); everything else
    /// (busy, damaged, disk full, newer schema) an I/O error (74).
    init(_ error: LibraryError) {
        switch error.kind {
        case .refused: self = .dataError
        case .notFound: self = .noInput
        case .ambiguousID: self = .usage
        case .notALibrary, .cannotCreate, .io, .busy, .exists, .newerSchema: self = .ioError
        case .unavailable: self = .tempFailure
        }
    }
}
