import Foundation

/// Dates as passconduit writes them: ISO 8601 in UTC for programs, and a short local form for people.
package enum DateText {
    /// "2026-06-12T17:00:00Z"
    package static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// "Fri 12 Jun 2026, 19:00 CEST" in the given time zone (default: the user's).
    package static func human(_ date: Date, timeZone: TimeZone = .current) -> String {
        let text = formatters.string(date, format: "EEE d MMM yyyy, HH:mm zzz", timeZone: timeZone)
        // ICU names UTC "GMT" in en_GB; say what the user set.
        if timeZone.identifier == "GMT" || timeZone.identifier.hasSuffix("UTC"), text.hasSuffix(" GMT") {
            return text.dropLast(3) + "UTC"   // Foundation reports TZ=UTC as the identifier "GMT"
        }
        return text
    }

    /// "Sat 6 Mar 2027": a day written without a time (a date-only `relevantDate`), read as that
    /// calendar day in every time zone (it is parsed as midnight UTC).
    package static func day(_ date: Date) -> String {
        formatters.string(date, format: "EEE d MMM yyyy", timeZone: TimeZone(identifier: "UTC")!)
    }

    /// Making a DateFormatter costs far more than using one (the web wallet's pass list formats
    /// two dates for each of a thousand passes): one per format, time zone and locale, used under
    /// a lock, at most 512 kept (the web wallet asks in every viewer's zone).
    package static let formatters = Formatters()

    package final class Formatters: @unchecked Sendable {
        private let lock = NSLock()
        private var made: [String: DateFormatter] = [:]

        package func string(_ date: Date, format: String, timeZone: TimeZone, locale: String = "en_GB") -> String {
            let key = format + "|" + timeZone.identifier + "|" + locale
            return lock.withLock {
                let formatter: DateFormatter
                if let known = made[key], known.timeZone == timeZone {
                    formatter = known
                } else {
                    formatter = DateFormatter()
                    formatter.locale = Locale(identifier: locale)
                    formatter.timeZone = timeZone
                    formatter.dateFormat = format
                    if made.count >= 512 { made.removeAll(keepingCapacity: true) }
                    made[key] = formatter
                }
                return formatter.string(from: date)
            }
        }
    }

    /// Whether `date` is midnight UTC exactly: how a day without a time is stored (the library
    /// keeps the instant only), so a listing shows it as that day.
    package static func isMidnightUTC(_ date: Date) -> Bool {
        date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) == 0
    }
}
