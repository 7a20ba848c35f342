import Support

extension InputProblem: ProblemReporting {
    /// The code and the sentence that names the input ("inbox.mbox: is empty").
    package var problem: Problem { Problem(code, message: description) }
}
