import Foundation
import WalletPass

/// A point in time as a calendar writes it: a whole day (a pass date without a time), or an
/// instant with the UTC offset the pass wrote (nil: no zone written, read as UTC like Wallet).
package enum CalendarTime: Sendable, Equatable {
    case day(year: Int, month: Int, day: Int)
    case instant(Date, utcOffset: Int?)

    /// nil when the date lies outside the years an iCalendar DATE can hold (1-9999) in UTC or in
    /// its own zone.
    package init?(_ passDate: PassDate) {
        let isDayOnly = passDate.text.utf8.count == 10
        let offset = passDate.utcOffset ?? 0
        let utc = Self.parts(passDate.date, offset: 0)
        let local = Self.parts(passDate.date, offset: offset)
        guard (1...9999).contains(utc.year), (1...9999).contains(local.year) else { return nil }
        if isDayOnly {
            // "2026-06-12" parses as that day's midnight UTC: the written day.
            self = .day(year: utc.year, month: utc.month, day: utc.day)
        } else {
            // A zero offset is plain UTC ("Z"), not a zone of its own.
            self = .instant(passDate.date, utcOffset: passDate.utcOffset == 0 ? nil : passDate.utcOffset)
        }
    }

    var isDay: Bool { if case .day = self { return true }; return false }

    /// Seconds since 1970 (a day counts from its midnight UTC), to order start and end.
    var sortKey: Double {
        switch self {
        case .day(let y, let m, let d): return Double(Self.days(y, m, d) * 86_400)
        case .instant(let date, _): return date.timeIntervalSince1970.rounded(.down)
        }
    }

    /// The day after a `.day` (DTEND of a whole-day event is exclusive); self for an instant.
    var nextDay: CalendarTime {
        guard case .day(let y, let m, let d) = self else { return self }
        let p = Self.parts(Date(timeIntervalSince1970: Double((Self.days(y, m, d) + 1) * 86_400)), offset: 0)
        return .day(year: p.year, month: p.month, day: p.day)
    }

    /// "DTSTART;VALUE=DATE:20260612", "DTSTART:20260612T180000Z", "DTSTART;TZID=UTC+0200:20260612T200000".
    func property(_ name: String) -> String {
        switch self {
        case .day(let y, let m, let d):
            return "\(name);VALUE=DATE:\(Self.pad(y, 4))\(Self.pad(m, 2))\(Self.pad(d, 2))"
        case .instant(let date, let offset):
            if let offset {
                return "\(name);TZID=\(Self.zoneID(offset)):\(Self.stamp(date, offset: offset, utc: false))"
            }
            return "\(name):\(Self.stamp(date, offset: 0, utc: true))"
        }
    }

    var utcOffset: Int? { if case .instant(_, let o) = self { return o }; return nil }

    /// "UTC+0200", "UTC-0930": a TZID without characters that would need quoting.
    static func zoneID(_ offset: Int) -> String { "UTC" + offsetText(offset) }

    /// "+0200", "-0930" (RFC 5545 UTC-OFFSET; seconds when there are any).
    static func offsetText(_ offset: Int) -> String {
        let sign = offset < 0 ? "-" : "+"
        let a = abs(offset)
        let seconds = a % 60
        return sign + pad(a / 3600, 2) + pad(a % 3600 / 60, 2) + (seconds == 0 ? "" : pad(seconds, 2))
    }

    /// "20260612T180000Z" (utc) or the wall clock at `offset` without a suffix.
    static func stamp(_ date: Date, offset: Int, utc: Bool) -> String {
        let p = parts(date, offset: offset)
        return pad(p.year, 4) + pad(p.month, 2) + pad(p.day, 2) + "T" + pad(p.hour, 2) + pad(p.minute, 2)
            + pad(p.second, 2) + (utc ? "Z" : "")
    }

    static func parts(_ date: Date, offset: Int) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var t = time_t((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        return (Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1, Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec))
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    static func days(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        return era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
