import Foundation

/// Turns a field as written into the field as shown: labels, values and messages looked up in the
/// chosen `pass.strings`, dates formatted when `dateStyle`/`timeStyle` ask for it (in the device's
/// time zone, or in the zone the date was written in when the field sets `ignoresTimeZone`), numbers
/// with their currency or number style. No Foundation formatters: opening a pass must stay far
/// below a millisecond.
enum FieldRenderer {
    /// `deviceZone` is evaluated only for a date field shown in the device's zone: the first
    /// `TimeZone.current` costs ~1.6 M instructions (issue 14), most passes have no such field.
    static func render(_ field: PassField, localize: (String) -> String,
                       deviceZone: @autoclosure () -> TimeZone = .current, shown: PassOpener.ShownZone? = nil) -> PassField {
        var f = field
        f.label = field.label.map(localize)
        f.changeMessage = field.changeMessage.map(localize)
        f.attributedValue = field.attributedValue.map(localize)
        switch field.rawValue {
        case .string(let s):
            if isStyled(field.dateStyle) || isStyled(field.timeStyle), var date = PassDate(s) {
                // Wallet shows a date in the device's zone unless the field sets ignoresTimeZone
                // (research/pkpass-format.md); a date written without a zone stays as written.
                var named = ""
                if let shown, !field.ignoresTimeZone, let written = date.utcOffset {
                    // The viewer's zone (or the pass's own offset), named after a time without one.
                    let offset = shown.zone?.secondsFromGMT(for: date.date) ?? written
                    date.utcOffset = offset
                    if isStyled(field.timeStyle), field.timeStyle != "PKDateStyleLong", field.timeStyle != "PKDateStyleFull" {
                        named = " " + shown.name(date.date, offset)
                    }
                } else if !field.ignoresTimeZone, date.utcOffset != nil { date.utcOffset = deviceZone().secondsFromGMT(for: date.date) }
                f.value = format(date, dateStyle: field.dateStyle, timeStyle: field.timeStyle) + named
            } else {
                f.value = localize(s)
            }
        case .number(let n):
            f.value = format(n, currencyCode: field.currencyCode, numberStyle: field.numberStyle)
        default:
            f.value = field.rawValue.text ?? ""
        }
        return f
    }

    private static func isStyled(_ style: String?) -> Bool {
        guard let style else { return false }
        return style != "PKDateStyleNone"
    }

    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August",
                                 "September", "October", "November", "December"]

    private static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    private static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// Short "2026-06-12", medium "12 Jun 2026", long "12 June 2026", full with its weekday ("Friday,
    /// 12 June 2026", as Wallet shows it); time "20:00", long/full adds the zone ("20:00 +02:00").
    static func format(_ d: PassDate, dateStyle: String?, timeStyle: String?) -> String {
        let p = d.localParts
        var parts: [String] = []
        switch dateStyle {
        case "PKDateStyleShort": parts.append("\(p.year)-\(two(p.month))-\(two(p.day))")
        case "PKDateStyleMedium": parts.append("\(p.day) \(months[p.month - 1].prefix(3)) \(p.year)")
        case "PKDateStyleLong": parts.append("\(p.day) \(months[p.month - 1]) \(p.year)")
        case "PKDateStyleFull": parts.append("\(weekdays[d.weekday]), \(p.day) \(months[p.month - 1]) \(p.year)")
        default: break
        }
        switch timeStyle {
        case "PKDateStyleShort", "PKDateStyleMedium": parts.append("\(two(p.hour)):\(two(p.minute))")
        case "PKDateStyleLong", "PKDateStyleFull":
            let zone = d.zoneText
            parts.append("\(two(p.hour)):\(two(p.minute))" + (zone.isEmpty ? "" : " \(zone)"))
        default: break
        }
        return parts.isEmpty ? d.text : parts.joined(separator: ", ")
    }

    static func format(_ n: Double, currencyCode: String?, numberStyle: String?) -> String {
        if let currencyCode, !currencyCode.isEmpty {
            let zeroDecimal: Set<String> = ["JPY", "KRW", "CLP", "ISK", "VND", "HUF", "TWD", "UGX"]
            return (zeroDecimal.contains(currencyCode.uppercased()) ? decimals(n, 0) : decimals(n, 2)) + " " + currencyCode
        }
        switch numberStyle {
        case "PKNumberStylePercent": return JSONValue.format((n * 100 * 1e6).rounded() / 1e6) + "%"
        case "PKNumberStyleSpellOut": return spellOut(n) ?? JSONValue.format(n)
        case "PKNumberStyleScientific":
            guard n != 0, n.isFinite else { return JSONValue.format(n) }
            let exponent = Int((log10Approx(abs(n))).rounded(.down))
            return JSONValue.format((n / pow10(exponent) * 1e6).rounded() / 1e6) + "E\(exponent)"
        default: return JSONValue.format(n)
        }
    }

    private static let ones = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                               "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    private static let scales: [(Int64, String)] = [(1_000_000_000_000, "trillion"), (1_000_000_000, "billion"),
                                                    (1_000_000, "million"), (1_000, "thousand")]

    /// `PKNumberStyleSpellOut` in English words, as NumberFormatter's `.spellOut` writes them for
    /// "en": 200 "two hundred", 1234 "one thousand two hundred thirty-four", -3.25 "minus three point
    /// two five". nil past a quadrillion or for a number that is not finite (shown as digits).
    static func spellOut(_ n: Double) -> String? {
        guard n.isFinite, abs(n) < 1e15 else { return nil }
        let text = JSONValue.format(abs(n))
        let pieces = text.split(separator: ".", maxSplits: 1)
        guard let whole = Int64(pieces[0]) else { return nil }
        var words = (n < 0 ? "minus " : "") + integerWords(whole)
        if pieces.count == 2 {
            words += " point " + pieces[1].compactMap { $0.wholeNumberValue.map { ones[$0] } }.joined(separator: " ")
        }
        return words
    }

    private static func integerWords(_ n: Int64) -> String {
        if n < 20 { return ones[Int(n)] }
        if n < 100 { return tens[Int(n / 10)] + (n % 10 == 0 ? "" : "-" + ones[Int(n % 10)]) }
        if n < 1000 { return ones[Int(n / 100)] + " hundred" + (n % 100 == 0 ? "" : " " + integerWords(n % 100)) }
        for (scale, name) in scales where n >= scale {
            return integerWords(n / scale) + " " + name + (n % scale == 0 ? "" : " " + integerWords(n % scale))
        }
        return String(n)
    }

    private static func decimals(_ n: Double, _ places: Int) -> String {
        guard n.isFinite, abs(n) < 1e15 else { return JSONValue.format(n) }
        let scale = places == 0 ? 1.0 : 100.0
        let cents = Int64((abs(n) * scale).rounded())
        let sign = n < 0 && cents != 0 ? "-" : ""
        if places == 0 { return sign + String(cents) }
        let fraction = cents % 100
        return sign + String(cents / 100) + "." + (fraction < 10 ? "0" : "") + String(fraction)
    }

    private static func pow10(_ e: Int) -> Double {
        var r = 1.0
        if e >= 0 { for _ in 0..<min(e, 308) { r *= 10 } } else { for _ in 0..<min(-e, 308) { r /= 10 } }
        return r
    }

    private static func log10Approx(_ x: Double) -> Double {
        var e = 0.0
        var v = x
        while v >= 10 { v /= 10; e += 1 }
        while v < 1 { v *= 10; e -= 1 }
        return e
    }
}
