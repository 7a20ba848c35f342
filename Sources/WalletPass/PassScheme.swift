import Foundation

/// The layout Wallet draws a pass in: one of the classic styles, or one of the schemes a pass can
/// ask for — iOS 18's poster event ticket and iOS 26's semantic boarding pass through
/// `preferredStyleSchemes`, iOS 27's poster generic pass through its own style key.
package enum PassScheme: String, Sendable, CaseIterable, Equatable {
    case boardingPass, coupon, eventTicket, generic, storeCard, posterGeneric
    case posterEventTicket, semanticBoardingPass

    /// The classic style drawn when nothing newer applies.
    package init(_ kind: PassKind) {
        switch kind {
        case .boardingPass: self = .boardingPass
        case .coupon: self = .coupon
        case .eventTicket: self = .eventTicket
        case .generic: self = .generic
        case .storeCard: self = .storeCard
        case .posterGeneric: self = .posterGeneric
        }
    }

    /// The style dictionary the scheme draws from.
    package var style: PassKind {
        switch self {
        case .boardingPass, .semanticBoardingPass: return .boardingPass
        case .coupon: return .coupon
        case .eventTicket, .posterEventTicket: return .eventTicket
        case .generic: return .generic
        case .storeCard: return .storeCard
        case .posterGeneric: return .posterGeneric
        }
    }

    /// What a person reads after "Drawn as:".
    package var name: String {
        switch self {
        case .boardingPass: return "boarding pass"
        case .coupon: return "coupon"
        case .eventTicket: return "event ticket"
        case .generic: return "generic pass"
        case .storeCard: return "store card"
        case .posterGeneric: return "poster generic pass"
        case .posterEventTicket: return "poster event ticket"
        case .semanticBoardingPass: return "semantic boarding pass"
        }
    }

    /// The new layouts (drawn from semantics and full-bleed images, not the classic rows).
    package var isPoster: Bool { self == .posterEventTicket || self == .posterGeneric }
}

