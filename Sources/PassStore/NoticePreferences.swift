import Foundation

/// A library's own choice about notices (issue 43 item 2: opt-in per library, lead times set on
/// the web Settings page), kept in the library itself, so every host that sends for it reads the
/// same. Each nil is "as this host's `[notices]` config says".
package struct NoticePreferences: Sendable, Equatable {
    /// Whether this library's owner is sent notices; nil: the host's default.
    package var enabled: Bool?
    /// Minutes before a boarding pass's departure, an event ticket's start, and any other pass's
    /// date (generic passes, coupons, store cards) that its reminder comes; 0: no reminder.
    package var boardingPassMinutes: Int?
    package var eventTicketMinutes: Int?
    package var otherMinutes: Int?

    package init(enabled: Bool? = nil, boardingPassMinutes: Int? = nil, eventTicketMinutes: Int? = nil, otherMinutes: Int? = nil) {
        self.enabled = enabled
        self.boardingPassMinutes = boardingPassMinutes
        self.eventTicketMinutes = eventTicketMinutes
        self.otherMinutes = otherMinutes
    }

    /// The longest lead time a library may set: two weeks (as the config's `*-lead-minutes`).
    package static let maxMinutes = 20_160

    /// Whether every lead time is within 0...`maxMinutes` (what the backends store).
    package var isValid: Bool {
        [boardingPassMinutes, eventTicketMinutes, otherMinutes].allSatisfy { $0.map { (0...Self.maxMinutes).contains($0) } ?? true }
    }

    /// The pass styles "other" stands for.
    package static let otherKinds = ["generic", "coupon", "storeCard"]

    /// `base` (the host's lead times) with this library's own put over it.
    package func leadTimes(over base: NoticeRules.LeadTimes) -> NoticeRules.LeadTimes {
        var times = base
        if let minutes = boardingPassMinutes { times.byKind["boardingPass"] = Double(minutes) * 60 }
        if let minutes = eventTicketMinutes { times.byKind["eventTicket"] = Double(minutes) * 60 }
        if let minutes = otherMinutes {
            for kind in Self.otherKinds { times.byKind[kind] = Double(minutes) * 60 }
        }
        return times
    }
}
