import Support

extension StringsFile.Lexer.Failure: ProblemReporting {
    /// Where a `pass.strings` file stopped being readable; the entries before it are kept, so
    /// the pass only loses the labels after that point. The detail is `StringsFile.problem`'s.
    var problem: Problem {
        Problem(.badStrings, message: "A translation file of this pass can't be read to its end; the labels after that point are missing.",
                detail: "\(reason) at character \(offset)")
    }
}
