import Foundation

/// One item of `featuredActions` (iOS 27, top level, every style): `{identifier, type, url}` as
/// Apple's Pass Builder models it (`Pass+Action.swift`); passkit-generator also reads a
/// `placeIdentifier` for `place`. Wallet draws at most two, in order, as cards below the pass,
/// except on poster event tickets and semantic boarding passes.
package struct FeaturedAction: Sendable, Equatable {
    package var identifier: String?
    /// The type as written (`kind` is nil for a type Apple does not document).
    package var type: String?
    package var kind: FeaturedActionKind?
    package var url: String?
    package var placeIdentifier: String?

    /// At most this many are shown, the first ones of the list (WWDC26 session 209, 4:39).
    package static let maxShown = 2

    init(_ o: [String: JSONValue], path: String, warnings: inout [String]) {
        var r = JSONDictionaryReader(o, path: path)
        identifier = r.text("identifier")
        type = r.text("type")
        kind = type.flatMap(FeaturedActionKind.init(rawValue:))
        url = r.text("url")
        placeIdentifier = r.text("placeIdentifier")
        warnings += r.warnings
    }

    /// The lower-cased scheme of a URL ("https"), nil without one.
    static func scheme(of url: String) -> String? {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let scheme = trimmed[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }

    /// Why the action is left out, or nil when it can be shown: a documented type and an `https`
    /// URL (`tel:` for `call`). Never a `javascript:`, `data:`, `file:` or plain `http:` link.
    package var leftOutReason: String? {
        guard let kind else {
            return type.map { "its type \($0.prefix(40).debugDescription) is not one Wallet knows" } ?? "it has no type"
        }
        guard let url, !url.isEmpty else { return "it has no URL" }
        guard let scheme = Self.scheme(of: url) else { return "its URL has no scheme" }
        if scheme == "https" || (kind == .call && scheme == "tel") { return nil }
        return "its URL is \(scheme.prefix(20)):, not https:"
    }

    /// The actions Wallet 27 would draw, from the whole list: the first `maxShown` that can be
    /// shown (one left out does not take a place).
    package static func shown(_ actions: [FeaturedAction]) -> [FeaturedAction] {
        Array(actions.filter { $0.leftOutReason == nil }.prefix(maxShown))
    }
}
