import Foundation
import WalletPass

/// What Wallet shows under a pass rather than on it (research note wallet-2026.md §1): the
/// Additional Info fields (iOS 18), iOS 27's featured actions (at most two, not on poster event
/// tickets or semantic boarding passes), the event guide, ticket and airline service links
/// (iOS 18, iOS 26) and the upcoming events (iOS 26). HTML puts it in a section after the card,
/// PDF on the back, `show` in lines. A poster event ticket's event guide also shows the venue map
/// the pass ships (`venueMap.png`, [PKG] posterEventTicketWithNewSeats): HTML and PDF draw it under
/// "Venue Map" within the image limits, `show` names the file.
///
/// Only `https` links are links (a featured `call` action may be `tel:`); `http:`, `javascript:`,
/// `data:` and app schemes are left out and counted. E-mail addresses and phone numbers of the
/// contact keys are shown as text. Nothing here is ever fetched: an upcoming event's images are
/// remote URLs and are not drawn.
package struct BelowCard: Sendable, Equatable {
    /// A featured action or a link: Wallet's label (English, `FeaturedActionKind.title`,
    /// `PassLinkKey.title`) and the address.
    package struct Link: Sendable, Equatable {
        package var title: String
        package var value: String
        /// The value as a link target (`https:`, or `tel:` for a call action); nil: shown as text.
        package var href: String?
    }

    /// A group of links under Wallet's heading ("Event Guide", …).
    package struct LinkGroup: Sendable, Equatable {
        package var title: String
        package var links: [Link]
    }

    /// One upcoming event: its name, when, where.
    package struct Upcoming: Sendable, Equatable {
        package var name: String
        package var date: String
        package var venue: String?
    }

    /// The venue map image the pass ships, as `show` names it.
    package struct VenueMap: Sendable, Equatable {
        package var file: String
        package var width: Int
        package var height: Int
    }

    package var additionalInfo: [FieldCell]
    package var actions: [Link]
    /// A poster event ticket's own `venueMap` image (its event guide); nil on every other layout,
    /// as in Wallet, and when the image is left out by the limits (`CardModel` clears it).
    package var venueMap: VenueMap?
    package var linkGroups: [LinkGroup]
    package var upcoming: [Upcoming]
    /// Sentences on what was left out ("2 links are left out: not https.").
    package var leftOut: [String]

    /// Upcoming events listed; more are counted.
    static let maxUpcoming = 20
    static let maxAdditionalInfo = 20

    package var isEmpty: Bool {
        additionalInfo.isEmpty && actions.isEmpty && linkGroups.isEmpty && upcoming.isEmpty && leftOut.isEmpty && venueMap == nil
    }

    /// Wallet's heading over the venue map.
    package static let venueMapTitle = "Venue Map"

    /// What goes under `info`'s card when it is drawn as `scheme`; `additionalInfo` the shown
    /// (localized) Additional Info fields of the style drawn.
    package init(info: PassInfo, scheme: PassScheme, additionalInfo fields: [PassField]) {
        let d = info.document
        var leftOut: [String] = []
        additionalInfo = fields.prefix(Self.maxAdditionalInfo).map { f in
            FieldCell(label: FieldCell.cut(f.label ?? "", to: 120), value: FieldCell.cut(f.value, to: 1_000), alignment: .natural)
        }
        if fields.count > Self.maxAdditionalInfo {
            leftOut.append("\(fields.count - Self.maxAdditionalInfo) more Additional Info fields are not listed.")
        }

        // Wallet 27 draws featured actions on the classic styles and poster generic passes only.
        if scheme == .posterEventTicket || scheme == .semanticBoardingPass || d.featuredActions.isEmpty {
            actions = []
        } else {
            actions = FeaturedAction.shown(d.featuredActions).compactMap { a in
                // `shown` kept https (tel: for a call) only; safeHref refuses spaces and control characters.
                guard let kind = a.kind, let url = a.url, let href = HTMLText.safeHref(url), href.count <= 500 else { return nil }
                return Link(title: kind.title, value: href, href: href)
            }
            let unsafe = d.featuredActions.filter { $0.leftOutReason != nil }.count
            if unsafe > 0 {
                leftOut.append("\(unsafe) featured \(unsafe == 1 ? "action is" : "actions are") left out: "
                               + "an unknown type, or a link that is not https (tel: for a call).")
            }
            let extra = d.featuredActions.count - unsafe - actions.count
            if extra > 0 { leftOut.append("\(extra) more featured \(extra == 1 ? "action is" : "actions are") not shown (Wallet shows two).") }
        }

        var groups: [LinkGroup] = []
        var unsafeLinks = 0
        // A boarding pass lists the guide's keys (food, bag policy, accessibility) with the airline's.
        let airline = scheme.style == .boardingPass
        let sections: [(String, [PassLinkKey.Section])] = airline
            ? [("Ticket", [.ticketMenu]), ("Airline Services", [.airlineServices, .eventGuide])]
            : [("Event Guide", [.eventGuide]), ("Ticket", [.ticketMenu]), ("Airline Services", [.airlineServices])]
        for (title, wanted) in sections {
            var links: [Link] = []
            for link in d.linkList where wanted.contains(link.key.section) {
                let value = FieldCell.cut(link.value.trimmingCharacters(in: .whitespacesAndNewlines), to: 500)
                switch link.key.kind {
                case .web:
                    guard link.isSafeWebLink, let href = HTMLText.safeHref(link.value), href.count <= 500 else {
                        unsafeLinks += 1
                        continue
                    }
                    links.append(Link(title: link.key.title, value: href, href: href))
                case .email, .phone:
                    guard !value.isEmpty else { continue }
                    links.append(Link(title: link.key.title, value: value, href: nil))
                }
            }
            if !links.isEmpty { groups.append(LinkGroup(title: title, links: links)) }
        }
        if unsafeLinks > 0 {
            leftOut.append("\(unsafeLinks) \(unsafeLinks == 1 ? "link is" : "links are") left out: not https.")
        }
        linkGroups = groups

        // Names and venues through the pass's pass.strings, as its fields are.
        func shown(_ text: String?) -> String? { text.map(info.localized).flatMap(PosterFace.nonBlank) }
        upcoming = d.upcomingPassInformation.prefix(Self.maxUpcoming).map { entry in
            let name = shown(entry.name) ?? shown(entry.semantics?.eventName) ?? "Event"
            return Upcoming(name: FieldCell.cut(name, to: 120), date: Self.when(entry.dateInformation),
                            venue: shown(entry.semantics?.venueName).map { FieldCell.cut($0, to: 120) })
        }
        venueMap = scheme == .posterEventTicket
            ? info.images.image("venueMap").map { VenueMap(file: $0.file, width: $0.width, height: $0.height) } : nil
        let moreUpcoming = max(0, d.upcomingPassInformation.count - Self.maxUpcoming) + d.upcomingLeftOut
        if moreUpcoming > 0 {
            leftOut.append("\(moreUpcoming) more upcoming \(moreUpcoming == 1 ? "event is" : "events are") not listed.")
        }
        self.leftOut = leftOut
    }

    /// "Fri 15 Jan 2027, 19:00" in the time the pass wrote; "TBD", "… (time TBA)" as Wallet says.
    static func when(_ info: PassEventDate?) -> String {
        guard let info, !info.isUndetermined, let date = info.date else { return "TBD" }
        let a = PosterFace.parts(date)
        let day = "\(PosterFace.weekdays[Int(a.tm_wday)]) \(a.tm_mday) \(PosterFace.months[Int(a.tm_mon)]) \(Int(a.tm_year) + 1900)"
        if info.isUnannounced { return day + ", time TBA" }
        guard info.showsTime, date.text.count > 10 else { return day }
        return day + String(format: ", %02d:%02d", a.tm_hour, a.tm_min)
    }

    /// Lines for a terminal or a PDF: heading, then "label: value" per item.
    package var sections: [(title: String, lines: [(label: String, value: String)])] {
        var out: [(String, [(String, String)])] = []
        if !actions.isEmpty { out.append(("Featured Actions", actions.map { ($0.title, $0.value) })) }
        if !upcoming.isEmpty {
            out.append(("Upcoming Events", upcoming.map { ($0.name, $0.date + ($0.venue.map { " · " + $0 } ?? "")) }))
        }
        if let map = venueMap {
            out.append((Self.venueMapTitle, [("Image", "\(map.file), \(map.width) × \(map.height) pixels")]))
        }
        for group in linkGroups { out.append((group.title, group.links.map { ($0.title, $0.value) })) }
        if !additionalInfo.isEmpty { out.append(("Additional Info", additionalInfo.map { ($0.label, $0.value) })) }
        return out
    }
}
