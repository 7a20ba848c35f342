import Foundation
import PassStore

/// The library as a person sees it, Wallet's way: what is relevant next first (relevant dates,
/// event and departure times), then the passes without a coming date in the order they were
/// added; passes sharing a `groupingIdentifier` together (a trip, an order), at the place of the
/// group's first; expired and voided passes apart, most recent first, never dropped. One model
/// for `passconduit list` and the web wallet's pass list: only the drawing differs.
package struct LibraryView: Sendable {
    /// Which passes to show (`list TEXT --kind --upcoming --past --archived`, the web search box).
    package struct Query: Sendable, Equatable {
        /// Words that must each appear (case and accents ignored) in the organization, the
        /// description or a field's value.
        package var text: String?
        /// A style key ("boardingPass") or its short name ("boarding", "event", "coupon", "store", "generic").
        package var kind: String?
        /// Only passes with a date still to come.
        package var upcoming = false
        /// Only passes whose dates are all past (expired and voided ones too).
        package var past = false

        package init(text: String? = nil, kind: String? = nil, upcoming: Bool = false, past: Bool = false) {
            self.text = text
            self.kind = kind
            self.upcoming = upcoming
            self.past = past
        }

        /// The style keys a `--kind` value names, or nil when it names none.
        package static func kinds(named name: String) -> Set<String>? {
            let key = name.lowercased().filter { $0.isLetter }
            let styles = ["boardingpass": "boardingPass", "eventticket": "eventTicket", "coupon": "coupon",
                          "storecard": "storeCard", "generic": "generic",
                          "postergeneric": "posterGeneric"]
            if let style = styles[key] { return [style] }
            let short = ["boarding": "boardingPass", "flight": "boardingPass", "transit": "boardingPass",
                         "event": "eventTicket", "ticket": "eventTicket", "store": "storeCard", "card": "storeCard",
                         "poster": "posterGeneric"]
            return short[key].map { [$0] }
        }
    }

    /// One pass with what orders it.
    package struct Item: Sendable, Equatable {
        package var pass: StoredPass
        package var times: PassTimes
        /// The first of its moments still to come (nil: none).
        package var next: Date?
        package var archived: Bool
    }

    /// Passes shown together: one pass, or every pass of one `groupingIdentifier`.
    package struct Group: Sendable, Equatable {
        package var groupingIdentifier: String?
        package var items: [Item]
    }

    /// What comes next and the rest.
    package var current: [Group]
    /// Expired and voided passes, and old passes whose dates are all past.
    package var archived: [Group]

    package var currentItems: [Item] { current.flatMap(\.items) }
    package var archivedItems: [Item] { archived.flatMap(\.items) }

    /// A pass that has a date is over a day after its last one: a departure six hours ago is
    /// still the trip in progress, a concert yesterday is not.
    package static let grace: TimeInterval = 24 * 3600

    /// - Parameters:
    ///   - passes: the library's passes in its own order (relevant date, then when added).
    ///   - times: each pass's group and moments by SHA-256; a pass without an entry has its
    ///     stored relevant date only.
    package init(passes: [StoredPass], times: [String: PassTimes] = [:], query: Query = Query(), now: Date = Date()) {
        let kinds = query.kind.flatMap(Query.kinds(named:))
        let words = Self.words(query.text ?? "")
        var items: [Item] = []
        for pass in passes {
            var t = times[pass.sha256] ?? PassTimes()
            if let d = pass.relevantDate, !t.dates.contains(d) { t = PassTimes(groupingIdentifier: t.groupingIdentifier, dates: t.dates + [d]) }
            let last = t.dates.last
            let next = t.dates.first { $0 >= now - Self.grace }
            let expired = pass.voided || (pass.expirationDate.map { $0 <= now } ?? false)
            let allPast = last.map { $0 < now - Self.grace } ?? false
            let archived = expired || (pass.expirationDate == nil && allPast)
            let item = Item(pass: pass, times: t, next: archived ? nil : next, archived: archived)
            if let kinds, !kinds.contains(pass.kind) { continue }
            if query.upcoming && item.next == nil { continue }
            if query.past && !(archived || allPast) { continue }
            if !words.isEmpty && !Self.matches(pass, words) { continue }
            items.append(item)
        }
        // What comes next first, soonest first; then the rest in the library's order.
        let dated = items.enumerated().filter { !$0.element.archived && $0.element.next != nil }
            .sorted { ($0.element.next!, $0.offset) < ($1.element.next!, $1.offset) }.map(\.element)
        let undated = items.filter { !$0.archived && $0.next == nil }
        // Most recent first: the last moment, else when it expired, else when it was added.
        let old = items.enumerated().filter { $0.element.archived }.sorted {
            (Self.lastMoment($0.element), $1.offset) > (Self.lastMoment($1.element), $0.offset)
        }.map(\.element)
        current = Self.grouped(dated + undated)
        archived = Self.grouped(old)
    }

    /// The first moment after `now` at which the view of these passes could change by itself
    /// (a pass expires, or one of its moments falls a `grace` behind): until then a view made at
    /// `now` is the view of any later time, and so is a list that marks passes expired. Nil when
    /// no such moment is ahead. (Voided passes count too: harmless, and a list may still mark
    /// one expired.)
    package static func nextChange(passes: [StoredPass], times: [String: PassTimes], after now: Date) -> Date? {
        var first: Date?
        func consider(_ moment: Date) {
            if moment > now, first.map({ moment < $0 }) ?? true { first = moment }
        }
        for pass in passes {
            if let expiry = pass.expirationDate { consider(expiry) }
            if let relevant = pass.relevantDate { consider(relevant + grace) }
            for moment in times[pass.sha256]?.dates ?? [] { consider(moment + grace) }
        }
        return first
    }

    static func lastMoment(_ item: Item) -> Date {
        item.times.dates.last ?? item.pass.expirationDate ?? item.pass.addedAt
    }

    /// Keeps the order, pulling each later member of a group up to its first member.
    static func grouped(_ items: [Item]) -> [Group] {
        var groups: [Group] = []
        var index: [String: Int] = [:]
        for item in items {
            // A group is one issuer's: the same identifier from two teams is two groups.
            if let g = item.times.groupingIdentifier {
                let key = item.pass.teamIdentifier + "\u{0}" + g
                if let i = index[key] {
                    groups[i].items.append(item)
                    continue
                }
                index[key] = groups.count
            }
            groups.append(Group(groupingIdentifier: item.times.groupingIdentifier, items: [item]))
        }
        return groups
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    static func words(_ text: String) -> [String] {
        fold(text).split(whereSeparator: { $0.isWhitespace }).map(String.init)
    }

    static func matches(_ pass: StoredPass, _ words: [String]) -> Bool {
        let haystack = fold(([pass.organizationName, pass.description] + pass.fields.map(\.value)).joined(separator: "\n"))
        return words.allSatisfy { haystack.contains($0) }
    }
}
