import Support

extension InputScanner.ReadError: ProblemReporting {
    /// Reading an input failed part way; the sentence is the rest of the line `scan` writes
    /// after the input's name ("cannot be read: Input/output error"), the detail the errno.
    var problem: Problem {
        Problem(.inputReadFailed, message: InputScanner.reason(code, verb: "cannot be read"), detail: "errno \(code)")
    }
}
