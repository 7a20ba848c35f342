import Foundation
import WalletPass

/// What the library's order needs from pass.json beyond the stored columns: the pass's group
/// (`groupingIdentifier`: a trip, an order) and every moment it is about (relevant dates, the
/// event's start and end, departure and arrival times from `semantics`).
package struct PassTimes: Sendable, Equatable {
    package var groupingIdentifier: String?
    package var dates: [Date]

    package init(groupingIdentifier: String? = nil, dates: [Date] = []) {
        self.groupingIdentifier = groupingIdentifier
        self.dates = dates.sorted()
    }

    /// The semantics keys that name a moment of the pass (Apple's semantic tags).
    static let semanticDateKeys = [
        "eventStartDate", "eventEndDate", "originalDepartureDate", "currentDepartureDate",
        "originalBoardingDate", "currentBoardingDate", "originalArrivalDate", "currentArrivalDate",
    ]

    package init(_ document: PassDocument) {
        var dates: [Date] = []
        if let d = document.relevantDate { dates.append(d.date) }
        for r in document.relevantDates {
            for d in [r.date, r.startDate, r.endDate] { if let d { dates.append(d.date) } }
        }
        if let semantics = document.semantics?.object {
            for key in Self.semanticDateKeys {
                if let text = semantics[key]?.text, let d = PassDate(text) { dates.append(d.date) }
            }
        }
        let group = document.groupingIdentifier.flatMap { $0.isEmpty ? nil : $0 }
        self.init(groupingIdentifier: group, dates: dates)
    }
}
