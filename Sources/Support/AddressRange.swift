#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 network, `ADDR[/BITS]`: the web wallet's `--trusted-proxy`, the milter's
/// `--allow`. IPv4-mapped IPv6 peers (::ffff:192.0.2.1) match IPv4 ranges.
package struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes.
    var network: [UInt8]
    var bits: Int

    /// A range that cannot be parsed: the sentence names the option it came from.
    package struct ParseError: Error, CustomStringConvertible {
        package var description: String
    }

    /// `text` as a range; `option` (`--allow`) starts the sentence when it is not one.
    package static func parse(_ text: String, option: String) throws(ParseError) -> AddressRange {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.bytes(String(parts[0])) else {
            throw ParseError(description: "\(option): “\(text)” is not an IP address or network (ADDR or ADDR/BITS, no host names)")
        }
        var bits = address.count * 8
        if parts.count == 2 {
            guard let b = Int(parts[1]), (0...address.count * 8).contains(b) else {
                throw ParseError(description: "\(option): “\(parts[1])” is not a prefix length for \(parts[0]) (0 to \(address.count * 8))")
            }
            bits = b
        }
        return AddressRange(network: address, bits: bits)
    }

    /// The address's bytes, IPv4 as 4 and IPv6 as 16; nil when `text` is neither.
    static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    package func contains(_ address: String) -> Bool {
        guard var peer = Self.bytes(address) else { return false }
        if peer.count == 16 && network.count == 4 && peer[0..<10].allSatisfy({ $0 == 0 }) && peer[10] == 0xFF && peer[11] == 0xFF {
            peer = Array(peer[12...])
        }
        guard peer.count == network.count else { return false }
        var left = bits
        for i in 0..<peer.count where left > 0 {
            let n = min(left, 8)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - n))
            if peer[i] & mask != network[i] & mask { return false }
            left -= n
        }
        return true
    }

    package var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        let family = network.count == 4 ? AF_INET : AF_INET6
        _ = network.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, 64) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(bits)"
    }
}
