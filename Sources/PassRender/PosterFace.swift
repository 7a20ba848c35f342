import Foundation
import WalletPass

/// What a poster event ticket (iOS 18, `preferredStyleSchemes` `posterEventTicket`) shows on its
/// face, from the semantics rather than the classic field rows ([W24] 11:43-13:17,
/// [Doc:defining-the-metadata-of-your-wallet-pass]): full-bleed artwork; at the top the
/// `eventLogoText` (sports: the team abbreviations) on one side and the date or date span on the
/// other, over a darkening gradient unless `suppressHeaderDarkening`; a footer with up to four
/// seat elements (or the admission level) and the `secondaryLogo`, in `footerBackgroundColor` or
/// a blurred "chin" of the artwork, with the seat's `seatSectionColor` as a strip.
package struct PosterFace: Sendable, Equatable {
    /// Top left: `eventLogoText` (Wallet ignores `logoText` on posters), else the event name.
    package var title: String
    /// Sports: "BOS vs LAL" (away, home), drawn above the title.
    package var teams: String?
    /// Top right: the day or the span of days ("Fri 1 May 2026", "12 – 14 Jun 2026", "Date TBD").
    package var date: String?
    /// Under the date: the time ("19:30", "Time TBA"), nil for a day without time.
    package var time: String?
    /// The footer's seat elements (at most four) or the admission level.
    package var footerCells: [FieldCell]
    /// `footerBackgroundColor`; nil: the blurred artwork.
    package var footerColor: RGB?
    /// The first seat's `seatSectionColor`: a strip along the footer's top edge.
    package var sectionColor: RGB?
    /// False when `suppressHeaderDarkening` is true.
    package var darkensHeader: Bool
    /// `useAutomaticColors`: text colours come from the artwork, not `foregroundColor`.
    package var automaticColors: Bool
    /// The text colour over the artwork's top and in the footer (set when the artwork is decoded).
    package var headerText: RGB = .white
    package var footerText: RGB = .white

    static let maxFooterCells = 4

    init(info: PassInfo) {
        let d = info.document
        let s = d.semanticTags
        let eventName = s?.eventName.flatMap(Self.nonBlank)
        title = FieldCell.cut(d.eventLogoText.flatMap(Self.nonBlank) ?? eventName ?? info.organizationName, to: 80)
        if s?.eventType == "PKEventTypeSports", let away = s?.awayTeamAbbreviation, let home = s?.homeTeamAbbreviation {
            teams = FieldCell.cut("\(away) vs \(home)", to: 40)
        }
        (date, time) = Self.when(s)
        var cells: [FieldCell] = []
        let seats = s?.seats ?? []
        if let first = seats.first {
            func joined(_ values: [String?]) -> String? {
                var seen: [String] = []
                for case let v? in values where !v.isEmpty && !seen.contains(v) { seen.append(v) }
                return seen.isEmpty ? nil : seen.joined(separator: ", ")
            }
            let elements: [(String, String?)] = [
                ("SECTION", joined(seats.map(\.section))), ("ROW", joined(seats.map(\.row))),
                (seats.count > 1 ? "SEATS" : "SEAT", joined(seats.map(\.number))), ("LEVEL", joined(seats.map(\.level))),
                ("AISLE", joined(seats.map(\.aisle))), ("TYPE", first.type), ("SEAT ID", first.identifier),
            ]
            for case let (label, value?) in elements where cells.count < Self.maxFooterCells {
                cells.append(FieldCell(label: label, value: FieldCell.cut(value, to: 40), alignment: .natural))
            }
            sectionColor = seats.lazy.compactMap(\.sectionColor).first.map(RGB.init)
        }
        if cells.isEmpty, let level = s?.admissionLevel.flatMap(Self.nonBlank) {
            cells.append(FieldCell(label: "ADMISSION", value: FieldCell.cut(level, to: 60), alignment: .natural))
        }
        footerCells = cells
        footerColor = d.footerBackgroundColor.map(RGB.init)
        darkensHeader = !(d.suppressHeaderDarkening ?? false)
        automaticColors = d.useAutomaticColors ?? false
    }

    /// The colours of the text, given the artwork's mean luminance (nil: no artwork drawn).
    mutating func chooseColors(colors: CardColors, artworkLuminance: Double?) {
        let art = artworkLuminance.map { RGB($0, $0, $0) } ?? colors.background
        // The gradient darkens the top to about 40 % of the artwork: white reads on it.
        let top = darkensHeader ? RGB(art.r * 0.45, art.g * 0.45, art.b * 0.45) : art
        if automaticColors || colors.foreground.contrast(with: top) < CardColors.minimumContrast {
            headerText = top.readableText
        } else {
            headerText = colors.foreground
        }
        if let footerColor {
            footerText = footerColor.readableText
        } else {
            // The chin is the blurred artwork under a 35 % black veil.
            let chin = RGB(art.r * 0.65, art.g * 0.65, art.b * 0.65)
            footerText = chin.readableText
        }
    }

    /// "Fri 1 May 2026" and "19:30" in the time the pass wrote (the event's own zone); a span of
    /// days when the event ends on a later day; Wallet's "Date TBD" and "Time TBA".
    static func when(_ s: PassSemantics?) -> (String?, String?) {
        guard let s else { return (nil, nil) }
        let info = s.eventStartDateInfo
        if info?.isUndetermined == true { return ("Date TBD", nil) }
        guard let start = info?.date ?? s.eventStartDate else { return (nil, nil) }
        let ignoresTime = info.map { $0.ignoresTime || $0.isAllDay } ?? false
        let a = parts(start)
        var day = "\(weekdays[Int(a.tm_wday)]) \(a.tm_mday) \(months[Int(a.tm_mon)]) \(Int(a.tm_year) + 1900)"
        if let end = s.eventEndDate {
            let b = parts(end)
            let sameDay = a.tm_year == b.tm_year && a.tm_yday == b.tm_yday
            if !sameDay, end.date > start.date {
                let endText = "\(b.tm_mday) \(months[Int(b.tm_mon)]) \(Int(b.tm_year) + 1900)"
                if a.tm_year == b.tm_year, a.tm_mon == b.tm_mon {
                    day = "\(a.tm_mday) – " + endText
                } else if a.tm_year == b.tm_year {
                    day = "\(a.tm_mday) \(months[Int(a.tm_mon)]) – " + endText
                } else {
                    day = "\(a.tm_mday) \(months[Int(a.tm_mon)]) \(Int(a.tm_year) + 1900) – " + endText
                }
            }
        }
        if info?.isUnannounced == true { return (day, "Time TBA") }
        if ignoresTime || start.text.count <= 10 { return (day, nil) }
        return (day, String(format: "%02d:%02d", a.tm_hour, a.tm_min))
    }

    /// nil for an empty or blank text (issuers write " ").
    static func nonBlank(_ s: String) -> String? { s.allSatisfy(\.isWhitespace) ? nil : s }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The wall-clock parts of `d` in the offset it was written in (UTC when it had none).
    static func parts(_ d: PassDate) -> tm {
        var t = time_t(d.date.timeIntervalSince1970.rounded(.down)) + time_t(d.utcOffset ?? 0)
        var out = tm()
        gmtime_r(&t, &out)
        return out
    }
}
