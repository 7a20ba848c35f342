import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// Hands each request to the wallet.
struct WebResponder: HTTPResponder {
    typealias Context = WebContext
    let app: WebApp

    func respond(to request: Request, context: WebContext) async throws -> Response {
        await app.respond(to: request, context: context)
    }
}

/// `passconduit serve`: the wallet on Hummingbird, until SIGINT or SIGTERM.
package enum WebServer {
    /// Why the server could not start or stopped, in one sentence (exit 69, or 64 for setup).
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Runs the server. `started` gets the address actually bound (the port when 0 was asked)
    /// and, in desktop mode, the sign-in link.
    package static func run(_ config: WebConfiguration, started: @escaping @Sendable (_ address: String, _ signInURL: String?) -> Void) async throws {
        try config.validate()
        let app = WebApp(config: config)
        var logger = Logger(label: "passconduit.serve")
        // Hummingbird's own messages stay out of the request log; failures come back as errors.
        logger.logLevel = .critical

        let address: BindAddress
        switch config.listen {
        case .host(let host, let port): address = .hostname(host, port: port)
        case .unix(let path): address = .unixDomainSocket(path: path)
        }
        let (headSeconds, bodySeconds) = (config.headTimeout, config.bodyTimeout)
        let http1 = HTTPServerBuilder.http1(configuration: .init(
            additionalChannelHandlers: [RequestDeadline(headSeconds: headSeconds, bodySeconds: bodySeconds)],
            idleTimeout: .seconds(Int64(config.idleTimeout))))
        let server: HTTPServerBuilder
        if let tls = config.tls {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
                let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
                server = try .tls(http1, tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
            } catch {
                throw Failure(description: "cannot load the TLS certificate or key (\(tls.certificate), \(tls.key)): \(error)")
            }
        } else {
            server = http1
        }
        let application = Application(
            responder: WebResponder(app: app),
            server: server,
            configuration: .init(address: address, serverName: nil, backlog: 256, reuseAddress: true,
                                 availableConnectionsDelegate: MaximumAvailableConnections(config.maxConnections)),
            onServerRunning: { channel in
                let bound: String
                var port: Int?
                switch config.listen {
                case .unix(let path): bound = "unix:" + path
                case .host(let host, _):
                    port = channel.localAddress?.port
                    bound = ListenAddress.host(host, port: port ?? 0).description
                }
                app.setBoundPort(port)
                var link: String?
                if config.signIn.isDesktop, let port, case .host(let host, _) = config.listen {
                    let shown = host.contains(":") ? "[\(host)]" : host
                    link = "http://\(shown):\(port)/login?token=\(app.newSignInToken())"
                }
                started(bound, link)
            },
            logger: logger)
        do {
            try await application.runService()
        } catch let error as WebSetupError {
            throw error
        } catch {
            throw Failure(description: "cannot listen on \(config.listen): \(describe(error))")
        }
    }

    /// A bind error as a person reads it.
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE: return "the address is already in use (another server listens there)"
            case EACCES: return "permission denied (ports below 1024 need privileges)"
            case EADDRNOTAVAIL: return "this machine has no such address"
            case ENOENT: return "the socket's folder does not exist"
            default: return String(cString: strerror(io.errnoCode))
            }
        }
        if error is SocketAddressError { return "the host name does not resolve to an address" }
        return "\(error)"
    }
}
