import Support

extension PassLibrary.OlderSchema: ProblemReporting {
    /// Never shown to anyone today (`PassLibrary.reading` catches it and opens the file as a
    /// writer, which brings it up to date); it says what it is like every other error.
    var problem: Problem {
        Problem(.olderSchema, message: "the library file has an older layout; opening it to write brings it up to date")
    }
}
