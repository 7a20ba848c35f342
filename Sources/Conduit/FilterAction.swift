/// The library effect of one pass found by the filter.
package enum FilterAction: String, Sendable, Equatable {
    /// Nothing was done (already present, older, not valid, or no library).
    case none
    /// Staged as an offer awaiting the user's consent (`passconduit offers`).
    case offered
    /// A newer version of a pass in the library replaced it.
    case updated
    /// A library write was attempted and failed; the message still passes.
    case failed
}
