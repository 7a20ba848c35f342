/// `--listen HOST:PORT`, `[IPv6]:PORT` or `unix:PATH`.
package enum ListenAddress: Sendable, Equatable, CustomStringConvertible {
    case host(String, port: Int)
    case unix(path: String)

    package static let `default` = ListenAddress.host("127.0.0.1", port: 8080)

    package static func parse(_ text: String) throws(WebSetupError) -> ListenAddress {
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard !path.isEmpty, !path.utf8.contains(0) else { throw WebSetupError("--listen unix:PATH needs a socket path") }
            return .unix(path: path)
        }
        let (host, port) = try HostPort.split(Substring(text), defaultPort: nil, what: "--listen")
        return .host(host, port: port)
    }

    /// Only this machine can connect: a loopback address, or a socket file (its folder's
    /// permissions decide who may).
    package var isLoopback: Bool {
        switch self {
        case .host(let host, _): return HostPort.isLoopbackName(host)
        case .unix: return true
        }
    }

    package var description: String {
        switch self {
        case .host(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): return "unix:" + path
        }
    }
}
