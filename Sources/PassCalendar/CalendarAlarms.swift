import WalletPass

/// When a calendar should remind of a pass's events: one `VALARM` (RFC 5545 §3.6.6) per event,
/// that lead time before its start, so Thunderbird, GNOME Calendar or an iPhone remind by
/// themselves. A lead time for every event, or each kind's own (`byKind`): a flight is a few
/// hours' notice (getting to the airport), a concert or a match the day before.
package struct CalendarAlarms: Sendable, Equatable {
    /// Seconds before the start, per kind of pass.
    package var boardingPass: Int
    package var eventTicket: Int
    /// Store cards, coupons and generic passes with a date.
    package var other: Int

    package static let byKind = CalendarAlarms(boardingPass: 3 * 3600, eventTicket: 24 * 3600, other: 3600)

    package static func fixed(_ seconds: Int) -> CalendarAlarms {
        CalendarAlarms(boardingPass: seconds, eventTicket: seconds, other: seconds)
    }

    package func lead(for kind: PassKind) -> Int {
        switch kind {
        case .boardingPass: return boardingPass
        case .eventTicket: return eventTicket
        default: return other
        }
    }

    /// `--alarm`'s value: "kind" for `byKind`, or one lead time for every event ("3h", "90m",
    /// "1d", "2h30m", "0m" for at the start). nil for anything else, or more than four weeks.
    package static func parse(_ text: String) -> CalendarAlarms? {
        if text == "kind" { return .byKind }
        return seconds(text).map(fixed)
    }

    /// A lead time written as numbers with units w, d, h, m (each at most once, in that order).
    package static func seconds(_ text: String) -> Int? {
        let units: [(Character, Int)] = [("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60)]
        var total = 0, digits = "", next = 0
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                guard digits.count <= 5 else { return nil }
                continue
            }
            guard !digits.isEmpty, let index = units[next...].firstIndex(where: { $0.0 == character }),
                  let value = Int(digits) else { return nil }
            total += value * units[index].1
            digits = ""
            next = index + 1
            guard next <= units.count else { return nil }
        }
        guard digits.isEmpty, !text.isEmpty, total <= 4 * 604_800 else { return nil }
        return total
    }

    /// The TRIGGER value for a lead time: "-PT3H", "-PT1H30M", "-P1D", "PT0S".
    package static func trigger(_ seconds: Int) -> String {
        guard seconds > 0 else { return "PT0S" }
        if seconds % 86_400 == 0 { return "-P\(seconds / 86_400)D" }
        var text = "-PT"
        let (hours, minutes, rest) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        if hours > 0 { text += "\(hours)H" }
        if minutes > 0 { text += "\(minutes)M" }
        if rest > 0 { text += "\(rest)S" }
        return text
    }
}
