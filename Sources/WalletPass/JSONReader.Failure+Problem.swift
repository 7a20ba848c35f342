import Support

extension JSONReader.Failure: ProblemReporting {
    /// The code and sentence of the `bad-json` `PassError` a reader of pass.json makes of it;
    /// the detail says what was wrong and at which byte.
    var problem: Problem { Problem(.badJSON, message: PassError.message(for: .badJSON), detail: description) }
}
