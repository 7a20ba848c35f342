import PassStore

/// What happened in one recipient library during a message's scan, for the log line (one entry
/// per library): what the library held and what was done there, or why it could not be used.
/// What differs per recipient goes here and into that recipient's library, never into a header
/// every copy of the message carries.
package struct FilterLibraryNote: Sendable, Equatable {
    /// The library as the log names it: the location without its password (`LibraryLocation.
    /// withoutPassword`, the one redaction every printer uses), and the library user on a server.
    package var library: String
    /// `state/action` per pass (`new/offered,contained/none`), `no-library` when the server holds
    /// none for this recipient, empty when the library failed.
    package var outcome: String
    /// Why the library could not be used; nil when it was.
    package var error: FilterError?

    package init(library: String, outcome: String, error: FilterError? = nil) {
        self.library = library
        self.outcome = outcome
        self.error = error
    }

    /// The name of `location` (and `user`) safe to print anywhere: never a password.
    package static func name(_ location: String, user: String? = nil) -> String {
        LibraryLocation.withoutPassword(location) + (user.map { " (user \($0))" } ?? "")
    }

    /// `new/offered,contained/none`: each pass's library state and what was done.
    package static func outcome(of reports: [FilterPassReport]) -> String {
        var out = ""
        for r in reports.prefix(32) {
            if !out.isEmpty { out += "," }
            out += "\(r.library?.rawValue ?? "unknown")/\(r.action.rawValue)"
        }
        return out.isEmpty ? "no-pass" : out
    }

    /// `library="…" outcome=…` or `library="…" library-error=code detail="…"` for the log line.
    package var logText: String {
        var text = "library=\"\(FilterLog.printable(library))\""
        if let error {
            text += " library-error=\(error.code.rawValue) library-detail=\"\(FilterLog.printable(error.detail))\""
        } else {
            text += " outcome=\(FilterLog.printable(outcome))"
        }
        return text
    }
}
