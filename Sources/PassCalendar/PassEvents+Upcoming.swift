import Foundation
import Support
import WalletPass

extension PassEvents {
    /// One event per `upcomingPassInformation` entry (iOS 26) that has a date, after the pass's
    /// own events, by today's rules for dates: the entry's `dateInformation.date`, else its
    /// semantics' `eventStartDate`; the end from its semantics' `eventEndDate` (never guessed).
    /// A date whose time is all day, ignored, to be announced (TBA) or undetermined (TBD) is a
    /// whole-day event on that date in its own offset. An entry inherits nothing from the pass
    /// (WWDC25): its name, venue and notes are its own; only the pass's voided state and version
    /// apply. Its UID is the pass's identity and a digest of the entry's `identifier`, so it stays
    /// the same when entries are added, removed or reordered.
    static func upcomingEvents(of pass: PassInfo, sequence: Int, stamp: Date) -> (events: [PassEvent], skipped: [Skipped]) {
        let document = pass.document
        guard !document.upcomingPassInformation.isEmpty else { return ([], []) }
        let identity = Self.identity(document)
        var events: [PassEvent] = []
        var skipped: [Skipped] = []
        var usedIDs = Set<String>()
        for (n, entry) in document.upcomingPassInformation.enumerated() {
            let info = entry.dateInformation
            guard let written = info?.date ?? entry.semantics?.eventStartDate else { continue }  // TBD: no date yet
            let wholeDay = info.map { $0.date != nil && !$0.showsTime } ?? false
            let startDate = wholeDay ? Self.day(of: written) : written
            var endDate = entry.semantics?.eventEndDate
            if wholeDay, let e = endDate { endDate = Self.day(of: e) }
            guard let times = Self.times(startDate, endDate, skipped: &skipped) else { continue }
            let (start, end) = times

            // The identifier Apple requires to be unique; an entry without one (or a repeated
            // one) is known by its place in the list.
            var key = entry.identifier.map { "id\u{0}" + $0 } ?? "n\u{0}\(n)"
            if !usedIDs.insert(key).inserted { key = "n\u{0}\(n)"; usedIDs.insert(key) }
            let digest = Digest.hex(.sha256, Array(key.utf8)).prefix(16)
            let semantics = entry.semantics
            // Names, venues and fields through the pass's pass.strings, as the card shows them.
            let text = { (written: String?) in Self.trimmed(written.map(pass.localized)) }
            let summary = text(entry.name) ?? text(semantics?.eventName)
                ?? Self.summary(pass, semantics: document.semantics?.object ?? [:])
            var lines = ["\(pass.organizationName) — \(summary)"]
            for field in entry.additionalInfoFields {
                guard let value = text(field.value) else { continue }
                lines.append(text(field.label).map { "\($0): \(value)" } ?? value)
            }
            if info?.isUnannounced == true { lines.append("Time to be announced.") }
            if info?.isUndetermined == true { lines.append("Time not yet decided.") }
            if pass.voided { lines.append("This pass has been voided.") }
            let place = [semantics?.venueName, semantics?.venueRoom, semantics?.venueFullAddress].compactMap(text)
            let geo = semantics?.venueLocation.map { (latitude: $0.latitude, longitude: $0.longitude) }
            var location = place.isEmpty ? nil : place.joined(separator: ", ")
            if location == nil, let geo { location = String(format: "%.6f, %.6f", geo.latitude, geo.longitude) }
            events.append(PassEvent(uid: "\(identity)-u\(digest)@passconduit", start: start, end: end,
                                    summary: summary, description: lines.joined(separator: "\n"), location: location,
                                    geo: geo, cancelled: document.voided, sequence: sequence, stamp: stamp))
        }
        return (events, skipped)
    }

    /// The written date's day ("2026-06-12") in its own offset, which `CalendarTime` reads as a
    /// whole day.
    static func day(of date: PassDate) -> PassDate {
        let p = CalendarTime.parts(date.date, offset: date.utcOffset ?? 0)
        let text = CalendarTime.pad(p.year, 4) + "-" + CalendarTime.pad(p.month, 2) + "-" + CalendarTime.pad(p.day, 2)
        return PassDate(text) ?? date
    }

    static func trimmed(_ text: String?) -> String? {
        guard let s = text?.trimmingCharacters(in: .whitespacesAndNewlines), !s.isEmpty else { return nil }
        return s
    }
}
