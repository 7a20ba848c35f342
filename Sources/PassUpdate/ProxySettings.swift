import Foundation

/// The proxy a request goes through, chosen as curl does: `https_proxy`/`HTTPS_PROXY` for https,
/// `http_proxy` (lower case only, as curl) for http, else `all_proxy`/`ALL_PROXY`; none when the
/// host matches `no_proxy`/`NO_PROXY` (`*`, a host name or any of its subdomains, with or without
/// a leading dot, or an IP address literal).
package struct ProxySettings: Sendable, Equatable {
    package struct Server: Sendable, Hashable {
        package var host: String
        package var port: Int
        package var user: String?
        package var password: String?
    }

    package var https: Server?
    package var http: Server?
    package var noProxy: [String]

    package init(environment: [String: String]) {
        func server(_ names: [String]) -> Server? {
            for name in names {
                if let value = environment[name], !value.isEmpty { return Self.parse(value) }
            }
            return nil
        }
        let all = ["all_proxy", "ALL_PROXY"]
        https = server(["https_proxy", "HTTPS_PROXY"] + all)
        http = server(["http_proxy"] + all)
        noProxy = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// `[http://][user[:password]@]host[:port]`; port 1080 when absent, as curl.
    static func parse(_ text: String) -> Server? {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let c = URLComponents(string: withScheme), let host = c.host, !host.isEmpty else { return nil }
        guard ["http", "https"].contains(c.scheme?.lowercased() ?? "") else { return nil }
        return Server(host: host, port: c.port ?? 1080, user: c.user, password: c.password)
    }

    package func server(scheme: String, host: String) -> Server? {
        let chosen = scheme == "https" ? https : http
        guard let chosen else { return nil }
        let h = host.lowercased()
        for entry in noProxy {
            if entry == "*" { return nil }
            let e = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            let bare = e.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if h == bare || h.hasSuffix("." + bare) { return nil }
        }
        return chosen
    }
}
