import Foundation
import Support

/// A share link as the library keeps it (issue 42 item 2): anyone holding its secret may fetch
/// the pass's current bytes (`serve`'s `/s/…`) until it expires, is revoked or, for a
/// one-download link, was used once. The library keeps only the secret's SHA-256; the secret is
/// shown once, by whatever made the link. The link names the pass by its id, so it follows the
/// pass across updates (and answers nothing once the pass is removed).
package struct ShareLink: Sendable, Equatable {
    /// The link's number in its library, for listing and revoking (not secret; never reused).
    package var id: Int64
    package var passID: PassID
    package var created: Date
    package var expires: Date
    package var oneDownload: Bool
    package var revoked: Bool
    package var uses: Int
    package var lastUsed: Date?

    package init(id: Int64, passID: PassID, created: Date, expires: Date, oneDownload: Bool, revoked: Bool, uses: Int, lastUsed: Date?) {
        self.id = id
        self.passID = passID
        self.created = created
        self.expires = expires
        self.oneDownload = oneDownload
        self.revoked = revoked
        self.uses = uses
        self.lastUsed = lastUsed
    }

    /// What a link is now, for lists. Only `live` links are served.
    package enum State: String, Sendable {
        case live, expired, revoked, used = "used-up"
    }

    package func state(at now: Date) -> State {
        if revoked { return .revoked }
        if oneDownload && uses > 0 { return .used }
        if now >= expires { return .expired }
        return .live
    }

    /// Links last 7 days unless asked otherwise.
    package static let defaultDays = 7
    /// A link made to expire expires within this many days.
    package static let maxDays = 365

    /// 128 random bits as 22 base64url characters (no padding).
    package static func newSecret() -> String {
        var g = SystemRandomNumberGenerator()
        return base64URL((0..<16).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// What a library keeps of a secret.
    package static func hash(_ secret: String) -> String { Digest.sha256Hex(Array(secret.utf8)) }

    /// Whether `text` can be a secret `newSecret` made (22 base64url characters whose last one
    /// carries only 2 bits): anything else is nobody's, without a lookup.
    package static func wellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 22, bytes.allSatisfy(isBase64URL) else { return false }
        return "AQgw".utf8.contains(bytes[21])
    }

    static func isBase64URL(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }

    /// The link's path on a `serve` wallet: `/s/SECRET` where the wallet keeps one library (a
    /// desktop `serve`), `/s/OWNER.SECRET` where it keeps one per mailbox (`--library-map`, a
    /// PostgreSQL server's users): OWNER is the mailbox address in base64url, not secret, so the
    /// wallet finds the owner's library without a lookup table of every link.
    package static func path(secret: String, owner: String?) -> String {
        guard let owner, !owner.isEmpty else { return "/s/" + secret }
        return "/s/" + base64URL(Array(owner.utf8)) + "." + secret
    }

    /// The owner (nil: none named) and secret of the last segment of a `/s/` path; nil for a
    /// segment no link has.
    package static func parse(_ segment: Substring) -> (owner: String?, secret: String)? {
        guard let dot = segment.lastIndex(of: ".") else {
            return wellFormed(String(segment)) ? (nil, String(segment)) : nil
        }
        let secret = String(segment[segment.index(after: dot)...])
        let ownerText = segment[..<dot]
        guard wellFormed(secret), !ownerText.isEmpty, ownerText.utf8.count <= 400, ownerText.utf8.allSatisfy(isBase64URL),
              let bytes = fromBase64URL(String(ownerText)), let owner = String(validating: bytes, as: UTF8.self),
              !owner.isEmpty, base64URL(bytes) == ownerText else { return nil }
        return (owner, secret)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func fromBase64URL(_ text: String) -> [UInt8]? {
        var t = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while t.utf8.count % 4 != 0 { t += "=" }
        return Data(base64Encoded: t).map { [UInt8]($0) }
    }
}
