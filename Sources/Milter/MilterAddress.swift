/// Where the daemon listens, in Postfix's and Sendmail's notation: `unix:/path` (also `local:`),
/// `inet:PORT@HOST`, `inet:PORT` (loopback), `inet6:PORT@HOST`.
package enum MilterAddress: Sendable, Equatable, CustomStringConvertible {
    case unix(path: String)
    case inet(host: String, port: Int)

    package init?(_ text: String) {
        if let rest = Self.strip(text, "unix:") ?? Self.strip(text, "local:") {
            guard rest.hasPrefix("/"), rest.utf8.count < 108 else { return nil }   // sun_path holds 108 bytes
            self = .unix(path: rest)
            return
        }
        guard let rest = Self.strip(text, "inet:") ?? Self.strip(text, "inet6:") else { return nil }
        let parts = rest.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let port = Int(parts[0]), (0...65535).contains(port) else { return nil }
        var host = parts.count > 1 ? String(parts[1]) : "127.0.0.1"
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self = .inet(host: host, port: port)
    }

    private static func strip(_ text: String, _ prefix: String) -> String? {
        text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : nil
    }

    package var description: String {
        switch self {
        case .unix(let path): return "unix:\(path)"
        case .inet(let host, let port): return "inet:\(port)@\(host)"
        }
    }
}
