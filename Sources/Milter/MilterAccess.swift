import Support

/// Who may talk to the daemon and whose mail it scans: pure decisions, so both are tested
/// without a network.
package enum MilterAccess {
    /// Whether a client at `ip` is served on an inet listener: loopback (127.0.0.0/8, ::1, and
    /// IPv4-mapped loopback) always, anything else only when an `--allow` range names it.
    /// A milter client can make any message bypass or reach the scanner and learn what the
    /// libraries hold from the headers, so it is not offered to the network by default.
    package static func admits(_ ip: String, allowed: [AddressRange]) -> Bool {
        if loopback.contains(where: { $0.contains(ip) }) { return true }
        return allowed.contains { $0.contains(ip) }
    }

    private static let loopback: [AddressRange] = ["127.0.0.0/8", "::1"].compactMap { try? AddressRange.parse($0, option: "loopback") }

    /// Whether `recipient` (`<Local@Domain>` or `local@domain`) is in one of `domains` (lower case).
    package static func isLocal(_ recipient: String, domains: Set<String>) -> Bool {
        var address = Substring(recipient)
        if address.hasPrefix("<") && address.hasSuffix(">") && address.count >= 2 { address = address.dropFirst().dropLast() }
        guard let at = address.lastIndex(of: "@") else { return false }
        return domains.contains(address[address.index(after: at)...].lowercased())
    }
}
