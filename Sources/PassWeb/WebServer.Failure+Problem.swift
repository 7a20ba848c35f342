import Support

extension WebServer.Failure: ProblemReporting {
    /// `serve` could not start: the address cannot be listened on, or the TLS certificate or
    /// key cannot be loaded. The sentence names the address or the files.
    package var problem: Problem { Problem(.cannotListen, message: description) }
}
