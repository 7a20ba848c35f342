import Support

/// A mistake in how the IMAP login was set up (the `--auth` URL, a CA file): a sentence for the
/// person starting the server.
package struct MailboxLoginError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension MailboxLoginError: ProblemReporting {
    package var problem: Problem { Problem(.badLoginSetup, message: message) }
}
