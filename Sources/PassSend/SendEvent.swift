/// What happened while serving, for the command to print.
package enum SendEvent: Sendable, Equatable {
    /// The whole pass was written to this client.
    case downloaded(client: String, userAgent: String?)
    /// A client went away before the whole pass was written; the pass stays available.
    case interrupted(client: String)
    /// A request that got no pass: 404 (another path), 410 (already fetched), 405, 400.
    case refused(client: String, status: Int)
}

/// How the server ended.
package enum SendOutcome: Sendable, Equatable {
    case downloaded
    case timedOut
}
