import Foundation
import WalletPass

/// How a field's text is aligned in its cell.
package enum CellAlignment: String, Sendable, Equatable {
    case left, center, right, natural

    init(_ pk: String?) {
        switch pk {
        case "PKTextAlignmentLeft": self = .left
        case "PKTextAlignmentCenter": self = .center
        case "PKTextAlignmentRight": self = .right
        default: self = .natural
        }
    }
}

/// One field as the card shows it: label upper-cased (Wallet does), value as WalletPass
/// formatted it (localized; a date or number only when the field asks for a style).
package struct FieldCell: Sendable, Equatable {
    package var label: String
    package var value: String
    package var alignment: CellAlignment

    /// Front-of-card texts longer than this are cut: a cell shows a line or two, and a megabyte
    /// value must not reach the text shaper.
    static let maxFrontCharacters = 240

    init(_ f: PassField, alignment: CellAlignment? = nil) {
        label = Self.cut(f.label ?? "", to: 120).uppercased()
        value = Self.cut(f.value, to: Self.maxFrontCharacters)
        self.alignment = alignment ?? CellAlignment(f.textAlignment)
    }

    init(label: String, value: String, alignment: CellAlignment) {
        self.label = label
        self.value = value
        self.alignment = alignment
    }

    /// The first `limit` characters, with "…" when cut; control characters other than line breaks
    /// become spaces (they would draw as boxes or move the terminal's cursor).
    static func cut(_ s: String, to limit: Int) -> String {
        var out = ""
        var n = 0
        for ch in s {
            if n == limit { return out + "…" }
            if let a = ch.unicodeScalars.first, ch.unicodeScalars.count == 1, a.value < 0x20 || a.value == 0x7F,
               a != "\n" {
                out.append(" ")
            } else {
                out.append(ch)
            }
            n += 1
        }
        return out
    }
}

/// A back field: label and value (value may be long, with line breaks and links).
package struct BackField: Sendable, Equatable {
    package var label: String
    package var value: String
    /// `attributedValue` when the pass gives one (its `<a href>` links are honoured, nothing else).
    package var attributed: String?
}

/// A band across the card saying why the pass must not be trusted as it is.
package struct CardMark: Sendable, Equatable {
    package enum Kind: String, Sendable { case notVerified, voided, expired }
    package var kind: Kind
    package var text: String
}

