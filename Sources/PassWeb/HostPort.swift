/// HOST:PORT, [IPv6]:PORT and the loopback test shared by `--listen` and `--auth`.
enum HostPort {
    static func split(_ text: Substring, defaultPort: Int?, what: String) throws(WebSetupError) -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw WebSetupError("\(what): “\(text)” opens “[” without closing it") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw WebSetupError("\(what): “\(text)” has something after the address that is not :PORT") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            if text[..<colon].contains(":") { throw WebSetupError("\(what): write an IPv6 address in brackets, as [::1]:8080") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw WebSetupError("\(what): “\(text)” has no host") }
        if let portText {
            guard let port = Int(portText), (0...65535).contains(port), portText.allSatisfy(\.isASCII) else {
                throw WebSetupError("\(what): “\(portText)” is not a port (0 to 65535)")
            }
            return (String(host), port)
        }
        guard let defaultPort else { throw WebSetupError("\(what): “\(text)” needs a port, as 127.0.0.1:8080") }
        return (String(host), defaultPort)
    }

    /// localhost, 127.0.0.0/8 and ::1, by name (no lookup).
    static func isLoopbackName(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
