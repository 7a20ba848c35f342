/// The wallet's address as browsers reach it: `https://wallet.example.org` or
/// `https://wallet.example.org:8443` (`--public-url`), or what a request says (its Host, and its
/// scheme: TLS, a trusted proxy's `X-Forwarded-Proto`/`Forwarded: proto=`, else plain http on
/// loopback). The cookie's `Secure` flag and `__Host-` prefix, every absolute link (the calendar
/// address, the API example) and the Origin check follow it.
package struct PublicOrigin: Sendable, Equatable, CustomStringConvertible {
    /// "https" or "http".
    package var scheme: String
    /// HOST or HOST:PORT as browsers write it in `Origin` (no default port).
    package var authority: String

    package init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    package var secure: Bool { scheme == "https" }
    package var description: String { scheme + "://" + authority }

    /// `https://HOST[:PORT][/]` or `http://HOST[:PORT][/]`: an origin, with no user, path, query
    /// or fragment (the wallet lives at the root of its address).
    package static func parse(_ text: String) throws(WebSetupError) -> PublicOrigin {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") { scheme = "https" } else if lower.hasPrefix("http://") { scheme = "http" } else {
            throw WebSetupError("--public-url takes https://HOST[:PORT] (the address people open), not “\(text)”")
        }
        var rest = Substring(lower.dropFirst(scheme.count + 3))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains(where: { "/?#@\\ ".contains($0) }) else {
            throw WebSetupError("--public-url names only an origin, https://HOST[:PORT], with no user, path or query: “\(text)”")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let (host, port) = try HostPort.split(rest, defaultPort: defaultPort, what: "--public-url")
        guard port > 0 else { throw WebSetupError("--public-url: port 0 is no address a browser can open") }
        let shown = host.contains(":") ? "[\(host)]" : host
        return PublicOrigin(scheme: scheme, authority: port == defaultPort ? shown : "\(shown):\(port)")
    }
}
