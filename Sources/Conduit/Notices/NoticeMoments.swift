import Foundation
import WalletPass

/// The moments a reminder is made before (issue 43 item 2), chosen as `calendar` chooses a
/// pass's events: several `relevantDates` are one moment each (a season or multi-day pass);
/// otherwise the semantics' own time — for a boarding pass its departure
/// (`currentDepartureDate`, else `originalDepartureDate`), for any other its event's start
/// (`eventStartDate`) — which says when the thing happens, not when to look at the pass;
/// otherwise the one `relevantDates` entry, otherwise `relevantDate`.
package enum NoticeMoments {
    package static func moments(_ document: PassDocument, kind: String) -> [Date] {
        let semantics = document.semantics?.object ?? [:]
        func semantic(_ keys: [String]) -> Date? {
            for key in keys {
                if let text = semantics[key]?.string, let date = PassDate(text) { return date.date }
            }
            return nil
        }
        // A pass with 500 relevant dates costs one pass over them: only the next one reminds
        // (`NoticeRules.reminders`), so one reminder per date as each comes up, never 500 at once.
        let ranges = document.relevantDates.compactMap { $0.startDate?.date ?? $0.date?.date }
        if ranges.count > 1 { return ranges }
        let start = kind == "boardingPass" ? semantic(["currentDepartureDate", "originalDepartureDate"]) : semantic(["eventStartDate"])
        if let start { return [start] }
        if let only = ranges.first { return [only] }
        return document.relevantDate.map { [$0.date] } ?? []
    }
}
