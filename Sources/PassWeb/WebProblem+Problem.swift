import HTTPTypes
import Support

extension WebProblem: ProblemReporting {
    /// The page's sentence, with a code for its HTTP status; the detail is the status and the
    /// page's title. (The API still answers a refused upload as `not-accepted`, as it did.)
    var problem: Problem {
        let code: Problem.Code = switch status {
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .misdirectedRequest: .wrongHost
        case .badRequest: .badRequest
        default: status.kind == .clientError ? .badRequest : .internalError
        }
        return Problem(code, message: sentence, detail: "\(status.code) \(title)")
    }
}
