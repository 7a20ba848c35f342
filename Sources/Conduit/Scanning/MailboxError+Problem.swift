import MailMIME
import Support

// In Conduit, not MailMIME: the parser depends on nothing (Package.swift), and Conduit is where a
// mailbox error becomes an `InputProblem`.
extension MailboxError: ProblemReporting {
    package var problem: Problem {
        let code: Problem.Code = switch self.code {
        case .cannotOpen: .cannotOpen
        case .notAMaildir: .notAMaildir
        default: .readFailed
        }
        return Problem(code, message: "\(path == "-" ? "standard input" : path) cannot be read as a mailbox.", detail: description)
    }
}
