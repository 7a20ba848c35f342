/// The status an offer is staged with, as its rows spell it ("valid", "untrusted"): the filter
/// stages a pass whose signer may be unknown, never an invalid or unsigned one (the offer table's
/// CHECK allows only these two).
package enum OfferStatus: String, Sendable, Equatable, CaseIterable {
    case valid
    case untrusted
}
