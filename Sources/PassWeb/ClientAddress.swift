import Foundation
import HTTPTypes
#if canImport(Glibc)
import Glibc
#endif
import Support

/// Who a request comes from, for sign-in throttling and the request log: the peer's address,
/// or, when the peer is a trusted proxy (`--trusted-proxy ADDR[/BITS]`, or `--trusted-proxy unix`
/// for the proxy on a Unix-socket listener, whose peer has no address), the address that proxy
/// names: the last entry of `X-Forwarded-For`, else the last `for=` of `Forwarded` (RFC 7239): the
/// hop the trusted proxy itself added; entries before it are the client's to write. A trusted
/// proxy that names nobody, or names something that is not an address, gives no address (nil):
/// never its own, which every client would share.
struct ClientAddress {
    var trusted: [AddressRange]
    var socketTrusted: Bool

    func of(_ headers: HTTPFields, peer: String?) -> String? {
        if let peer {
            guard trusted.contains(where: { $0.contains(peer) }) else { return Self.plain(peer) }
        } else if !socketTrusted {
            return nil
        }
        return Self.forwarded(headers)
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwardedName = HTTPField.Name("Forwarded")!

    /// The last hop a proxy put in `X-Forwarded-For` or `Forwarded`, if it is an IP address.
    static func forwarded(_ headers: HTTPFields) -> String? {
        if let last = headers[values: forwardedFor].last {
            let hop = last.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return plain(hop)
        }
        guard var value = lastHop("for", of: headers) else { return nil }
        // "[2001:db8::1]:4711" or "192.0.2.60:4711": the address without its port.
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            value = String(value[value.index(after: value.startIndex)..<close])
        } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            value = String(value[..<colon])
        }
        return plain(value)
    }

    /// A parameter (`for`, `proto`) of the last element of `Forwarded` (RFC 7239), unquoted: the
    /// hop the trusted proxy added; the elements before it are the client's to write.
    static func lastHop(_ parameter: String, of headers: HTTPFields) -> String? {
        guard let last = headers[values: forwardedName].last, let element = last.split(separator: ",").last else { return nil }
        for pair in element.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces).lowercased() == parameter else { continue }
            var value = kv[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// `text` in its usual form if it is an IPv4 or IPv6 address (IPv4-mapped IPv6 as IPv4); nil otherwise.
    static func plain(_ text: String) -> String? {
        guard text.utf8.count <= 64, !text.isEmpty else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return format(AF_INET, &v4, 16) }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let b = withUnsafeBytes(of: &v6) { Array($0) }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
            return "\(b[12]).\(b[13]).\(b[14]).\(b[15])"
        }
        return format(AF_INET6, &v6, 46)
    }

    private static func format<T>(_ family: Int32, _ address: inout T, _ size: Int) -> String? {
        var buffer = [CChar](repeating: 0, count: size)
        let ok = withUnsafePointer(to: &address) { inet_ntop(family, $0, &buffer, socklen_t(size)) } != nil
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}
