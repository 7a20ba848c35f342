import Support

extension ConnectionClosed: ProblemReporting {
    /// A statement was not sent because its connection had closed (`PostgresFailure` reads it
    /// as the server closing the connection).
    var problem: Problem { Problem(.unavailable, message: "The connection to the library server had closed.", detail: description) }
}
