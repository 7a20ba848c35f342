import Foundation
import WalletPass

/// One calendar event of a pass: a relevant date (or the event or flight times its semantics give)
/// with what a calendar shows about it.
package struct PassEvent: Sendable, Equatable {
    package var uid: String
    package var start: CalendarTime
    /// nil when the pass gives no end: no end time is ever guessed.
    package var end: CalendarTime?
    package var summary: String
    package var description: String
    package var location: String?
    package var geo: (latitude: Double, longitude: Double)?
    package var cancelled: Bool
    /// The pass's version: a re-export after an update carries a higher number, so calendars update.
    package var sequence: Int
    /// When the pass last changed (DTSTAMP).
    package var stamp: Date
    /// Seconds before the start at which a calendar reminds (a VALARM); nil: no reminder.
    package var alarm: Int? = nil

    package static func == (a: PassEvent, b: PassEvent) -> Bool {
        a.uid == b.uid && a.start == b.start && a.end == b.end && a.summary == b.summary
            && a.description == b.description && a.location == b.location && a.geo?.latitude == b.geo?.latitude
            && a.geo?.longitude == b.geo?.longitude && a.cancelled == b.cancelled && a.sequence == b.sequence
            && a.stamp == b.stamp && a.alarm == b.alarm
    }
}
