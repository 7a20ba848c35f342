import Foundation

/// How a `PassLibrary` behaves under contention and what it accepts. Defaults suit a person at
/// a terminal; the delivery filter passes shorter waits so it can give up (exit 75) in time.
package struct LibraryOptions: Sendable {
    /// How long one statement waits for another process's write lock (SQLite busy timeout).
    package var busyTimeout: TimeInterval = 5
    /// How long a write (or the open + migrate step) keeps retrying after the busy timeout
    /// expired, before it fails with `LibraryError.Kind.busy`. Bounded, so no caller blocks forever
    /// on a stuck process.
    package var retryDeadline: TimeInterval = 15
    /// WAL `synchronous` mode. `.normal` (the default) cannot corrupt the library or lose a
    /// commit when a process is killed; only a power loss can roll back the last commits,
    /// which a re-scan of the mail restores. `.full` also survives that, for an fsync per commit.
    package var synchronous: Synchronous = .normal
    /// Earlier versions of a replaced pass kept for `revert`.
    package var keptVersions: Int = 3
    /// Largest .pkpass the library stores. Stops a hostile or broken caller from filling the
    /// disk with one huge blob; the conduit's own pass limits are lower.
    package var maxPassBytes: Int = 64 << 20
    /// The clock for added/updated/offer/change times (tests inject one).
    package var now: @Sendable () -> Date = { Date() }
    /// Whose library, on a server that keeps many users' libraries in one database (PostgreSQL,
    /// `--user`); nil is the login name. A library file belongs to one user and ignores it.
    package var user: String? = nil

    package enum Synchronous: String, Sendable {
        case normal = "NORMAL"
        case full = "FULL"
    }

    package init() {}

    package static var `default`: LibraryOptions { LibraryOptions() }
}
