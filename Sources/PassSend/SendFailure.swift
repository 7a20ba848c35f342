import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Why `send` cannot listen: one sentence naming the address and port, from the socket's errno.
package struct SendFailure: Error, Sendable, CustomStringConvertible {
    package let description: String
    /// The errno of the failed call, when there was one.
    package let code: Int32?

    init(bindError error: Error, host: String, port: Int) {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let place = port == 0 ? "\(shownHost) (any free port)" : "\(shownHost) port \(port)"
        guard let io = error as? IOError else {
            description = "cannot listen on \(place): \(error)"
            code = nil
            return
        }
        code = io.errnoCode
        switch io.errnoCode {
        case EADDRINUSE:
            description = "cannot listen on \(place): another program already uses that port; choose another with --port, or leave --port out for any free one"
        case EADDRNOTAVAIL:
            description = "cannot listen on \(place): no network interface of this computer has that address (see: ip address)"
        case EACCES, EPERM:
            description = "cannot listen on \(place): ports below 1024 need administrator rights; choose a port of 1024 or more with --port"
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            description = "cannot listen on \(place): this computer has no \(host.contains(":") ? "IPv6" : "IPv4") networking"
        default:
            description = "cannot listen on \(place): \(String(cString: strerror(io.errnoCode)))"
        }
    }
}
