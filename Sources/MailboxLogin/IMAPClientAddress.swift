/// The visitor a sign-in is checked for, as the IMAP `ID` command tells the server (RFC 2971,
/// the `x-originating-ip` / `x-originating-port` fields Roundcube sends): Dovecot then logs that
/// address (`rip=`) and counts its authentication penalty against it, not against the web
/// wallet's own address — when the wallet's address is in Dovecot's `login_trusted_networks`
/// (from anyone else it ignores the fields).
package struct IMAPClientAddress: Sendable, Equatable {
    package var address: String
    package var port: Int?

    /// Nil unless `address` is an IPv4 or IPv6 address as text (digits, hex, `.` and `:`), so
    /// nothing else can reach the command.
    package init?(address: String, port: Int?) {
        guard !address.isEmpty, address.utf8.count <= 45,
              address.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
                  || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") }),
              address.contains(".") || address.contains(":")
        else { return nil }
        self.address = address
        self.port = port.flatMap { (1...65535).contains($0) ? $0 : nil }
    }

    /// The `ID` command's parameter list.
    var idParameters: String {
        var fields = "\"x-originating-ip\" \"\(address)\""
        if let port { fields += " \"x-originating-port\" \"\(port)\"" }
        return "(" + fields + ")"
    }
}
