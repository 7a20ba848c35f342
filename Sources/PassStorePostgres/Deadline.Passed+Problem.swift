import Support

extension Deadline.Passed: ProblemReporting {
    /// The server did not answer before the deadline; callers turn it into a `LibraryError`
    /// that says what it means for the change (retried, or perhaps made).
    var problem: Problem { Problem(.timeout, message: "The library server did not answer in time.") }
}
