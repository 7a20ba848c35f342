import Foundation

/// A VCALENDAR (RFC 5545) of pass events. Times carry the UTC offset the pass wrote them in:
/// a pass states an offset, not a zone with rules, so each offset gets a VTIMEZONE of that fixed
/// offset (TZID "UTC+0200") and the calendar shows the wall clock the pass shows; times without
/// a zone, or at offset zero, are written in UTC; dates without a time are whole-day events.
package enum CalendarWriter {
    package static let productID = "-//passconduit//Wallet passes//EN"

    package static func write(_ events: [PassEvent]) -> String {
        var out = ""
        func line(_ text: String) { out += ContentLine.fold(text) }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:\(productID)")
        line("CALSCALE:GREGORIAN")
        line("METHOD:PUBLISH")
        let offsets = Set(events.flatMap { [$0.start.utcOffset, $0.end?.utcOffset].compactMap { $0 } })
        for offset in offsets.sorted() {
            line("BEGIN:VTIMEZONE")
            line("TZID:\(CalendarTime.zoneID(offset))")
            line("BEGIN:STANDARD")
            line("DTSTART:19700101T000000")
            line("TZOFFSETFROM:\(CalendarTime.offsetText(offset))")
            line("TZOFFSETTO:\(CalendarTime.offsetText(offset))")
            line("TZNAME:\(CalendarTime.zoneID(offset))")
            line("END:STANDARD")
            line("END:VTIMEZONE")
        }
        for event in events {
            line("BEGIN:VEVENT")
            line("UID:\(ContentLine.escape(event.uid))")
            line("DTSTAMP:\(CalendarTime.stamp(event.stamp, offset: 0, utc: true))")
            line("SEQUENCE:\(max(0, event.sequence))")
            line(event.start.property("DTSTART"))
            if let end = event.end { line(end.property("DTEND")) }
            line("SUMMARY:\(ContentLine.escape(event.summary))")
            line("DESCRIPTION:\(ContentLine.escape(event.description))")
            if let location = event.location { line("LOCATION:\(ContentLine.escape(location))") }
            if let geo = event.geo { line(String(format: "GEO:%.6f;%.6f", geo.latitude, geo.longitude)) }
            if event.cancelled { line("STATUS:CANCELLED") }
            line("TRANSP:\(event.start.isDay ? "TRANSPARENT" : "OPAQUE")")
            // No reminder of a cancelled event (a voided pass).
            if let alarm = event.alarm, !event.cancelled {
                line("BEGIN:VALARM")
                line("ACTION:DISPLAY")
                line("DESCRIPTION:\(ContentLine.escape(event.summary))")
                line("TRIGGER:\(CalendarAlarms.trigger(alarm))")
                line("END:VALARM")
            }
            line("END:VEVENT")
        }
        line("END:VCALENDAR")
        return out
    }
}
