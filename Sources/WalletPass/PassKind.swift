/// The pass style: exactly one of these keys holds the pass's fields.
package enum PassKind: String, Sendable, CaseIterable, Equatable {
    // Declaration order is the order readers look for the style key (KPkPass does the same).
    case boardingPass, coupon, eventTicket, generic, storeCard

    /// What a person calls it.
    package var name: String {
        switch self {
        case .boardingPass: return "Boarding Pass"
        case .coupon: return "Coupon"
        case .eventTicket: return "Event Ticket"
        case .generic: return "Pass"
        case .storeCard: return "Store Card"
        }
    }
}