/// Which scheme a pass is drawn in, and — when it asked for a newer one Wallet would not use —
/// why not, naming the first required key that is missing or of the wrong type, as
/// "semantics.venueName is missing".
package struct SchemeChoice: Sendable, Equatable {
    package var scheme: PassScheme
    /// The scheme asked for in `preferredStyleSchemes` and not used.
    package var declined: PassScheme?
    /// Why `declined` was not used.
    package var fallbackReason: String?

    package init(scheme: PassScheme, declined: PassScheme? = nil, fallbackReason: String? = nil) {
        self.scheme = scheme
        self.declined = declined
        self.fallbackReason = fallbackReason
    }

    /// "poster event ticket", or "event ticket (poster layout not used: semantics.venueName is missing)".
    package var text: String {
        guard let declined, let fallbackReason else { return scheme.name }
        let layout = declined == .semanticBoardingPass ? "semantic layout" : "poster layout"
        return "\(scheme.name) (\(layout) not used: \(fallbackReason))"
    }

    /// Apple's required semantic tags for a poster event ticket, every event type
    /// ([Doc:creating-an-event-pass-using-semantic-tags]).
    static let posterEventKeys = ["eventName", "venueName", "venueRegionName", "venueRoom"]
    /// And per `eventType`.
    static let posterEventKeysByType: [String: [String]] = [
        "PKEventTypeSports": ["awayTeamAbbreviation", "homeTeamAbbreviation"],
        "PKEventTypeLivePerformance": ["performerNames"],
    ]
    /// Apple's required semantic tags for a semantic boarding pass
    /// ([Doc:creating-an-airline-boarding-pass-using-semantic-tags]); a pair is one key spelled
    /// two ways (the documentation's and Pass Builder's), either will do.
    static let boardingKeys: [[String]] = [
        ["airlineCode"], ["flightNumber"], ["departureAirportCode"], ["departureCityName"],
        ["departureLocationTimeZone", "departureAirportTimeZone"], ["destinationAirportCode"], ["destinationCityName"],
        ["destinationLocationTimeZone", "destinationAirportTimeZone"], ["originalArrivalDate"],
        ["originalBoardingDate"], ["originalDepartureDate"], ["passengerName"],
    ]

    /// The choice for `document` whose bundle has the images `imageNames` ("artwork@2x.png", …).
    ///
    /// Wallet 27 draws `posterGeneric` whenever that style key is present. Otherwise each entry of
    /// `preferredStyleSchemes` is tried in order: `posterEventTicket` needs the `eventTicket` style,
    /// the required semantics and an `artwork` or `background` image; `semanticBoardingPass` needs
    /// the `boardingPass` style with `transitType` `PKTransitTypeAir` and the required flight
    /// semantics; a classic name (`eventTicket`, `boardingPass`) stops the search. The pass's classic
    /// style is drawn when none applies, with the reason the first scheme asked for failed.
    package static func choose(_ document: PassDocument, imageNames: [String]) -> SchemeChoice {
        if document.styles.contains(.posterGeneric) { return SchemeChoice(scheme: .posterGeneric) }
        guard let kind = document.kind else { return SchemeChoice(scheme: .generic) }
        let classic = PassScheme(kind)
        var declined: PassScheme?
        var reason: String?
        for name in document.preferredStyleSchemes {
            let wanted: PassScheme
            switch name {
            case "posterEventTicket": wanted = .posterEventTicket
            case "semanticBoardingPass": wanted = .semanticBoardingPass
            default:
                // A classic style named first: Wallet draws it and looks no further.
                if PassKind(rawValue: name) == kind { return SchemeChoice(scheme: classic, declined: declined, fallbackReason: reason) }
                continue
            }
            let missing = wanted == .posterEventTicket
                ? posterEventProblem(document, imageNames: imageNames)
                : boardingProblem(document)
            guard let missing else { return SchemeChoice(scheme: wanted) }
            if declined == nil {
                declined = wanted
                reason = missing
            }
        }
        return SchemeChoice(scheme: classic, declined: declined, fallbackReason: reason)
    }

    /// Why `document` cannot be a poster event ticket, nil when it can.
    ///
    /// Apple types every required event tag as a string and `performerNames` as a list of strings
    /// ([Doc:semantictags], Pass Builder `PassSemantics.swift`): a number, or a performer that is
    /// not text, is not the tag Wallet asks for, so the classic ticket is drawn.
    static func posterEventProblem(_ document: PassDocument, imageNames: [String]) -> String? {
        guard document.kind == .eventTicket else { return "the pass's style is \(document.kind?.rawValue ?? "missing"), not eventTicket" }
        let (object, problem) = semanticsObject(document)
        guard let object else { return problem }
        var keys = posterEventKeys
        if let type = object["eventType"]?.string { keys += posterEventKeysByType[type] ?? [] }
        for key in keys {
            if let problem = tagProblem(object, [key], wanted: key == "performerNames" ? .texts : .text) { return problem }
        }
        let hasArt = imageNames.contains { name in
            let base = name.split(separator: "/").last.map(String.init) ?? name
            return ["artwork", "background"].contains { base == $0 + ".png" || base.hasPrefix($0 + "@") && base.hasSuffix("x.png") }
        }
        guard hasArt else { return "the pass has no artwork or background image" }
        return nil
    }

    /// The three scheduled times a semantic boarding pass is drawn from: W3C dates.
    static let boardingDateKeys: Set<String> = ["originalArrivalDate", "originalBoardingDate", "originalDepartureDate"]

    /// Why `document` cannot be a semantic boarding pass, nil when it can. The flight number may be
    /// a number (Apple's type) or text; the scheduled times must be dates Wallet reads.
    static func boardingProblem(_ document: PassDocument) -> String? {
        guard document.kind == .boardingPass else { return "the pass's style is \(document.kind?.rawValue ?? "missing"), not boardingPass" }
        guard document.fields.transitType == "PKTransitTypeAir" else {
            return "boardingPass.transitType is \(document.fields.transitType ?? "missing"), not PKTransitTypeAir"
        }
        let (object, problem) = semanticsObject(document)
        guard let object else { return problem }
        for keys in boardingKeys {
            let wanted: Wanted = keys[0] == "passengerName" ? .name
                : keys[0] == "flightNumber" ? .textOrNumber
                : boardingDateKeys.contains(keys[0]) ? .date : .text
            if let problem = tagProblem(object, keys, wanted: wanted) { return problem }
        }
        return nil
    }

    private static func semanticsObject(_ document: PassDocument) -> ([String: JSONValue]?, String?) {
        guard let value = document.semantics else { return (nil, "semantics is missing") }
        guard let object = value.object else { return (nil, "semantics is \(JSONDictionaryReader.kind(value)), not an object") }
        return (object, nil)
    }

    /// What a required tag must hold: a string; a string or a number (the flight number); a list of
    /// strings with one that is not blank; a W3C date; a person's name (an object or plain text).
    enum Wanted { case text, textOrNumber, texts, date, name }

    /// "semantics.venueName is missing", "… is a number, not text", "… is empty"; nil when usable.
    private static func tagProblem(_ object: [String: JSONValue], _ keys: [String], wanted: Wanted) -> String? {
        let path = "semantics." + keys[0]
        guard let value = keys.lazy.compactMap({ object[$0] }).first else { return path + " is missing" }
        func blank(_ s: String) -> Bool { s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        switch (wanted, value) {
        case (.texts, .array(let items)):
            if let (i, item) = items.enumerated().first(where: { $0.element.string == nil }) {
                return "\(path)[\(i)] is \(JSONDictionaryReader.kind(item)), not text"
            }
            return items.contains(where: { !blank($0.string ?? "") }) ? nil : path + " is empty"
        case (.texts, _): return "\(path) is \(JSONDictionaryReader.kind(value)), not a list"
        case (.name, _):
            // A PersonNameComponents dictionary, or the plain name some issuers write.
            return PassPersonName(value) == nil ? "\(path) is \(JSONDictionaryReader.kind(value)), not a name" : nil
        case (.text, .string(let s)), (.textOrNumber, .string(let s)): return blank(s) ? path + " is empty" : nil
        case (.textOrNumber, .number): return nil
        case (.text, _), (.textOrNumber, _): return "\(path) is \(JSONDictionaryReader.kind(value)), not text"
        case (.date, .string(let s)): return PassDate(s) == nil ? path + " is not a date Wallet reads" : nil
        case (.date, _): return "\(path) is \(JSONDictionaryReader.kind(value)), not a date"
        }
    }
}

extension PassDocument {
    /// The layout Wallet 27 draws this pass in, for a bundle with the images `imageNames`.
    package func scheme(imageNames: [String]) -> SchemeChoice { SchemeChoice.choose(self, imageNames: imageNames) }
}

extension PassInfo {
    /// The layout Wallet 27 draws this pass in (`SchemeChoice.choose`).
    package var scheme: SchemeChoice { document.scheme(imageNames: images.names) }
}
