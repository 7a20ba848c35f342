import Support

extension BindAddressProblem: ProblemReporting {
    /// A `--bind` value that is not an address (and port).
    package var problem: Problem { Problem(.badArgument, message: description) }
}
