/// One URL or contact key of a pass or an upcoming entry, as written, with what Wallet does with it.
package struct PassLink: Sendable, Equatable {
    package var key: PassLinkKey
    package var value: String

    /// The links of `links` (key name to value, as `PassDocument.links` holds them), in
    /// `PassLinkKey` order.
    package static func list(_ links: [String: String]) -> [PassLink] {
        PassLinkKey.allCases.compactMap { key in links[key.rawValue].map { PassLink(key: key, value: $0) } }
    }

    /// Whether a web link may be shown as a link: only `https` (never `http:`, `javascript:`,
    /// `data:` or a scheme of the issuer's app). E-mail addresses and phone numbers are text.
    package var isSafeWebLink: Bool { key.kind == .web && FeaturedAction.scheme(of: value) == "https" }
}
