import Foundation

/// A pass's `webServiceURL`, checked and ready to join: https, or http only to a loopback host
/// (a developer's server). Every request of a pass goes to this scheme, host and port only.
package struct WebServiceURL: Sendable, Hashable, CustomStringConvertible {
    package let scheme: String
    /// Lowercased; IPv6 literals without brackets.
    package let host: String
    package let port: Int
    /// The path with no trailing slash ("" for the root), kept percent-encoded as written.
    package let path: String

    /// What the pass said, for messages (never carries the token: that is a header).
    package var description: String { origin + path }

    /// scheme://host[:port], brackets around an IPv6 literal.
    package var origin: String {
        let h = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return port == defaultPort ? "\(scheme)://\(h)" : "\(scheme)://\(h):\(port)"
    }

    package init(_ text: String) throws(UpdateFailure) {
        // A scheme that is not the web's (file:, ftp:, mailto:) says so, whether or not it has a host.
        if let c = URLComponents(string: text.trimmingCharacters(in: .whitespaces)), let scheme = c.scheme?.lowercased(),
           scheme != "https", scheme != "http" {
            throw UpdateFailure(.badURL, "The pass's update address is not a web address.",
                                detail: "webServiceURL scheme “\(scheme)” is neither https nor http")
        }
        guard let c = URLComponents(string: text.trimmingCharacters(in: .whitespaces)),
              let scheme = c.scheme?.lowercased(), let rawHost = c.host, !rawHost.isEmpty else {
            throw UpdateFailure(.badURL, "The pass's update address is not a usable web address.",
                                detail: "webServiceURL “\(text.prefix(200))” does not parse as an absolute URL")
        }
        let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        switch scheme {
        case "https":
            break
        case "http":
            guard Self.isLoopback(host) else {
                throw UpdateFailure(.insecureURL, "The pass's update address is not secure (http://), so it is not contacted.",
                                    detail: "webServiceURL \(scheme)://\(host): plain http is allowed only for loopback hosts")
            }
        default:
            throw UpdateFailure(.badURL, "The pass's update address is not a web address.",
                                detail: "webServiceURL scheme “\(scheme)” is neither https nor http")
        }
        guard c.user == nil, c.password == nil else {
            throw UpdateFailure(.badURL, "The pass's update address carries a user name or password, so it is not contacted.",
                                detail: "webServiceURL has userinfo")
        }
        self.scheme = scheme
        self.host = host
        self.port = c.port ?? (scheme == "https" ? 443 : 80)
        var path = c.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    /// `localhost`, 127.0.0.0/8 and ::1.
    package static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if h == "localhost" || h.hasSuffix(".localhost") || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else { return false }
        return parts[0] == "127"
    }

    /// `{webServiceURL}/v1/{components…}`: one slash between, each component percent-encoded,
    /// no trailing slash (the peer's routes have none).
    package func url(_ components: [String], query: [(String, String)] = []) -> String {
        var out = origin + path + "/v1"
        for part in components { out += "/" + PercentEncoding.pathComponent(part) }
        if !query.isEmpty {
            out += "?" + query.map { PercentEncoding.queryValue($0.0) + "=" + PercentEncoding.queryValue($0.1) }
                .joined(separator: "&")
        }
        return out
    }

    /// Same scheme, host and port: the only place a redirect may lead.
    package func sameOrigin(_ other: URLComponents) -> Bool {
        guard let s = other.scheme?.lowercased(), let h = other.host?.lowercased() else { return false }
        let p = other.port ?? (s == "https" ? 443 : 80)
        return s == scheme && h.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) == host && p == port
    }
}

/// RFC 3986 percent-encoding of what goes into a path segment or a query value: everything but
/// the unreserved characters, so "/" in a serial number, "+" and ":" in an update tag are escaped.
package enum PercentEncoding {
    private static let unreserved: Set<UInt8> = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))

    package static func pathComponent(_ text: String) -> String { encode(text) }
    package static func queryValue(_ text: String) -> String { encode(text) }

    static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(UnicodeScalar(hex[Int(byte & 0xF)]))
            }
        }
        return out
    }
}
