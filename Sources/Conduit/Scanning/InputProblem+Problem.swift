import Support

extension InputProblem: ProblemReporting {
    /// What kind of trouble it was.
    package var code: Problem.Code {
        switch status {
        case .noInput: return .inputUnavailable
        case .ioError: return .inputReadFailed
        default: return .inputUnusable
        }
    }

    /// The code and the sentence that names the input ("inbox.mbox: is empty").
    package var problem: Problem { Problem(code, message: description) }
}
