/// The URL and contact keys Wallet shows below a pass (pass.json top level, and an upcoming
/// entry's `URLs`): the iOS 18 event guide of poster event tickets, the ticket menu beside Share,
/// and the iOS 26 airline services of semantic boarding passes ([Doc:pass]; research note
/// wallet-2026.md §1). Declaration order is the order they are listed in.
package enum PassLinkKey: String, CaseIterable, Sendable {
    // Event guide (iOS 18)
    case directionsInformationURL, parkingInformationURL, purchaseParkingURL, transitInformationURL
    case orderFoodURL, merchandiseURL, bagPolicyURL, accessibilityURL, addOnURL
    case contactVenueWebsite, contactVenueEmail, contactVenuePhoneNumber
    // Ticket menu (iOS 18)
    case transferURL, sellURL
    // Airline services (iOS 26)
    case managementURL, changeSeatURL, upgradeURL, purchaseAdditionalBaggageURL, trackBagsURL, reportLostBagURL
    case purchaseLoungeAccessURL, purchaseWifiURL, entertainmentURL
    case requestWheelchairURL, registerServiceAnimalURL
    case transitProviderWebsiteURL, transitProviderEmail, transitProviderPhoneNumber

    /// What the value is: a web address, an e-mail address or a phone number.
    package enum Kind: Sendable { case web, email, phone }

    /// Where Wallet puts it.
    package enum Section: Sendable { case eventGuide, ticketMenu, airlineServices }

    package var kind: Kind {
        switch self {
        case .contactVenueEmail, .transitProviderEmail: return .email
        case .contactVenuePhoneNumber, .transitProviderPhoneNumber: return .phone
        default: return .web
        }
    }

    package var section: Section {
        switch self {
        case .directionsInformationURL, .parkingInformationURL, .purchaseParkingURL, .transitInformationURL,
             .orderFoodURL, .merchandiseURL, .bagPolicyURL, .accessibilityURL, .addOnURL,
             .contactVenueWebsite, .contactVenueEmail, .contactVenuePhoneNumber:
            return .eventGuide
        case .transferURL, .sellURL: return .ticketMenu
        default: return .airlineServices
        }
    }

    /// A short English title (Wallet's own wording is localized and not published).
    package var title: String {
        switch self {
        case .directionsInformationURL: return "Directions"
        case .parkingInformationURL: return "Parking"
        case .purchaseParkingURL: return "Buy Parking"
        case .transitInformationURL: return "Transit"
        case .orderFoodURL: return "Order Food"
        case .merchandiseURL: return "Merchandise"
        case .bagPolicyURL: return "Bag Policy"
        case .accessibilityURL: return "Accessibility"
        case .addOnURL: return "Add-ons"
        case .contactVenueWebsite: return "Venue Website"
        case .contactVenueEmail: return "Email Venue"
        case .contactVenuePhoneNumber: return "Call Venue"
        case .transferURL: return "Transfer Ticket"
        case .sellURL: return "Sell Ticket"
        case .managementURL: return "Manage Booking"
        case .changeSeatURL: return "Change Seat"
        case .upgradeURL: return "Upgrade"
        case .purchaseAdditionalBaggageURL: return "Add Bags"
        case .trackBagsURL: return "Track Bags"
        case .reportLostBagURL: return "Report Lost Bag"
        case .purchaseLoungeAccessURL: return "Lounge Access"
        case .purchaseWifiURL: return "Wi-Fi"
        case .entertainmentURL: return "Entertainment"
        case .requestWheelchairURL: return "Request Wheelchair"
        case .registerServiceAnimalURL: return "Service Animal"
        case .transitProviderWebsiteURL: return "Airline Website"
        case .transitProviderEmail: return "Email Airline"
        case .transitProviderPhoneNumber: return "Call Airline"
        }
    }
}
