import Foundation

/// IMF-fixdate (RFC 9110 §5.6.7) for If-Modified-Since, and the forms a server may send in
/// Retry-After (delta-seconds or an HTTP date).
package enum HTTPDate {
    private static func formatter(_ format: String) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = format
        return f
    }

    package static func parse(_ text: String) -> Date? {
        let t = text.trimmingCharacters(in: .whitespaces)
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            if let d = formatter(format).date(from: t) { return d }
        }
        return nil
    }

    /// Retry-After as an absolute time; nil when absent or unreadable. Capped at a week, so a
    /// hostile server cannot silence a pass forever.
    package static func retryAfter(_ text: String?, now: Date) -> Date? {
        guard let t = text?.trimmingCharacters(in: .whitespaces), !t.isEmpty else { return nil }
        let week: TimeInterval = 7 * 86_400
        if let seconds = Int(t), seconds >= 0 { return now.addingTimeInterval(min(TimeInterval(seconds), week)) }
        guard let date = parse(t) else { return nil }
        return min(max(date, now), now.addingTimeInterval(week))
    }
}
