import Foundation
import PassStore
import WalletPass

/// A library's passes as one calendar: what `passconduit calendar` writes and what the web
/// wallet's subscription (`/calendar/SECRET.ics`) serves, from this one code path.
package enum LibraryCalendar {
    /// The calendar and what a person should hear about it.
    package struct Result: Sendable {
        /// The iCalendar text (RFC 5545, CRLF line ends).
        package var text: String
        package var eventCount: Int
        /// Passes that could not be read and dates that could not be used, in pass order.
        package var warnings: [String]
        /// The names of named passes that have no date at all.
        package var dateless: [String]
    }

    /// The events of `passes` (each with the name the user gave it, if any), each pass's stored
    /// bytes opened with `opener`; with `alarms`, each event reminds that long before it.
    package static func write(_ passes: [(name: String?, pass: StoredPass)], library: any PassLibraryBackend,
                              opener: PassOpener, alarms: CalendarAlarms? = nil) async throws -> Result {
        var events: [PassEvent] = []
        var warnings: [String] = []
        var dateless: [String] = []
        for (name, stored) in passes {
            let bytes = try await library.export(stored.id)
            guard let info = opener.open(bytes).pass else {
                warnings.append("\(name ?? stored.id.description): cannot read the pass's contents; it has no events")
                continue
            }
            var result = PassEvents.events(of: info, sequence: stored.previousVersions, stamp: stored.updatedAt)
            if let alarms {
                for i in result.events.indices { result.events[i].alarm = alarms.lead(for: info.kind) }
            }
            for skipped in result.skipped {
                warnings.append("\(name ?? stored.id.description): the date \(skipped.date.debugDescription) \(skipped.reason)")
            }
            if result.upcomingLeftOut > 0 {
                let total = result.upcomingLeftOut + info.document.upcomingPassInformation.count
                warnings.append("\(name ?? stored.id.description): \(result.upcomingLeftOut) of its \(total) upcoming events are left out (the first \(info.document.upcomingPassInformation.count) are written)")
            }
            if result.events.isEmpty, let name { dateless.append(name) }
            events += result.events
        }
        return Result(text: CalendarWriter.write(events), eventCount: events.count, warnings: warnings, dateless: dateless)
    }

    /// Every pass of `library` that has a date (the calendar of `passconduit calendar` without IDs).
    package static func write(library: any PassLibraryBackend, opener: PassOpener, alarms: CalendarAlarms? = nil) async throws -> Result {
        try await write(try await library.passes().map { (nil, $0) }, library: library, opener: opener, alarms: alarms)
    }
}
