import Support

extension IMAPFailure: ProblemReporting {
    /// The mail server ended the sign-in early or answered outside IMAP; the detail is the cause
    /// as the sign-in's sentence words it ("it closed the connection").
    var problem: Problem {
        Problem(.mailServerFailed, message: "The mail server did not finish the sign-in.", detail: IMAPLogin.describe(self))
    }
}
