import Conduit
import PassStore
import WalletPass

/// Accepting or declining a staged offer, by the same intake policy and consent rules as
/// `add --offer` and `offers --decline`: the offer page's buttons and `/api/v1/offers/{n}/…`.
enum OfferDecision {
    case declined
    /// The intake policy refused it (the sentence says why); the offer stays.
    case refused(String)
    /// The library already holds this pass; the offer is gone.
    case already
    case added(StoredPass)
    case updated(StoredPass)
    /// Another request accepted or declined it first (two windows, a double tap): nothing more was done.
    case settled

    /// The decision; `.settled` when the offer was settled by another request while this one
    /// worked on it (the library then refuses the write: the offer is no longer pending).
    static func decide(_ offer: Offer, accept: Bool, library: any PassLibraryBackend, opener: PassOpener) async throws -> OfferDecision {
        do {
            return try await decideOnce(offer, accept: accept, library: library, opener: opener)
        } catch let error as LibraryError where error.kind != .busy && error.kind != .unavailable {
            guard try await library.offer(offer.offerID) == nil else { throw error }
            return .settled
        }
    }

    private static func decideOnce(_ offer: Offer, accept: Bool, library: any PassLibraryBackend, opener: PassOpener) async throws -> OfferDecision {
        guard accept else {
            try await library.declineOffer(offer.offerID)
            return .declined
        }
        let bytes = try await library.offerBytes(offer.offerID)
        let verdict = opener.open(bytes)
        let record = PassRecordMapping.record(offer: offer, verdict: verdict, bytes: bytes).record
        let taking = PassTaking(library: library, intake: Intake(.user(allowUntrusted: false)))
        let plan = try await taking.plan(verdict, record: record)
        if case .refuse(_, let message, _) = plan.decision { return .refused(WebWords.forPeople(message)) }
        switch try await taking.take(plan, offerID: offer.offerID) {
        case .refused: return .refused("The offer cannot be read.")
        case .already: return .already
        case .added(let stored): return .added(stored)
        case .updated(_, let stored):
            guard let stored else { return .already }
            return .updated(stored)
        }
    }
}
