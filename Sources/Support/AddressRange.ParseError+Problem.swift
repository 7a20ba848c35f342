extension AddressRange.ParseError: ProblemReporting {
    /// An `--allow` or `--trusted-proxy` value that is not an address or network; the sentence
    /// names the option.
    package var problem: Problem { Problem(.badArgument, message: description) }
}
