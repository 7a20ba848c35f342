import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// A client of the PassKit web service (Apple's "PassKit Web Service Reference"): fetches the
/// newest version of a pass, registers and unregisters this library as a device, and asks which
/// serial numbers changed. It moves bytes and never verifies or stores anything: the conduit
/// opens what it returns like any other pass.
///
/// Built on AsyncHTTPClient (SwiftNIO): connections to one server are pooled and reused across a
/// run. Redirects are followed only to the same scheme, host and port. The authentication token
/// travels in a header and never appears in an error, a message or a log line.
package final class WebServiceClient: Sendable {
    package struct Settings: Sendable {
        /// PEM files of extra certificate authorities to trust beside the system's store (tests,
        /// a company CA). Documented as `update --ca-file`.
        package var extraCAFiles: [String] = []
        /// Per request, head and body together.
        package var requestTimeout: TimeInterval = 10
        /// The largest body accepted: the pass size limit.
        package var maxBodyBytes: Int = 32 * 1024 * 1024
        /// Same-origin redirects followed per request.
        package var maxRedirects: Int = 3
        package var proxy: ProxySettings = ProxySettings(environment: [:])
        package var userAgent = "passconduit/0.1 (PassKit web service client)"
        /// nil: any host the pass names (`update`, the owner's own passes). Set: only what the
        /// policy lets through, on the address it checked (the web wallet, `serve`).
        package var addressPolicy: AddressPolicy?

        package init() {}
    }

    package let settings: Settings
    private let tls: TLSConfiguration
    private let direct: HTTPClient
    private let proxied: [ProxySettings.Server: HTTPClient]

    package init(settings: Settings) throws(UpdateFailure) {
        self.settings = settings
        var tls = TLSConfiguration.makeClientConfiguration()
        if !settings.extraCAFiles.isEmpty {
            for file in settings.extraCAFiles {
                guard FileManager.default.isReadableFile(atPath: file),
                      (try? NIOSSLCertificate.fromPEMFile(file))?.isEmpty == false else {
                    throw UpdateFailure(.badURL, "The extra certificate authority file cannot be read.",
                                        detail: "\(file): not a readable PEM certificate file")
                }
            }
            tls.additionalTrustRoots = settings.extraCAFiles.map { .file($0) }
        }
        self.tls = tls
        func make(_ proxy: ProxySettings.Server?) -> HTTPClient { Self.makeClient(settings, tls: tls, proxy: proxy) }
        direct = make(nil)
        var byServer: [ProxySettings.Server: HTTPClient] = [:]
        for server in [settings.proxy.https, settings.proxy.http].compactMap({ $0 }) where byServer[server] == nil {
            byServer[server] = make(server)
        }
        proxied = byServer
    }

    /// One HTTP client: no redirects followed by itself, the per-request timeouts, the proxy;
    /// `dnsOverride` pins host names to addresses already checked (TLS still checks the name).
    static func makeClient(_ settings: Settings, tls: TLSConfiguration, proxy: ProxySettings.Server?,
                           dnsOverride: [String: String] = [:]) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(Int64(settings.requestTimeout)), read: .seconds(Int64(settings.requestTimeout))),
            proxy: proxy.map { p in
                let auth: HTTPClient.Authorization? = p.user.map { .basic(username: $0.removingPercentEncoding ?? $0,
                                                                          password: (p.password ?? "").removingPercentEncoding ?? "") }
                return .server(host: p.host, port: p.port, authorization: auth)
            },
            decompression: .disabled)
        configuration.httpVersion = .http1Only
        configuration.dnsOverride = dnsOverride
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes every pooled connection. Call once, when the run is over.
    package func shutdown() async {
        try? await direct.shutdown()
        for client in proxied.values { try? await client.shutdown() }
    }

    // MARK: - The protocol

    /// `GET {webServiceURL}/v1/passes/{type}/{serial}`, conditional on what the library stored.
    /// `unconditional` drops the conditions (the server listed this serial as changed, and a
    /// same-second change would otherwise read as 304).
    package func fetchPass(_ service: WebServiceURL, passTypeIdentifier: String, serialNumber: String, token: String,
                           lastModified: String?, etag: String?, unconditional: Bool = false,
                           deadline: ContinuousClock.Instant) async throws(UpdateFailure) -> PassFetch {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "ApplePass " + token)
        // No Accept header: django-walletpass's DRF view answers 406 to
        // "application/vnd.apple.pkpass"; Wallet sends none of its own either.
        if !unconditional {
            if let lastModified, !lastModified.isEmpty { headers.add(name: "If-Modified-Since", value: lastModified) }
            if let etag, !etag.isEmpty { headers.add(name: "If-None-Match", value: etag) }
        }
        let url = service.url(["passes", passTypeIdentifier, serialNumber])
        let response = try await send(.GET, url, service: service, headers: headers, body: nil, deadline: deadline)
        let lm = response.headers.first(name: "Last-Modified")
        let tag = response.headers.first(name: "ETag")
        switch response.status {
        case 200:
            guard !response.body.isEmpty else {
                throw UpdateFailure(.badResponse, "The issuer's server answered with an empty pass.",
                                    detail: "GET \(service.origin)…: 200 with an empty body", http: 200)
            }
            return .updated(bytes: response.body, lastModified: lm, etag: tag)
        case 304:
            return .notModified(lastModified: lm ?? lastModified, etag: tag ?? etag)
        default:
            throw Self.failure(for: response, url: url, service: service, what: "pass")
        }
    }

    /// `POST …/v1/devices/{device}/registrations/{type}/{serial}` with a pushToken (a Linux
    /// library has no APNs token; the protocol requires the key, so it sends its device id).
    /// Returns 201 (new) or 200 (already registered).
    package func register(_ service: WebServiceURL, device: String, passTypeIdentifier: String, serialNumber: String,
                          token: String, deadline: ContinuousClock.Instant) async throws(UpdateFailure) -> Int {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "ApplePass " + token)
        headers.add(name: "Content-Type", value: "application/json")
        let body = Array("{\"pushToken\":\"\(device)\"}".utf8)
        let url = service.url(["devices", device, "registrations", passTypeIdentifier, serialNumber])
        let response = try await send(.POST, url, service: service, headers: headers, body: body, deadline: deadline)
        guard response.status == 200 || response.status == 201 else {
            throw Self.failure(for: response, url: url, service: service, what: "registration")
        }
        return response.status
    }

    /// `DELETE …/v1/devices/{device}/registrations/{type}/{serial}`.
    package func unregister(_ service: WebServiceURL, device: String, passTypeIdentifier: String, serialNumber: String,
                            token: String, deadline: ContinuousClock.Instant) async throws(UpdateFailure) -> Int {
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "ApplePass " + token)
        let url = service.url(["devices", device, "registrations", passTypeIdentifier, serialNumber])
        let response = try await send(.DELETE, url, service: service, headers: headers, body: nil, deadline: deadline)
        // 404: the server does not know the pass any more, so there is nothing left to undo.
        guard response.status == 200 || response.status == 204 || response.status == 404 || response.status == 410 else {
            throw Self.failure(for: response, url: url, service: service, what: "unregistration")
        }
        return response.status
    }

    /// `GET …/v1/devices/{device}/registrations/{type}?passesUpdatedSince={tag}`. The tag is the
    /// server's own `lastUpdated`, sent back exactly (percent-encoded); without one, no query.
    /// 204 and 400 (django-walletpass's "nothing registered") both mean "no list".
    package func updatedSerials(_ service: WebServiceURL, device: String, passTypeIdentifier: String, tag: String?,
                                deadline: ContinuousClock.Instant) async throws(UpdateFailure) -> SerialList {
        var headers = HTTPHeaders()
        // A 204 may carry a body (django-walletpass sends "{}"): a fresh connection, closed after.
        headers.add(name: "Connection", value: "close")
        let url = service.url(["devices", device, "registrations", passTypeIdentifier],
                              query: tag.map { [("passesUpdatedSince", $0)] } ?? [])
        let response = try await send(.GET, url, service: service, headers: headers, body: nil, deadline: deadline,
                                      maxBody: 4 * 1024 * 1024)
        switch response.status {
        case 200:
            guard let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                  let serials = object["serialNumbers"] as? [Any] else {
                throw UpdateFailure(.badResponse, "The issuer's server sent an unreadable list of changed passes.",
                                    detail: "GET \(service.origin)…/registrations/…: 200 without a serialNumbers array", http: 200)
            }
            let lastUpdated: String? = (object["lastUpdated"] as? String) ?? (object["lastUpdated"] as? NSNumber)?.stringValue
            return .changed(serials: serials.compactMap { $0 as? String }, lastUpdated: lastUpdated)
        case 204:
            return .nothing(http: 204)
        case 400:
            return .nothing(http: 400)
        default:
            throw Self.failure(for: response, url: url, service: service, what: "list of changed passes")
        }
    }

    // MARK: - Transport

    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    private func client(for service: WebServiceURL) -> HTTPClient {
        guard let server = settings.proxy.server(scheme: service.scheme, host: service.host) else { return direct }
        return proxied[server] ?? direct
    }

    /// One request, following same-origin redirects; the body is read up to `maxBody` bytes.
    /// Under an address policy, on a client of its own pinned to the address the policy checked.
    private func send(_ method: HTTPMethod, _ url: String, service: WebServiceURL, headers: HTTPHeaders, body: [UInt8]?,
                      deadline: ContinuousClock.Instant, maxBody: Int? = nil) async throws(UpdateFailure) -> Response {
        guard let policy = settings.addressPolicy, let pinned = try await policy.target(service) else {
            return try await exchange(method, url, service: service, headers: headers, body: body, deadline: deadline, maxBody: maxBody,
                                      client: client(for: service))
        }
        let client = Self.makeClient(settings, tls: tls, proxy: settings.proxy.server(scheme: service.scheme, host: service.host),
                                     dnsOverride: pinned)
        do throws(UpdateFailure) {
            let response = try await exchange(method, url, service: service, headers: headers, body: body, deadline: deadline,
                                              maxBody: maxBody, client: client)
            try? await client.shutdown()
            return response
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func exchange(_ method: HTTPMethod, _ url: String, service: WebServiceURL, headers: HTTPHeaders, body: [UInt8]?,
                          deadline: ContinuousClock.Instant, maxBody: Int?, client: HTTPClient) async throws(UpdateFailure) -> Response {
        var current = url
        let limit = maxBody ?? settings.maxBodyBytes
        for _ in 0...settings.maxRedirects {
            // On the monotonic clock: a wall-clock step neither stretches nor cuts a request.
            let now = ContinuousClock.now
            let perRequest = now + .milliseconds(Int64(settings.requestTimeout * 1000))
            let until = min(perRequest, deadline)
            guard until > now else {
                throw UpdateFailure(.timeout, "This update run ran out of time before the issuer's server was asked.",
                                    detail: "the run's time limit was reached")
            }
            var request = HTTPClientRequest(url: current)
            request.method = method
            request.headers = headers
            request.headers.replaceOrAdd(name: "User-Agent", value: settings.userAgent)
            if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
            let left = now.duration(to: until).components
            let nioDeadline = NIODeadline.now() + .nanoseconds(left.seconds * 1_000_000_000 + left.attoseconds / 1_000_000_000)
            let response: Response
            do {
                let r = try await client.execute(request, deadline: nioDeadline)
                let status = Int(r.status.code)
                if let declared = r.headers.first(name: "Content-Length").flatMap({ Int($0) }), declared > limit {
                    throw UpdateFailure(.tooLarge, "The issuer's server sent more than a pass can be.",
                                        detail: "\(method) \(service.origin)…: Content-Length \(declared) > limit \(limit)", http: status)
                }
                var bytes: [UInt8] = []
                for try await chunk in r.body {
                    guard bytes.count + chunk.readableBytes <= limit else {
                        throw UpdateFailure(.tooLarge, "The issuer's server sent more than a pass can be.",
                                            detail: "\(method) \(service.origin)…: body over the limit of \(limit) bytes", http: status)
                    }
                    bytes.append(contentsOf: chunk.readableBytesView)
                    if ContinuousClock.now > until {
                        throw UpdateFailure(.timeout, "The issuer's server did not answer in time; try again later.",
                                            detail: "\(method) \(service.origin)…: body not complete after \(Int(settings.requestTimeout)) s", http: status)
                    }
                }
                response = Response(status: status, headers: r.headers, body: bytes)
            } catch let failure as UpdateFailure {
                throw failure
            } catch {
                throw Self.transportFailure(error, method: method, service: service)
            }
            guard [301, 302, 303, 307, 308].contains(response.status) else { return response }
            guard let location = response.headers.first(name: "Location"),
                  let resolved = URL(string: location, relativeTo: URL(string: current))?.absoluteURL,
                  let target = URLComponents(url: resolved, resolvingAgainstBaseURL: true) else {
                throw UpdateFailure(.badResponse, "The issuer's server sent a redirect without a target.",
                                    detail: "\(method) \(service.origin)…: \(response.status) without a usable Location", http: response.status)
            }
            guard service.sameOrigin(target) else {
                throw UpdateFailure(.redirectRefused, "The issuer's server redirected to another host, which is not followed.",
                                    detail: "\(method) \(service.origin)…: \(response.status) to \(target.scheme ?? "?")://\(target.host ?? "?")",
                                    http: response.status)
            }
            current = target.string ?? current
        }
        throw UpdateFailure(.redirectRefused, "The issuer's server redirected too many times.",
                            detail: "more than \(settings.maxRedirects) redirects", http: nil)
    }

    static func failure(for response: Response, url: String, service: WebServiceURL, what: String) -> UpdateFailure {
        let status = response.status
        let where_ = "\(service.origin)…"
        switch status {
        case 401, 403:
            return UpdateFailure(.tokenRefused, "The issuer refused this pass's token.", detail: "\(where_): \(status) for the \(what)", http: status)
        case 404, 410:
            return UpdateFailure(.passGone, "The issuer no longer knows this pass (it stays in your library).",
                                 detail: "\(where_): \(status) for the \(what)", http: status)
        case 429, 500...599:
            let retry = HTTPDate.retryAfter(response.headers.first(name: "Retry-After"), now: Date())
            var detail = "\(where_): \(status) for the \(what)"
            if let retry { detail += "; Retry-After until \(ISO8601DateFormatter().string(from: retry))" }
            return UpdateFailure(.tryLater, "The issuer's server is busy or failing; try again later.", detail: detail,
                                 http: status, retryAfter: retry)
        default:
            return UpdateFailure(.badResponse, "The issuer's server gave an answer the protocol does not allow.",
                                 detail: "\(where_): \(status) for the \(what)", http: status)
        }
    }

    static func transportFailure(_ error: any Error, method: HTTPMethod, service: WebServiceURL) -> UpdateFailure {
        let text = String(describing: error)
        let detail = "\(method) \(service.origin)…: \(text.prefix(300))"
        if let e = error as? HTTPClientError {
            switch e {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return UpdateFailure(.timeout, "The issuer's server did not answer in time; try again later.", detail: detail)
            case .remoteConnectionClosed:
                return UpdateFailure(.unreachable, "The issuer's server closed the connection before the answer was complete; try again later.",
                                     detail: detail)
            default:
                break
            }
        }
        let lower = text.lowercased()
        if lower.contains("certificate") || lower.contains("handshake") || lower.contains("verify") {
            return UpdateFailure(.unreachable, "Could not make a trusted secure connection to the issuer's server.", detail: detail)
        }
        if lower.contains("connection refused") || lower.contains("econnrefused") {
            return UpdateFailure(.unreachable, "The issuer's server refused the connection (nothing answers at its address now); try again later.",
                                 detail: detail)
        }
        if error is NIOSSLError || lower.contains("reset") || lower.contains("closed") || lower.contains("eof") {
            return UpdateFailure(.unreachable, "The issuer's server broke off the connection before the answer was complete; try again later.",
                                 detail: detail)
        }
        if error is NIOTooManyBytesError {
            return UpdateFailure(.tooLarge, "The issuer's server sent more than a pass can be.", detail: detail)
        }
        return UpdateFailure(.unreachable, "Could not reach the issuer's server; try again later.", detail: detail)
    }
}

/// What a conditional GET of a pass found.
package enum PassFetch: Sendable, Equatable {
    case updated(bytes: [UInt8], lastModified: String?, etag: String?)
    case notModified(lastModified: String?, etag: String?)
}

/// What `passesUpdatedSince` said.
package enum SerialList: Sendable, Equatable {
    /// 200: these serials changed; `lastUpdated` is the tag for next time (nil if the server gave none).
    case changed(serials: [String], lastUpdated: String?)
    /// 204, or django-walletpass's 400: no list.
    case nothing(http: Int)
}
