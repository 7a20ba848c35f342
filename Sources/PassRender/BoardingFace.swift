import Foundation
import WalletPass

/// What a semantic boarding pass (iOS 26, `preferredStyleSchemes` `semanticBoardingPass`) shows,
/// from its semantics ([W25] 8:44-14:56): the flight number and the day in the header, each
/// airport's code, city and time, the boarding time on its own, gate, terminal, seat, zone and
/// group, the passenger with up to two rows of badges. Wallet moves the times when Apple's flight
/// service says the flight moved; offline, the card shows the times the airline wrote, and says so.
package struct BoardingFace: Sendable, Equatable {
    package struct Airport: Sendable, Equatable {
        package var code: String
        package var city: String
        /// "17:00" in the airport's own zone.
        package var time: String?
    }

    package var flight: String
    package var day: String?
    package var departure: Airport
    package var destination: Airport
    package var boardingTime: String?
    /// Gate, terminal, seat, zone, group: those present.
    package var cells: [FieldCell]
    package var passenger: String?
    /// Fare class, status, security programs, documents verified, SSRs: at most two rows' worth.
    package var badges: [String]
    package static let offlineNote = "Times as the airline issued them: Wallet's live flight updates need Apple's flight service."
    static let maxBadges = 8

    init(info: PassInfo) {
        let s = info.document.semanticTags
        func nonBlank(_ v: String?) -> String? { v.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 } }
        flight = FieldCell.cut([nonBlank(s?.airlineCode), nonBlank(s?.flightNumber)].compactMap { $0 }.joined(separator: " "), to: 20)
        let departureDate = s?.currentDepartureDate ?? s?.originalDepartureDate
        let departureZone = s?.departureTimeZone.flatMap(TimeZone.init(identifier:))
        let arrivalZone = s?.destinationTimeZone.flatMap(TimeZone.init(identifier:))
        day = departureDate.map { Self.format($0.date, zone: departureZone, "EEE d MMM yyyy") }
        departure = Airport(code: FieldCell.cut(s?.departureAirportCode ?? "", to: 8), city: FieldCell.cut(s?.departureCityName ?? "", to: 40),
                            time: departureDate.map { Self.format($0.date, zone: departureZone, "HH:mm") })
        let arrival = s?.currentArrivalDate ?? s?.originalArrivalDate
        destination = Airport(code: FieldCell.cut(s?.destinationAirportCode ?? "", to: 8), city: FieldCell.cut(s?.destinationCityName ?? "", to: 40),
                              time: arrival.map { Self.format($0.date, zone: arrivalZone, "HH:mm") })
        boardingTime = (s?.currentBoardingDate ?? s?.originalBoardingDate).map { Self.format($0.date, zone: departureZone, "HH:mm") }
        let seat = s?.seats.first.map { [$0.row, $0.number].compactMap { $0 }.joined() }
        let elements: [(String, String?)] = [("GATE", nonBlank(s?.departureGate)), ("TERMINAL", nonBlank(s?.departureTerminal)),
                                             ("SEAT", nonBlank(seat)), ("ZONE", nonBlank(s?.boardingZone)), ("GROUP", nonBlank(s?.boardingGroup))]
        cells = elements.compactMap { label, value in value.map { FieldCell(label: label, value: FieldCell.cut($0, to: 20), alignment: .natural) } }
        passenger = nonBlank(s?.passengerName?.text).map { FieldCell.cut($0, to: 80) }
        var badges: [String] = []
        if let fare = nonBlank(s?.ticketFareClass) { badges.append(fare) }
        if let status = nonBlank(s?.membershipProgramStatus) { badges.append(status) }
        for program in s?.passengerEligibleSecurityPrograms ?? [] { badges.append(Self.programName(program)) }
        if s?.internationalDocumentsAreVerified == true {
            badges.append(nonBlank(s?.internationalDocumentsVerifiedDeclarationName) ?? "Documents verified")
        }
        badges += (s?.passengerServiceSSRs ?? []) + (s?.passengerInformationSSRs ?? []) + (s?.passengerAirlineSSRs ?? [])
        var seen: [String] = []
        for b in badges.map({ FieldCell.cut($0, to: 24) }) where !seen.contains(b) && !b.isEmpty { seen.append(b) }
        self.badges = Array(seen.prefix(Self.maxBadges))
    }

    /// "PKTransitSecurityProgramTSAPreCheck" -> "TSA PreCheck".
    static func programName(_ raw: String) -> String {
        let names = ["PKTransitSecurityProgramTSAPreCheck": "TSA PreCheck",
                     "PKTransitSecurityProgramTSAPreCheckTouchlessID": "TSA PreCheck Touchless ID",
                     "PKTransitSecurityProgramOSS": "One-Stop Security", "PKTransitSecurityProgramITI": "ITI",
                     "PKTransitSecurityProgramITD": "ITD", "PKTransitSecurityProgramGlobalEntry": "Global Entry",
                     "PKTransitSecurityProgramCLEAR": "CLEAR"]
        return names[raw] ?? raw
    }

    static func format(_ date: Date, zone: TimeZone?, _ pattern: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_GB")
        f.timeZone = zone ?? TimeZone(identifier: "UTC")
        f.dateFormat = pattern
        return f.string(from: date)
    }
}
