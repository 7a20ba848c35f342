import Foundation

/// A W3C/ISO 8601 date as passes write it ("2012-07-22T14:25-08:00", "2026-06-12T20:00:00Z",
/// "2026-06-12"), with the UTC offset it was written in, so it can be shown in that time zone.
package struct PassDate: Sendable, Equatable {
    package var date: Date
    /// Seconds east of UTC as written; nil when the string had no zone (read as UTC).
    package var utcOffset: Int?
    package var text: String

    /// Parses the forms passes use; nil for anything else. Reads bytes, not a formatter (hot path).
    package init?(_ text: String) {
        let b = Array(text.utf8)
        var p = 0
        func number(_ digits: Int) -> Int? {
            guard p + digits <= b.count else { return nil }
            var v = 0
            for i in 0..<digits {
                let c = b[p + i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            p += digits
            return v
        }
        func skip(_ c: UInt8) -> Bool {
            if p < b.count, b[p] == c { p += 1; return true }
            return false
        }
        guard let year = number(4), skip(0x2D), let month = number(2), skip(0x2D), let day = number(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        var offset: Int? = nil
        if p < b.count, b[p] == UInt8(ascii: "T") || b[p] == UInt8(ascii: " ") {
            p += 1
            guard let h = number(2), skip(0x3A), let m = number(2), h <= 24, m <= 59 else { return nil }
            hour = h
            minute = m
            if skip(0x3A) {
                guard let s = number(2), s <= 60 else { return nil }
                second = s
                if skip(0x2E) || skip(0x2C) {
                    var scale = 0.1
                    while p < b.count, b[p] >= 0x30, b[p] <= 0x39 {
                        fraction += Double(b[p] - 0x30) * scale
                        scale /= 10
                        p += 1
                    }
                }
            }
            if skip(UInt8(ascii: "Z")) {
                offset = 0
            } else if p < b.count, b[p] == UInt8(ascii: "+") || b[p] == UInt8(ascii: "-") {
                let sign = b[p] == UInt8(ascii: "-") ? -1 : 1
                p += 1
                guard let oh = number(2), oh <= 18 else { return nil }
                _ = skip(0x3A)
                let om = number(2) ?? 0
                offset = sign * (oh * 3600 + om * 60)
            }
        }
        guard p == b.count else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), so no Calendar is needed.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - (offset ?? 0)) + fraction
        self.date = Date(timeIntervalSince1970: seconds)
        self.utcOffset = offset
        self.text = text
    }

    /// The wall-clock parts in the written zone (UTC if none).
    var localParts: (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        var t = time_t((date.timeIntervalSince1970 + Double(utcOffset ?? 0)).rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
    }

    /// The day of the week in the written zone (UTC if none): 0 is Sunday.
    var weekday: Int {
        var t = time_t((date.timeIntervalSince1970 + Double(utcOffset ?? 0)).rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        return Int(parts.tm_wday)
    }

    /// "+02:00", "Z"-zones as "UTC", nothing when no zone was written.
    var zoneText: String {
        guard let utcOffset else { return "" }
        if utcOffset == 0 { return "UTC" }
        let sign = utcOffset < 0 ? "-" : "+"
        let a = abs(utcOffset)
        return String(format: "%@%02d:%02d", sign, a / 3600, a % 3600 / 60)
    }
}
