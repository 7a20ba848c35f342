/// The pass style: exactly one of these keys holds the pass's fields.
package enum PassKind: String, Sendable, CaseIterable, Equatable {
    // Declaration order is the order readers look for the style key (KPkPass does the same).
    // iOS 27's `posterGeneric` comes last: a pass that also carries a classic style (as Apple asks,
    // for devices before iOS 27) keeps that classic style as its kind (what older devices show),
    // and is drawn as a poster generic pass, as Wallet 27 does (`SchemeChoice`); a pass with only
    // `posterGeneric` is a valid pass of its own style (Wallet 27 opens it).
    case boardingPass, coupon, eventTicket, generic, storeCard, posterGeneric

    /// What a person calls it.
    package var name: String {
        switch self {
        case .boardingPass: return "Boarding Pass"
        case .coupon: return "Coupon"
        case .eventTicket: return "Event Ticket"
        case .generic: return "Pass"
        case .storeCard: return "Store Card"
        case .posterGeneric: return "Poster Pass"
        }
    }
}
