import ArgumentParser
import Conduit
import Support

/// A command failure: printed as one "passconduit: …" line, then the process exits with `status`.
struct CLIError: Error {
    var message: String
    var status: ExitStatus

    init(_ message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }
}

extension ParsableCommand {
    /// Runs a command body, turning `CLIError` into its line and exit status.
    static func exiting(_ body: () throws -> ExitStatus) throws {
        let status: ExitStatus
        do {
            status = try body()
        } catch let error as CLIError {
            Terminal.warn(error.message)
            throw ExitCode(error.status.rawValue)
        }
        if status != .success { throw ExitCode(status.rawValue) }
    }
}

extension CLIError: ProblemReporting {
    /// What the command could not do, by its exit status.
    var problem: Problem {
        let code: Problem.Code = switch status {
        case .usage: .usage
        case .dataError: .badData
        case .noInput: .noInput
        case .unavailable: .serviceUnavailable
        case .cannotCreate: .cannotCreate
        case .ioError: .ioFailed
        case .tempFailure: .tryLater
        case .noPermission: .noPermission
        case .configError: .badConfig
        case .success, .noPassFound: .failed
        }
        return Problem(code, message: message)
    }
}
