#if canImport(Glibc)
import Glibc
#endif

/// A `send --bind` value read strictly: an IPv4 address ("192.168.1.20"), an IPv6 address
/// ("fe80::1", or "[::1]" in brackets), either with a port ("127.0.0.1:8080", "[::1]:8080").
/// Host names are not resolved: the address printed in the QR code must be the one listened on.
package struct BindAddress: Sendable, Equatable {
    /// The address as text, without brackets.
    package var host: String
    /// The port written after the address, if any.
    package var port: Int?

    /// Whether it names every address of this computer (0.0.0.0 or ::): no phone can open that,
    /// so the URL must carry another one.
    package var isUnspecified: Bool {
        if Self.isIPv4(host) { return Self.ipv4Bytes(host) == [0, 0, 0, 0] }
        var raw = in6_addr()
        return inet_pton(AF_INET6, host, &raw) == 1 && withUnsafeBytes(of: &raw) { $0.allSatisfy { $0 == 0 } }
    }

    package var isIPv6: Bool { !Self.isIPv4(host) }

    /// nil with the reason as a sentence when `text` is not an address.
    package static func parse(_ text: String) -> Result<BindAddress, BindAddressProblem> {
        var host = Substring(text)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                return .failure(BindAddressProblem("“\(text)” is not an address: an IPv6 address in “[” lacks its “]”"))
            }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.hasPrefix(":") { port = after.dropFirst() }
            else if !after.isEmpty {
                return .failure(BindAddressProblem("“\(text)” is not an address: unexpected “\(after)” after “]”"))
            }
            guard isIPv6(String(host)) else {
                return .failure(BindAddressProblem("“\(text)” is not an address: “\(host)” is not an IPv6 address"))
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
            guard isIPv4(String(host)) else {
                return .failure(BindAddressProblem("“\(text)” is not an address: give an IPv4 address such as 192.168.1.20, or an IPv6 one such as [fe80::1]"))
            }
        } else if !isIPv4(String(host)) && !isIPv6(String(host)) {
            return .failure(BindAddressProblem("“\(text)” is not an address: give an IPv4 address such as 192.168.1.20, or an IPv6 one such as fe80::1 (names are not looked up)"))
        }
        var number: Int?
        if let port {
            guard let n = Int(port), (1...65_535).contains(n), port.allSatisfy(\.isASCII) else {
                return .failure(BindAddressProblem("“\(text)”: the port “\(port)” is not a number from 1 to 65535"))
            }
            number = n
        }
        return .success(BindAddress(host: String(host), port: number))
    }

    static func isIPv4(_ text: String) -> Bool { ipv4Bytes(text) != nil }

    /// Four dotted decimals, as inet_pton(AF_INET) reads them (no octal, no short forms).
    static func ipv4Bytes(_ text: String) -> [UInt8]? {
        var raw = in_addr()
        guard inet_pton(AF_INET, text, &raw) == 1 else { return nil }
        return withUnsafeBytes(of: &raw) { Array($0) }
    }

    static func isIPv6(_ text: String) -> Bool {
        var raw = in6_addr()
        return inet_pton(AF_INET6, text, &raw) == 1
    }
}

/// Why a `--bind` value is not an address: a sentence for the user.
package struct BindAddressProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
