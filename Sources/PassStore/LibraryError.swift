/// Errors of the pass library. `path` is always named so a person can find the file.
/// Callers match `kind` (a stable code), never the message text.
package struct LibraryError: Error, Sendable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        /// The file at the library path is not a passconduit library (not SQLite, another
        /// program's database, or damaged). It is never modified.
        case notALibrary = "not-a-library"
        /// The library's folder or file cannot be created or opened for writing.
        case cannotCreate = "cannot-create"
        /// No pass, offer or earlier version with that identity.
        case notFound = "not-found"
        /// A sha256 prefix that matches more than one pass.
        case ambiguousID = "ambiguous-id"
        /// The library will not store this record (invalid, untrusted without consent, digest
        /// mismatch, older than the stored version, another team's pass).
        case refused = "refused"
        /// Input/output failure of the database (disk full, read-only file system...).
        case io = "io"
        /// Other processes held the library longer than the busy timeout and every retry.
        /// A temporary failure: trying again later is right (a filter exits 75).
        case busy = "busy"
        /// `add` of a pass whose id is already stored with different content (use `replace`).
        case exists = "exists"
        /// The library was written by a newer passconduit whose schema this one does not know.
        case newerSchema = "newer-schema"
        /// The library's server cannot be used now: it is down or unreachable, refuses the login,
        /// is read-only (a standby), or dropped the connection at a moment when retrying could
        /// apply a change twice. Nothing was written. A temporary failure: a filter exits 75.
        case unavailable = "unavailable"
    }
    package let kind: Kind
    package let message: String
    package let path: String?

    package init(_ kind: Kind, _ message: String, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
    }
    package var description: String { path.map { "\($0): \(message)" } ?? message }
}
