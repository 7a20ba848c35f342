/// What the delivery filter does besides staging offers. Its size and time caps live in `Limits`.
package struct FilterSettings: Sendable, Equatable {
    /// Apply a newer version of a pass already in the library (same id, valid, same team) at once,
    /// like `replacePassWithPass`. Off: stage it as an offer like a new pass.
    package var applyUpdates: Bool = true
    /// Add `X-Passconduit-*` header lines to messages that carry passes.
    package var addHeaders: Bool = true
    /// `on-library-error = "tempfail"`: a library that cannot be used makes the mail wait (exit 75,
    /// or the milter's 451) instead of passing with headers and the failure in the log.
    package var tempfailOnLibraryError: Bool = false

    package init() {}
}
