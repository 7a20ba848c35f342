import Foundation

/// When reminders come due and when notices may go out: pure rules, with the clock passed in.
package enum NoticeRules {
    /// Lead time of a reminder per pass style (`StoredPass.kind`: "boardingPass", "eventTicket",
    /// "coupon", "storeCard", "generic"); a style without one (or with 0) gets no reminder.
    package struct LeadTimes: Sendable, Equatable {
        package var byKind: [String: TimeInterval]

        package init(_ byKind: [String: TimeInterval]) { self.byKind = byKind }

        /// 3 hours before a boarding pass's time, 24 before an event's, 2 before a generic pass's;
        /// coupons and store cards get none (their date is rarely a moment to be somewhere).
        package static let `default` = LeadTimes(["boardingPass": 3 * 3600, "eventTicket": 24 * 3600, "generic": 2 * 3600])

        package func lead(for kind: String) -> TimeInterval? {
            guard let lead = byKind[kind], lead > 0 else { return nil }
            return lead
        }
    }

    /// The reminders due at `now`: one for each pass that is not voided, has a moment still
    /// ahead and a lead time for its style, once `now` is within that lead time of the next such
    /// moment. A pass's moments are `moments[pass.id]` (its departure, its event's start, its
    /// relevant dates: `NoticeMoments`), else its relevant date. The library records each once
    /// per (pass, event time), so asking again makes none twice; a time moved by an update is a
    /// new event time and reminds again. Only the next moment counts, however many a pass has.
    package static func reminders(_ passes: [StoredPass], moments: [PassID: [Date]] = [:], leadTimes: LeadTimes,
                                  now: Date) -> [NoticeDraft] {
        passes.compactMap { pass in
            guard !pass.voided, let lead = leadTimes.lead(for: pass.kind) else { return nil }
            if let expires = pass.expirationDate, expires <= now { return nil }
            let dates = moments[pass.id] ?? pass.relevantDate.map { [$0] } ?? []
            guard let event = dates.filter({ $0 > now }).min() else { return nil }
            let due = event.addingTimeInterval(-lead)
            guard now >= due else { return nil }
            return NoticeDraft(passID: pass.id, kind: .reminder, text: "", due: due, eventAt: event)
        }
    }

    /// Quiet hours as minutes after local midnight, `start` up to (not including) `end`; a span
    /// over midnight ("22:00-07:00") has `start > end`.
    package struct QuietHours: Sendable, Equatable {
        package var start: Int
        package var end: Int

        package init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }

        /// "HH:MM-HH:MM"; nil for anything else (or an empty span).
        package init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start != end else { return nil }
            self.init(start: start, end: end)
        }

        static func minutes(_ text: Substring) -> Int? {
            let hm = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
            guard hm.count == 2, hm[0].count <= 2, hm[1].count == 2,
                  let h = Int(hm[0]), let m = Int(hm[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
            return h * 60 + m
        }

        /// Whether `date` falls in the quiet hours, read on `calendar`'s clock (its time zone).
        package func contains(_ date: Date, calendar: Calendar) -> Bool {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
            return start < end ? (minute >= start && minute < end) : (minute >= start || minute < end)
        }
    }

    /// How long after it was made a notice may still go out: one held longer (notices switched
    /// on after months, a mail system down for days) is old news and is not sent.
    package static let maxAge: TimeInterval = 3 * 24 * 3600
}
