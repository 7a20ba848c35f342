import Support

extension LibraryAdmin.Problem: ProblemReporting {
    /// The operator's request cannot be done as asked (a map that is not absolute, an address
    /// that is not a mailbox, `--owner` on a server): the command line's usage error.
    package var problem: Problem { Problem(.usage, message: description) }
}
