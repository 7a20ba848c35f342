/// What a mailbox server answered to a user name and password.
package enum PasswordCheck: Sendable, Equatable {
    case accepted
    /// Wrong password or unknown user: the two are never told apart.
    case rejected
    /// The server could not be asked (down, refused TLS, timed out): a sentence for the page.
    case unavailable(reason: String)
}

/// Checks a mailbox login (the IMAP LOGIN of `--auth imap://…`). The composition root builds it;
/// PassWeb only asks it.
package protocol PasswordChecker: Sendable {
    /// `clientAddress`, `clientPort`: the visitor's IP address and port, passed on to the mailbox
    /// server (so its log and its per-address penalty see the visitor, not the wallet); nil when
    /// unknown (a unix socket).
    func check(user: String, password: String, clientAddress: String?, clientPort: Int?) async -> PasswordCheck
}
