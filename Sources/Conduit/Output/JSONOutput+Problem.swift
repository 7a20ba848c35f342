import Support

extension JSONOutput {
    /// The one JSON form of a problem, written by every JSON writer of an error (`scan --json`,
    /// `show`/`list --json`, `update --json`, the web API's error bodies):
    /// `{"code": …, "message": …, "detail": …}`, keys in that order; `detail` is left out when
    /// the problem has none (the web API's errors), and written when it is empty.
    package static func problem(_ problem: Problem) -> JSONOutput {
        var members: [(String, JSONOutput)] = [("code", .string(problem.code.rawValue)), ("message", .string(problem.message))]
        if let detail = problem.detail { members.append(("detail", .string(detail))) }
        return .object(members)
    }

    /// `error`'s problem in its one JSON form.
    package static func problem(_ error: some ProblemReporting) -> JSONOutput { problem(error.problem) }
}
