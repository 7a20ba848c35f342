import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the web wallet's "Check for update" may connect. On a desktop (`passconduit update`) a
/// pass's web service is its owner's business, and plain http to loopback reaches a developer's
/// test server. In `serve` the pass comes from any signed-in person and the request leaves from
/// the server, inside its network: only https, and only to public addresses, checked on the
/// address the name resolves to (the connection then goes to that very address, so a name that
/// answers differently the second time gains nothing). Loopback, private (RFC 1918, ULA),
/// shared (CGNAT 100.64/10), link-local, multicast, reserved and documentation ranges are
/// refused, also inside IPv4-mapped, NAT64 and 6to4 IPv6 addresses. An operator's own test server
/// is let through by name (`serve --update-allow-host HOST`), then as `update` would reach it.
package struct AddressPolicy: Sendable, Equatable {
    /// Hosts (lower-case names or literal addresses) contacted as `update` contacts them.
    package var allowedHosts: Set<String>

    package init(allowedHosts: Set<String> = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) })
    }

    /// How to reach `service`: nil for an allowed host (as `update` does); otherwise the DNS
    /// override that pins the connection to the checked address (empty for a literal address).
    /// A sentence when it must not be contacted.
    func target(_ service: WebServiceURL) async throws(UpdateFailure) -> [String: String]? {
        if allowedHosts.contains(service.host) { return nil }
        guard service.scheme == "https" else {
            throw UpdateFailure(.insecureURL, "The pass's update address is not secure (http://), so the server does not contact it.",
                                detail: "webServiceURL \(service.origin): passes from others are fetched over https only")
        }
        let addresses = await Self.resolve(service.host)
        guard let first = addresses.first else {
            throw UpdateFailure(.unreachable, "Could not reach the issuer's server; try again later.",
                                detail: "\(service.host): the name does not resolve to an address")
        }
        if let inner = addresses.first(where: { !Self.isPublic($0) }) {
            throw UpdateFailure(.insecureURL, "The pass's update address leads into the server's own network, which the server never contacts.",
                                detail: "webServiceURL host \(service.host) is \(inner), not a public address")
        }
        return Self.bytes(service.host) == nil ? [service.host: first] : [:]
    }

    /// The addresses `host` resolves to, as text (a literal address: itself). The lookup blocks,
    /// so it runs on a thread of its own, never on the tasks' cooperative pool.
    static func resolve(_ host: String) async -> [String] {
        if bytes(host) != nil { return [host] }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: resolveNow(host)) }
        }
    }

    static func resolveNow(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let head = list else { return [] }
        defer { freeaddrinfo(head) }
        var out: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = head
        while let info = next {
            var name = [CChar](repeating: 0, count: 1025)
            if getnameinfo(info.pointee.ai_addr, info.pointee.ai_addrlen, &name, socklen_t(name.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !out.contains(text) { out.append(text) }
            }
            next = info.pointee.ai_next
        }
        return out
    }

    /// An address's bytes, IPv4 as 4 and IPv6 as 16; nil when `text` is neither.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        let bare = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Whether `address` (text) is a public unicast address.
    static func isPublic(_ address: String) -> Bool {
        guard let b = bytes(address) else { return false }
        return isPublic(b)
    }

    static func isPublic(_ b: [UInt8]) -> Bool {
        if b.count == 4 { return !nonPublicV4.contains { within(b, $0) } }
        // IPv4 inside IPv6: mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
        if within(b, ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], 96)) || within(b, ([0, 0x64, 0xFF, 0x9B], 96)) {
            return isPublic(Array(b[12..<16]))
        }
        if within(b, ([0x20, 0x02], 16)) { return isPublic(Array(b[2..<6])) }
        return !nonPublicV6.contains { within(b, $0) }
    }

    /// Whether `address` starts with the `bits` of `prefix` (shorter prefixes padded with zeros).
    static func within(_ address: [UInt8], _ range: (prefix: [UInt8], bits: Int)) -> Bool {
        guard (range.bits + 7) / 8 <= address.count else { return false }
        var left = range.bits
        for i in 0..<address.count where left > 0 {
            let n = min(left, 8)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - n))
            let want = i < range.prefix.count ? range.prefix[i] : 0
            if address[i] & mask != want & mask { return false }
            left -= n
        }
        return true
    }

    /// This network (0/8), RFC 1918, shared address space (100.64/10), loopback, link-local,
    /// IETF protocol assignments (192.0.0/24), the documentation and benchmarking ranges,
    /// 6to4 relays, multicast and reserved (224/3, with the broadcast address).
    static let nonPublicV4: [(prefix: [UInt8], bits: Int)] = [
        ([0], 8), ([10], 8), ([100, 64], 10), ([127], 8), ([169, 254], 16), ([172, 16], 12), ([192, 0, 0], 24),
        ([192, 0, 2], 24), ([192, 88, 99], 24), ([192, 168], 16), ([198, 18], 15), ([198, 51, 100], 24),
        ([203, 0, 113], 24), ([224], 3),
    ]

    /// ::/96 (unspecified, loopback, IPv4-compatible), discard (100::/64), local-use NAT64
    /// (64:ff9b:1::/48), documentation (2001:db8::/32), ULA (fc00::/7), link-local (fe80::/10),
    /// site-local (fec0::/10), multicast (ff00::/8).
    static let nonPublicV6: [(prefix: [UInt8], bits: Int)] = [
        ([0], 96), ([0x01, 0x00], 64), ([0, 0x64, 0xFF, 0x9B, 0, 0x01], 48), ([0x20, 0x01, 0x0D, 0xB8], 32),
        ([0xFC], 7), ([0xFE, 0x80], 10), ([0xFE, 0xC0], 10), ([0xFF], 8),
    ]
}
