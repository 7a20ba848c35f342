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

extension CLIError {
    /// A library that could not be opened, with the same exit status on every command and
    /// both backends: a server that is down, refuses the login or is busy (75, try again); no
    /// such library or user (66); anything else (a missing database, a folder that cannot be
    /// created, a foreign file, a newer schema) cannot create or open it (73).
    init(opening error: LibraryError) {
        let status: ExitStatus
        switch error.kind {
        case .unavailable, .busy: status = .tempFailure
        case .notFound: status = .noInput
        default: status = .cannotCreate
        }
        self.init(error.description, status: status)
    }
}

extension ExitStatus {
    /// The one mapping from a library error to an exit status, whichever command meets it: a
    /// refusal is bad data (65), a pass or offer that is not there a missing input (66), an
    /// ambiguous ID prefix a usage error (64, the argument must be longer); a library busy with
    /// other processes or a server that cannot be used now a temporary failure (75, on both
    /// backends); everything else (damaged, disk full, newer schema) an I/O error (74).
    init(_ error: LibraryError) {
        switch error.kind {
        case .refused: self = .dataError
        case .notFound: self = .noInput
        case .ambiguousID: self = .usage
        case .notALibrary, .cannotCreate, .io, .exists, .newerSchema: self = .ioError
        case .unavailable, .busy: self = .tempFailure
        }
    }
}
