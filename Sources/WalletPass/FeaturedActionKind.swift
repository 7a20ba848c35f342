/// The `type` of a featured action (iOS 27, [Doc:defining-the-metadata-of-your-wallet-pass]).
package enum FeaturedActionKind: String, CaseIterable, Sendable {
    case viewSchedule, watchTrailer, listenToMusic, call, place, addToBalance, order, shop
    case membershipBenefits, bookAppointment, bookCar, bookFlight, bookStay, viewOffersRewards

    /// The call to action, in English words derived from Apple's description of each type
    /// (Wallet's own wording is localized and not published).
    package var title: String {
        switch self {
        case .viewSchedule: return "View Schedule"
        case .watchTrailer: return "Watch Trailer"
        case .listenToMusic: return "Listen to Music"
        case .call: return "Call"
        case .place: return "Get Directions"
        case .addToBalance: return "Add to Balance"
        case .order: return "Order"
        case .shop: return "Shop"
        case .membershipBenefits: return "Membership Benefits"
        case .bookAppointment: return "Book Appointment"
        case .bookCar: return "Book a Car"
        case .bookFlight: return "Book a Flight"
        case .bookStay: return "Book a Stay"
        case .viewOffersRewards: return "Offers and Rewards"
        }
    }
}
