import Foundation
import WalletPass
import Support

/// The events of a pass. Which dates: several `relevantDates` give one event each (a season or
/// multi-day pass); otherwise the semantics' own times (`eventStartDate`/`eventEndDate`, or for a
/// boarding pass `currentDepartureDate`/`currentArrivalDate`, falling back to the original
/// times), which say when the thing happens rather than when to remind; otherwise the one
/// `relevantDates` entry, otherwise `relevantDate`. A pass with none of these has no event of its
/// own. Then each `upcomingPassInformation` entry (iOS 26: more events on one pass) with a date is
/// an event of its own (`upcomingEvents`).
package enum PassEvents {
    /// A date that could not be used, and why (for a warning line).
    package struct Skipped: Sendable, Equatable {
        package var date: String
        package var reason: String
    }

    /// The pass's events, the dates that could not be used, and how many upcoming entries past
    /// `PassLimits.maxUpcomingEntries` were left out (the model reads only that many).
    package static func events(of pass: PassInfo, sequence: Int, stamp: Date)
        -> (events: [PassEvent], skipped: [Skipped], upcomingLeftOut: Int) {
        var (events, skipped) = ownEvents(of: pass, sequence: sequence, stamp: stamp)
        let upcoming = upcomingEvents(of: pass, sequence: sequence, stamp: stamp)
        events += upcoming.events
        skipped += upcoming.skipped
        return (events, skipped, pass.document.upcomingLeftOut)
    }

    /// The identity every UID of a pass starts with: the first 32 hex digits of the SHA-256 of
    /// its type and serial number.
    static func identity(_ document: PassDocument) -> Substring {
        Digest.hex(.sha256, Array("\(document.passTypeIdentifier)\u{0}\(document.serialNumber)".utf8)).prefix(32)
    }

    /// The events of the pass itself (as before upcoming entries existed).
    static func ownEvents(of pass: PassInfo, sequence: Int, stamp: Date) -> (events: [PassEvent], skipped: [Skipped]) {
        let document = pass.document
        let semantics = document.semantics?.object ?? [:]
        var skipped: [Skipped] = []

        func semanticDate(_ keys: [String]) -> PassDate? {
            for key in keys {
                if let s = semantics[key]?.string {
                    if let d = PassDate(s) { return d }
                    skipped.append(Skipped(date: s, reason: "semantics.\(key) is not a date Wallet reads"))
                }
            }
            return nil
        }
        let isBoarding = pass.kind == .boardingPass
        let semanticStart = isBoarding ? semanticDate(["currentDepartureDate", "originalDepartureDate"])
                                       : semanticDate(["eventStartDate"])
        let semanticEnd = isBoarding ? semanticDate(["currentArrivalDate", "originalArrivalDate"])
                                     : semanticDate(["eventEndDate"])

        var slots: [(start: PassDate, end: PassDate?)] = []
        let ranges = document.relevantDates.compactMap { r -> (PassDate, PassDate?)? in
            if let s = r.startDate { return (s, r.endDate) }
            return r.date.map { ($0, nil) }
        }
        if ranges.count > 1 {
            slots = ranges
        } else if let semanticStart {
            slots = [(semanticStart, semanticEnd)]
        } else if let only = ranges.first {
            slots = [only]
        } else if let date = document.relevantDate {
            slots = [(date, nil)]
        }

        let summary = Self.summary(pass, semantics: semantics)
        let description = Self.description(pass)
        let (location, geo) = Self.place(pass, semantics: semantics)
        let identity = Self.identity(document)
        var events: [PassEvent] = []
        for (n, slot) in slots.enumerated() {
            guard let times = Self.times(slot.start, slot.end, skipped: &skipped) else { continue }
            let (start, end) = times
            events.append(PassEvent(uid: "\(identity)-\(n)@passconduit", start: start, end: end,
                                    summary: summary, description: description, location: location, geo: geo,
                                    cancelled: document.voided, sequence: sequence, stamp: stamp))
        }
        return (events, skipped)
    }

    /// A start and an end as a calendar writes them; nil (with the reason in `skipped`) when the
    /// start lies outside the years 1-9999. An end must be of the same kind as the start and after
    /// it (RFC 5545 §3.6.1), else the event has none; a whole day's end is the day after its last day.
    static func times(_ startDate: PassDate, _ endDate: PassDate?, skipped: inout [Skipped]) -> (CalendarTime, CalendarTime?)? {
        guard let start = CalendarTime(startDate) else {
            skipped.append(Skipped(date: startDate.text, reason: "lies outside the years 1-9999"))
            return nil
        }
        var end = endDate.flatMap(CalendarTime.init)
        if let e = endDate, end == nil {
            skipped.append(Skipped(date: e.text, reason: "lies outside the years 1-9999; the event has no end"))
        }
        if let e = end {
            if e.isDay != start.isDay {
                end = nil
            } else if e.isDay {
                end = e.sortKey >= start.sortKey ? e.nextDay : nil
            } else if e.sortKey <= start.sortKey {
                end = nil
            }
            if end == nil, let text = endDate?.text {
                skipped.append(Skipped(date: text, reason: "is not after the start (\(startDate.text)); the event has no end"))
            }
        }
        return (start, end)
    }

    /// The event's name: the event, the flight or journey, else "Organization: description".
    static func summary(_ pass: PassInfo, semantics: [String: JSONValue]) -> String {
        func text(_ key: String) -> String? {
            guard let s = semantics[key]?.text?.trimmingCharacters(in: .whitespacesAndNewlines), !s.isEmpty else { return nil }
            return s
        }
        if let name = text("eventName") { return name }
        if pass.kind == .boardingPass {
            let flight = text("flightCode") ?? text("airlineCode").flatMap { a in text("flightNumber").map { a + " " + $0 } }
            let from = text("departureAirportCode") ?? text("departureStationName") ?? text("departureCityName")
            let to = text("destinationAirportCode") ?? text("arrivalAirportCode") ?? text("destinationStationName")
                ?? text("destinationCityName")
            let route = from.flatMap { f in to.map { "\(f) → \($0)" } }
            let parts = [flight, route].compactMap { $0 }
            if !parts.isEmpty { return ([pass.organizationName] + parts).joined(separator: " ") }
        }
        let description = pass.description.trimmingCharacters(in: .whitespacesAndNewlines)
        if description.isEmpty { return pass.organizationName }
        if description.localizedCaseInsensitiveContains(pass.organizationName) { return description }
        return "\(pass.organizationName): \(description)"
    }

    /// The organization and description, then each front field as "Label: value" (localized, as
    /// the pass shows it). Back fields are left out: they are mostly terms and conditions.
    static func description(_ pass: PassInfo) -> String {
        var lines = ["\(pass.organizationName) — \(pass.description)"]
        let front = pass.headerFields + pass.primaryFields + pass.secondaryFields + pass.auxiliaryFields
        for field in front {
            let value = field.value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { continue }
            let label = field.label?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            lines.append(label.isEmpty ? value : "\(label): \(value)")
        }
        if pass.voided { lines.append("This pass has been voided.") }
        return lines.joined(separator: "\n")
    }

    /// LOCATION and GEO: the venue (event) or departure place (boarding pass) from semantics,
    /// else the pass's first location.
    static func place(_ pass: PassInfo, semantics: [String: JSONValue]) -> (String?, (latitude: Double, longitude: Double)?) {
        func text(_ key: String) -> String? {
            guard let s = semantics[key]?.text?.trimmingCharacters(in: .whitespacesAndNewlines), !s.isEmpty else { return nil }
            return s
        }
        func coordinates(_ key: String) -> (latitude: Double, longitude: Double)? {
            guard let o = semantics[key]?.object, let lat = o["latitude"]?.number, let lon = o["longitude"]?.number else { return nil }
            return valid(lat, lon)
        }
        var name: String?
        var geo: (latitude: Double, longitude: Double)?
        if pass.kind == .boardingPass {
            let place = text("departureAirportName") ?? text("departureStationName") ?? text("departureLocationDescription")
                ?? text("departureCityName") ?? text("departureAirportCode")
            let details = [text("departureTerminal").map { "Terminal \($0)" }, text("departureGate").map { "Gate \($0)" },
                           text("departurePlatform").map { "Platform \($0)" }].compactMap { $0 }
            if let place { name = ([place] + details).joined(separator: ", ") }
            geo = coordinates("departureLocation")
        } else {
            let parts = [text("venueName"), text("venueRoom"), text("venueFullAddress") ?? text("venueAddress")].compactMap { $0 }
            if !parts.isEmpty { name = parts.joined(separator: ", ") }
            geo = coordinates("venueLocation")
        }
        if geo == nil, let first = pass.document.locations.first {
            geo = valid(first.latitude, first.longitude)
        }
        if name == nil, let geo {
            name = String(format: "%.6f, %.6f", geo.latitude, geo.longitude)
        }
        return (name, geo)
    }

    static func valid(_ latitude: Double, _ longitude: Double) -> (latitude: Double, longitude: Double)? {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else { return nil }
        return (latitude, longitude)
    }
}
