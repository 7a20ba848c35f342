/// What the mail server said of a user name and password. Never carries the password; the
/// sentence of `.unavailable` names the server and the cause, for a person and for the log.
package enum MailboxLoginResult: Sendable, Equatable {
    /// The server signed the user in (and was signed out again at once).
    case accepted
    /// The server refused the user name and password. Wrong password and unknown user look the
    /// same here, as they do on the server (`NO [AUTHENTICATIONFAILED]`).
    case rejected
    /// The server could not be asked: down, too slow, no TLS where it is required, a protocol
    /// error, or its own answer that it is temporarily unavailable (RFC 5530 `[UNAVAILABLE]`).
    case unavailable(String)
}