/// The card as Wallet lays it out, independent of the output: which fields sit in which row for
/// the pass's style, which images the style may use, the colours, the barcode and the marks.
/// Every output (cairo PNG/PDF/SVG, HTML) draws this one model.
package struct CardModel: Sendable {
    package var kind: PassKind
    package var colors: CardColors
    package var organization: String
    package var passDescription: String
    package var logoText: String?
    package var logo: PassImage?
    package var strip: PassImage?
    package var background: PassImage?
    package var thumbnail: PassImage?
    package var footer: PassImage?
    package var headerFields: [FieldCell]
    package var primaryFields: [FieldCell]
    /// Rows under the primary fields, top to bottom (boarding pass: auxiliary, then secondary).
    package var rows: [[FieldCell]]
    /// Boarding passes: Wallet's glyph between origin and destination, by `transitType`.
    package var transitIcon: TransitIcon?
    package var barcode: CardBarcode?
    package var marks: [CardMark]
    package var backFields: [BackField]
    /// Back fields left out (beyond `maxBackFields`, or past the text budget).
    package var omittedBackFields: Int
    /// Things the reader of the picture should know (images skipped, colours replaced).
    package var notes: [String]
    /// The layout Wallet 27 draws (`PassInfo.scheme`), with the reason a poster scheme was not used.
    package var scheme: SchemeChoice
    /// The poster event ticket's face, when `scheme` is `posterEventTicket`: the classic rows
    /// above are then not drawn.
    package var poster: PosterFace?
    /// The semantic boarding pass's face, when `scheme` is `semanticBoardingPass`.
    package var boarding: BoardingFace?
    /// The poster's full-bleed `artwork` (else its `background`), and its `secondaryLogo`.
    package var artwork: PassImage?
    package var secondaryLogo: PassImage?
    /// The poster generic pass's face, when `scheme` is `posterGeneric`: drawn on `artwork` (the
    /// pass's `background` image, else its `artwork`), with `primaryLogo`.
    package var posterGeneric: PosterGenericFace?
    package var primaryLogo: PassImage?
    /// A poster event ticket's `venueMap` image, drawn below the card (HTML, the PDF's back).
    package var venueMap: PassImage?
    /// What Wallet shows under the pass (HTML after the card, PDF on the back, `show` in lines).
    package var below: BelowCard

    /// Wallet's own maxima per row ([WDG]); more fields are not displayed.
    static let maxHeader = 3
    static let maxBackFields = 100
    /// Characters of back text drawn in all; a pass with megabytes of back text is cut, with a note.
    static let maxBackCharacters = 20_000

    /// - Parameters:
    ///   - status/error: the verdict; anything but `valid` puts a "not verified" band on the card.
    ///   - now: for "expired".
    ///   - errorMessage: the band's sentence in the reader's words; nil for the error's own.
    package init(info: PassInfo, status: PassStatus, error: PassError?, barcode: CardBarcode?, scale: Int,
                 now: Date = Date(), backgroundLuminance: Double? = nil, errorMessage: String? = nil) {
        let d = info.document
        kind = info.kind
        organization = FieldCell.cut(info.organizationName, to: 120)
        passDescription = FieldCell.cut(info.description, to: 240)
        logoText = info.logoText.map { FieldCell.cut($0, to: 80) }
        var notes: [String] = []
        let choice = info.scheme
        // A poster generic pass is drawn from its own style's groups, also when it carries a
        // classic style for older devices (`info`'s groups are then that style's).
        let posterFields = choice.scheme == .posterGeneric ? info.posterGenericFields : nil

        // Images the style may use ([WDG] Table 4-1); strip XOR background/thumbnail on event tickets.
        let images = info.images
        func image(_ name: String) -> PassImage? { images.image(name, scale: scale) }
        logo = image("logo")
        switch info.kind {
        case .boardingPass:
            footer = image("footer")
        case .coupon, .storeCard:
            strip = image("strip")
        case .eventTicket:
            strip = image("strip")
            if strip == nil {
                background = image("background")
                thumbnail = image("thumbnail")
            } else if image("background") != nil || image("thumbnail") != nil {
                notes.append("The pass has a strip image, so its background and thumbnail images are not shown (as in Wallet).")
            }
        case .generic:
            thumbnail = image("thumbnail")
        case .posterGeneric:
            // Drawn in the generic layout for now, on its full-bleed background image.
            background = image("background")
        }
        colors = CardColors(document: d, backgroundImageLuminance: background == nil ? nil : backgroundLuminance)
        notes += colors.notes

        headerFields = info.headerFields.prefix(Self.maxHeader).map { FieldCell($0) }
        let isBoarding = info.kind == .boardingPass
        let primaryCount = isBoarding ? 2 : 1
        primaryFields = info.primaryFields.prefix(primaryCount).enumerated().map { i, f in
            // Apple: textAlignment is not allowed for primary fields; the destination sits right.
            FieldCell(f, alignment: isBoarding && i == 1 ? .right : .natural)
        }
        let secondary = info.secondaryFields.map { FieldCell($0) }
        // iOS 18: `row: 1` puts an auxiliary field on a second auxiliary row.
        let auxiliary = info.auxiliaryFields.filter { ($0.row ?? 0) == 0 }.map { FieldCell($0) }
        let auxiliary2 = info.auxiliaryFields.filter { ($0.row ?? 0) == 1 }.map { FieldCell($0) }
        var rows: [[FieldCell]]
        switch info.kind {
        case .boardingPass:
            rows = [Array(auxiliary.prefix(5)), Array(auxiliary2.prefix(5)), Array(secondary.prefix(5))]
        case .coupon, .storeCard:
            // Secondary and auxiliary share one row, four fields at most.
            rows = [Array((secondary + auxiliary + auxiliary2).prefix(4))]
        case .eventTicket, .generic, .posterGeneric:
            rows = [Array(secondary.prefix(4)), Array(auxiliary.prefix(4)), Array(auxiliary2.prefix(4))]
        }
        self.rows = rows.filter { !$0.isEmpty }
        let shown = headerFields.count + primaryFields.count + self.rows.reduce(0) { $0 + $1.count }
        let total = info.headerFields.count + info.primaryFields.count + info.secondaryFields.count + info.auxiliaryFields.count
        if total > shown, posterFields == nil { notes.append("\(total - shown) front fields do not fit on the card (Wallet does not display them either).") }

        if kind == .boardingPass {
            transitIcon = TransitIcon(transitType: info.transitType)
        }
        self.barcode = barcode

        var marks: [CardMark] = []
        if status != .valid {
            marks.append(CardMark(kind: .notVerified,
                                  text: "NOT VERIFIED: " + FieldCell.cut(errorMessage ?? error?.message ?? "The signature could not be checked.", to: 200)))
        }
        if info.voided { marks.append(CardMark(kind: .voided, text: "VOID: the issuer has cancelled this pass")) }
        if let expiry = info.expirationDate, expiry < now {
            marks.append(CardMark(kind: .expired, text: "EXPIRED on \(Self.day(expiry))"))
        }
        self.marks = marks

        var budget = Self.maxBackCharacters
        var back: [BackField] = []
        var omitted = 0
        for f in posterFields?.backFields ?? info.backFields {
            guard back.count < Self.maxBackFields, budget > 0 else { omitted += 1; continue }
            let value = FieldCell.cut(f.value, to: min(budget, 5_000))
            budget -= value.count
            back.append(BackField(label: FieldCell.cut(f.label ?? "", to: 200), value: value,
                                  attributed: f.attributedValue.map { FieldCell.cut($0, to: 5_000) }))
        }
        backFields = back
        omittedBackFields = omitted
        scheme = choice
        below = BelowCard(info: info, scheme: choice.scheme,
                          additionalInfo: posterFields?.additionalInfoFields ?? info.additionalInfoFields)
        if scheme.scheme == .posterEventTicket {
            // The poster draws its artwork full-bleed, not the classic blurred background.
            poster = PosterFace(info: info)
            artwork = image("artwork") ?? image("background")
            secondaryLogo = image("secondaryLogo")
            venueMap = image("venueMap")
            below.venueMap = venueMap.map { BelowCard.VenueMap(file: $0.file, width: $0.width, height: $0.height) }
            background = nil
            strip = nil
            thumbnail = nil
        } else if scheme.scheme == .semanticBoardingPass {
            boarding = BoardingFace(info: info)
            footer = nil
        } else if let posterFields {
            let face = PosterGenericFace(info: info, fields: posterFields)
            if face.leftOut > 0 {
                notes.append("\(face.leftOut) fields of the poster generic pass are not on its face (Wallet shows one header field, "
                             + "four primary fields and the first footer field).")
            }
            posterGeneric = face
            artwork = image("background") ?? image("artwork")
            primaryLogo = image("primaryLogo")
            logo = nil
            background = nil
            strip = nil
            thumbnail = nil
            footer = nil
        }
        self.notes = notes
    }

    /// "17 Jun 2023" in UTC (the band must not depend on where it is printed).
    static func day(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(parts.tm_mday) \(months[Int(parts.tm_mon)]) \(Int(parts.tm_year) + 1900)"
    }
}
