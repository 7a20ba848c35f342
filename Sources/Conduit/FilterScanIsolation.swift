/// Runs the scan under the filter's deadline, isolated so that neither a hang nor a crash in the
/// MIME parser, zip reader, OpenSSL or SQLite can cost the message.
package enum FilterScanIsolation: Sendable {
    /// In a forked child process: a crash or a hang kills only the child, and at the deadline the
    /// child is killed (SIGKILL), so no library work continues after the filter has decided.
    /// Used by `passconduit filter`; fork is only safe while the process has a single thread, so
    /// the runner falls back to `.thread` otherwise.
    case childProcess
    /// On a separate thread, abandoned at the deadline (its results are ignored). For in-process
    /// use (tests, other callers), where forking is not safe.
    case thread
    /// On the caller's thread, no deadline (deterministic tests of the rest of the pipeline).
    case inline
}
