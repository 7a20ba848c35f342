import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import PassRender
import PassStore
import Support
import WalletPass

/// The web wallet's request handling: who is asking (sign-in, session), in which library
/// (theirs only), and the pages. Every object is looked up inside the signed-in user's library,
/// so another user's pass hash or offer number is simply not there (404).
package final class WebApp: @unchecked Sendable {
    let config: WebConfiguration
    private let lock = NSLock()
    /// Desktop sign-in links not used yet (SHA-256 of the token).
    private var signInTokens: Set<String> = []
    /// Group and moments of each pass, by SHA-256 (the bytes never change under a hash).
    private var timesCache: [String: PassTimes] = [:]
    /// Drawn cards by SHA-256 and languages (see `card`).
    private var cards: [String: (card: Card, validUntil: Date)] = [:]
    /// Each user's passes and offers as the list shows them (see `WebListCache`).
    let lists = WebListCache()
    /// Each pass's face on the list's stack (see `StackFaces`).
    let faces = StackFaces()
    /// Each user's change log by pass, and the library object it was read from (see `changes`).
    private var histories: [String: (library: HeldLibrary, sequence: Int64, byPass: [PassID: [ChangeEntry]])] = [:]
    /// cairo and pango are driven from one thread: this queue's, never the tasks' cooperative
    /// pool (one thread per core), where two cold draws waiting on each other held every request.
    private let renderQueue = DispatchQueue(label: "passconduit.web.render")
    /// The port actually bound (for the desktop Host check and the sign-in line).
    private var boundPort: Int?
    /// Uploads being read and checked now (`--uploads-at-once`, two per person).
    let uploads: UploadSlots

    package init(config: WebConfiguration) {
        self.config = config
        uploads = UploadSlots(atOnce: config.uploadsAtOnce, perPerson: config.uploadsPerPerson)
    }

    func cookieName(secure: Bool) -> String { secure ? "__Host-pcsid" : "pcsid" }
    /// `Secure` unless the browser talks to this machine over plain loopback HTTP: with TLS, off
    /// loopback, with an https `--public-url`, or when a trusted proxy says the browser used https.
    func secureCookies(_ request: Request, peer: String?) -> Bool {
        config.tls != nil || !config.listen.isLoopback || config.publicURL?.secure == true || forwardedScheme(request, peer: peer) == "https"
    }

    /// A new single-use desktop sign-in token.
    package func newSignInToken() -> String {
        let token = WebState.randomToken()
        lock.withLock { _ = signInTokens.insert(Digest.sha256Hex(Array(token.utf8))) }
        return token
    }

    func consumeSignInToken(_ token: String) -> Bool {
        let key = Digest.sha256Hex(Array(token.utf8))
        return lock.withLock { signInTokens.remove(key) != nil }
    }

    func setBoundPort(_ port: Int?) { lock.withLock { boundPort = port } }

    // MARK: One request

    /// What the log names a request by: its route pattern, never its identifiers or query.
    struct Answer {
        var route: String
        var response: Response
    }

    package func respond(to request: Request, context: WebContext) async -> Response {
        let started = ContinuousClock.now
        var answer: Answer
        do {
            answer = try await route(request, context: context)
        } catch is HTTPParserError {
            // A body that cannot be read as HTTP (a malformed chunk): the client's fault, and the
            // connection is closed after this answer.
            answer = Answer(route: "-", response: page(.badRequest, title: "Bad request",
                body: "<p>The request's body is not valid HTTP (its chunked encoding is malformed). Nothing was changed.</p>"))
        } catch is NIOTooManyBytesError {
            answer = Answer(route: "-", response: page(.contentTooLarge, title: "Too large",
                body: "<p>That upload is larger than the \(WebPages.size(config.maxBodyBytes)) this wallet takes (a pass or a message is never that large).</p>"))
        } catch let error as LibraryError {
            let failure = LibraryFailure(error)
            answer = Answer(route: "-", response: page(failure.status, title: failure.busy ? "Try again in a moment" : "Library problem",
                                                       body: "<p>\(HTMLText.escape(failure.sentence))</p>"))
            if failure.busy { answer.response.headers[.retryAfter] = LibraryFailure.retryAfter }
        } catch let error as WebProblem {
            answer = Answer(route: error.route, response: page(error.status, title: error.title, body: "<p>\(HTMLText.escape(error.sentence))</p>"))
        } catch let refusal as UploadSlots.Refusal {
            let (sentence, retryAfter) = UploadSlots.answer(refusal)
            answer = Answer(route: "/add", response: page(refusal == .person ? .tooManyRequests : .serviceUnavailable,
                                                          title: "Try again in a moment", body: "<p>\(HTMLText.escape(sentence))</p>"))
            answer.response.headers[.retryAfter] = "\(retryAfter)"
        } catch {
            answer = Answer(route: "-", response: page(.internalServerError, title: "Something went wrong",
                body: "<p>The wallet could not answer this request. Nothing was changed.</p>"))
        }
        Self.secure(&answer.response.headers)
        // HSTS only where the browser reached the wallet over https (browsers ignore it over http).
        if config.tls != nil || config.publicURL?.secure == true || forwardedScheme(request, peer: context.peer) == "https" {
            answer.response.headers[Self.strictTransportSecurity] = "max-age=31536000"
        }
        let elapsed = ContinuousClock.now - started
        let client = clientAddress(request, context: context) ?? "-"
        config.log("\(request.method.rawValue) \(answer.route) \(answer.response.status.code) \(Self.milliseconds(elapsed))ms client=\(client)")
        return answer.response
    }

    /// "12.3": a duration in milliseconds with one decimal (String(format:) cost more than the
    /// rest of a cached page).
    static func milliseconds(_ duration: Duration) -> String {
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Scripts only from the wallet's own files (app.js, the offline worker), never inline.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; "
        + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static func secure(_ headers: inout HTTPFields) {
        headers[securityNames.csp] = contentSecurityPolicy
        headers[securityNames.contentTypeOptions] = "nosniff"
        headers[securityNames.referrerPolicy] = "no-referrer"
        headers[securityNames.openerPolicy] = "same-origin"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
    }

    static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
    /// A second Host header (the first is the request's authority).
    static let hostName = HTTPField.Name("Host")!

    /// The security headers' names, checked once (not on every response).
    static let securityNames = (csp: HTTPField.Name("Content-Security-Policy")!, contentTypeOptions: HTTPField.Name("X-Content-Type-Options")!,
                                referrerPolicy: HTTPField.Name("Referrer-Policy")!, openerPolicy: HTTPField.Name("Cross-Origin-Opener-Policy")!)

    /// A path the wallet could serve: ASCII letters, digits, `/ . - _` and no `..` segment.
    /// Anything else (`%00`, `%2e%2e`, overlong UTF-8, a backslash) is a 404 before any lookup.
    static func plainPath(_ path: String) -> [Substring]? {
        guard path.hasPrefix("/"), path.utf8.count <= 256, path.utf8.allSatisfy({ b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == UInt8(ascii: "/") || b == UInt8(ascii: ".") || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
        }) else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.contains(where: { $0 == ".." || $0 == "." }) { return nil }
        return Array(segments)
    }

    func route(_ request: Request, context: WebContext) async throws -> Answer {
        // RFC 9112 §3.2: a request with no Host, or more than one, is answered 400.
        guard !(request.head.authority ?? "").isEmpty, request.headers[values: Self.hostName].isEmpty else {
            throw WebProblem(.badRequest, route: "-", title: "Bad request",
                             "This request names no host or more than one (an HTTP/1.1 request has exactly one Host header).")
        }
        guard let segments = Self.plainPath(request.uri.path) else {
            throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such page.")
        }
        // The calendar subscription and the JSON API: credentials of their own, never the cookie.
        if let answer = try await sharedPass(request, segments: segments) { return answer }
        if let answer = try await calendarFeed(request, segments: segments) { return answer }
        if let answer = await api(request, segments: segments, peer: context.peer) { return answer }
        let method = request.method
        if method != .get && method != .head && method != .post {
            throw WebProblem(.methodNotAllowed, route: "-", title: "Not allowed", "This wallet takes only GET and POST.")
        }
        try checkHost(request)
        let query = WebForm.urlEncoded(Substring(request.uri.query ?? ""))

        // Pages anyone may see.
        if segments == ["style.css"] {
            var headers = HTTPFields()
            headers[.contentType] = "text/css; charset=utf-8"
            headers[.cacheControl] = "max-age=3600"
            return Answer(route: "/style.css", response: Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: WebPages.stylesheet))))
        }
        if segments == ["login"] {
            return try await login(request, context: context, query: query)
        }
        if let asset = WebOffline.asset(segments) { return asset }
        // Shown after a desktop sign-out, when there is no session any more.
        if segments == ["signed-out"], method == .get || method == .head {
            return Answer(route: "/signed-out", response: page(.ok, title: "Signed out", body: signedOutSentence))
        }

        var request = request
        let visitor = try await signedIn(request, context: context)
        guard let visitor else {
            if case .password = config.signIn, method == .get || method == .head {
                return Answer(route: Self.routePattern(segments), response: redirect("/login"))
            }
            throw WebProblem(.unauthorized, route: Self.routePattern(segments), title: "Sign in first", signInSentence)
        }
        var form: [String: String] = [:]
        var parts: [WebForm.Part] = []
        // An upload takes its place before its body is read, and keeps it until its answer is made.
        let uploader: String? = method == .post && segments == ["add"] ? visitor.session.user : nil
        if method == .post { try checkOrigin(request) }
        if let uploader { try uploads.take(user: uploader) }
        defer { if let uploader { uploads.release(user: uploader) } }
        if method == .post {
            // A declared length over the limit is refused before a byte of the body is read.
            if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > config.maxBodyBytes {
                throw NIOTooManyBytesError(maxBytes: config.maxBodyBytes)
            }
            let bytes = try await Self.bodyBytes(&request, upTo: config.maxBodyBytes)
            let type = request.headers[.contentType] ?? ""
            if let boundary = WebForm.boundary(type) {
                guard let p = WebForm.multipart(bytes, boundary: boundary) else {
                    throw WebProblem(.badRequest, route: "-", title: "Unreadable form", "The form arrived damaged; nothing was changed.")
                }
                parts = p
                for part in p where part.filename == nil {
                    form[part.name] = String(decoding: part.body, as: UTF8.self)
                }
            } else {
                form = WebForm.urlEncoded(Substring(String(decoding: bytes, as: UTF8.self)))
            }
            guard let token = form["csrf"], Self.same(token, visitor.session.csrf) else {
                throw WebProblem(.forbidden, route: "-", title: "Form expired",
                                 "This form is not from your current session (it may be old, or from another site). Nothing was changed; go back, reload and try again.")
            }
        }

        if segments == ["logout"] && method == .post {
            if form["everywhere"] != nil { try await config.state.endSessions(user: visitor.session.user) }
            else if let id = visitor.sessionID { try await config.state.endSession(id: id) }
            var r: Response
            if case .header = config.signIn {
                // The proxy still vouches for this browser: its session must end too.
                r = page(.ok, title: "Signed out of the wallet", body: proxySignOutSentence)
            } else {
                r = redirect(config.signIn.isDesktop ? "/signed-out" : "/login")
            }
            r.headers[.setCookie] = "\(cookieName(secure: visitor.secure))=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict\(visitor.secure ? "; Secure" : "")"
            r.headers[HTTPField.Name("Clear-Site-Data")!] = "\"cache\", \"cookies\", \"storage\""
            return Answer(route: "/logout", response: r)
        }

        guard let library = try await config.libraries(visitor.session.user) else { throw noLibrary(visitor.session.user) }
        var pages = WebPages(app: self, visitor: visitor, library: library, languages: languages(request))
        pages.zone = WebTime.zone(named: cookie(request, named: WebTime.chosenCookie)) ?? WebTime.zone(named: cookie(request, named: WebTime.browserCookie))
        pages.seen = WebPages.seen(cookie(request, named: WebPages.seenCookie))
        var answer = segments.first == "settings"
            ? try await pages.settings(request, method: method, segments: segments, form: form)
            : try await pages.handle(method: method, segments: segments, query: query, form: form, parts: parts)
        if let cookie = visitor.setCookie { answer.response.headers[.setCookie] = cookie }
        // Whose session this answer belongs to, on every answer (the offline worker compares it).
        if answer.response.headers[WebOffline.keyHeader] == nil {
            answer.response.headers[WebOffline.keyHeader] = WebOffline.key(csrf: visitor.session.csrf)
        }
        return answer
    }

    /// What the log names a path by when no page answered it yet (a request without a
    /// session): the wallet's route pattern, never the hash, number or token in it; "-" for a
    /// path that is none of the wallet's.
    static func routePattern(_ segments: [Substring]) -> String {
        let s = segments.map(String.init)
        switch s.count {
        case 1 where ["", "offers", "add", "settings", "offline.json", "signed-out", "logout"].contains(s[0]):
            return "/" + s[0]
        case 2 where s[0] == "passes":
            return s[1].hasSuffix(".pkpass") ? "/passes/{hash}.pkpass" : "/passes/{hash}"
        case 2 where s[0] == "offers": return "/offers/{number}"
        case 2 where s[0] == "settings" && ["calendar", "tokens", "zone"].contains(s[1]): return "/settings/" + s[1]
        case 3 where s[0] == "passes" && ["update", "remove", "share"].contains(s[2]): return "/passes/{hash}/" + s[2]
        case 5 where s[0] == "passes" && s[2] == "links" && s[4] == "revoke": return "/passes/{hash}/links/{id}/revoke"
        case 3 where s[0] == "offers" && ["accept", "decline"].contains(s[2]): return "/offers/{number}/" + s[2]
        case 4 where s[0] == "settings" && s[1] == "tokens" && s[3] == "revoke": return "/settings/tokens/{id}/revoke"
        default: return "-"
        }
    }

    var signedOutSentence: String {
        switch config.signIn {
        case .desktop: return "<p>You are signed out. To sign in again, open a new sign-in link: start “passconduit serve” again.</p>"
        case .header, .password: return "<p>You are signed out.</p><p><a href=\"/login\">Sign in again</a></p>"
        }
    }

    /// After "Sign out" behind a sign-in proxy: the wallet forgot this browser, the proxy did not.
    var proxySignOutSentence: String {
        var h = "<p>This browser is signed out of the wallet, and what it kept for use offline is deleted. "
            + "Your organisation's sign-in still knows you, so opening the wallet again signs you straight back in.</p>\n"
        if let url = config.proxyLogoutURL {
            h += "<p>To end that session too, <a href=\"\(HTMLText.escape(url))\">sign out of your organisation's sign-in</a>.</p>\n"
        } else {
            h += "<p>To end that session too, sign out of your organisation's sign-in page (or close every window of this browser).</p>\n"
        }
        return h
    }

    func noLibrary(_ user: String) -> WebProblem {
        WebProblem(.forbidden, route: "-", title: "No library", "There is no pass library for \(user) on this server.")
    }

    var signInSentence: String {
        switch config.signIn {
        case .desktop: return "Open the sign-in link that “passconduit serve” printed when it started (each link works once)."
        case .header: return "This wallet signs you in through your organisation's sign-in page; open it through that address."
        case .password: return "Sign in with your mailbox address and password."
        }
    }

    /// The browser's languages (`Accept-Language`) unless `--lang` chose.
    func languages(_ request: Request) -> [String] {
        if config.setup.languageOverride != nil { return config.setup.preferredLanguages }
        guard let header = request.headers[.acceptLanguage] else { return config.setup.preferredLanguages }
        let tags = header.split(separator: ",").prefix(8).compactMap { item -> String? in
            let tag = item.split(separator: ";")[0].trimmingCharacters(in: .whitespaces)
            return tag.isEmpty || tag == "*" || tag.count > 35 ? nil : tag
        }
        return tags.isEmpty ? config.setup.preferredLanguages : tags
    }

    /// Desktop mode answers only to this machine's own names: a web page elsewhere cannot reach it
    /// by pointing a name of its own at 127.0.0.1 (DNS rebinding).
    func checkHost(_ request: Request) throws {
        guard config.signIn.isDesktop, case .host = config.listen else { return }
        let host = request.head.authority ?? ""
        var name = Substring(host)
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            name = name[name.index(after: name.startIndex)..<close]
        } else if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        guard HostPort.isLoopbackName(String(name)) else {
            throw WebProblem(.misdirectedRequest, route: "-", title: "Wrong address", "This wallet answers only at 127.0.0.1, localhost or [::1].")
        }
    }

    /// A state-changing request must come from the wallet's own pages. A browser says where a
    /// form comes from in `Sec-Fetch-Site` (only "same-origin" is taken); one that does not send
    /// it is judged by `Origin`, which must be this server's. (Under `Referrer-Policy:
    /// no-referrer` Chromium sends `Origin: null` even for the wallet's own forms, so
    /// `Sec-Fetch-Site` decides first.) A client that sends neither (curl, a script) still needs
    /// the session's cookie and form token.
    func checkOrigin(_ request: Request) throws {
        let refused = WebProblem(.forbidden, route: "-", title: "Refused", "A page of another site tried to send this form. Nothing was changed.")
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] {
            guard site == "same-origin" else { throw refused }
            return
        }
        if let origin = request.headers[HTTPField.Name("Origin")!] {
            if let known = config.publicURL {
                guard origin.lowercased() == known.description else { throw refused }
                return
            }
            let host = request.head.authority ?? ""
            guard origin == "http://" + host || origin == "https://" + host else { throw refused }
        }
    }

    /// Compares secrets in time independent of where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }

    // MARK: Who is asking

    struct Visitor {
        var session: WebState.Session
        var sessionID: String?
        /// A cookie to send with the answer (a session made on this request).
        var setCookie: String?
        /// The address the browser opened (absolute links) and whether the cookie is `Secure`.
        var origin = PublicOrigin(scheme: "http", authority: "localhost")
        var secure = false
    }

    func sessionCookie(_ id: String, secure: Bool) -> String {
        "\(cookieName(secure: secure))=\(id); Path=/; HttpOnly; SameSite=Strict\(secure ? "; Secure" : "")"
    }

    func cookie(_ request: Request, named name: String) -> String? {
        for header in request.headers[values: .cookie] {
            // ASCII (what browsers send): read on the bytes; Foundation's trimming cost more than
            // the session lookup. Anything else as before.
            if header.utf8.allSatisfy({ $0 < 0x80 }) {
                if let value = Self.asciiCookie(header, named: name) { return value }
                continue
            }
            for pair in header.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == name {
                    return kv[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// The value of the first cookie `name` in an ASCII `Cookie` header: pairs split at `;`,
    /// name and value at the first `=` after the name, spaces and tabs around each trimmed: what
    /// `cookie` reads with `split` and Foundation's trimming for other headers.
    static func asciiCookie(_ header: String, named name: String) -> String? {
        let bytes = Array(header.utf8), wanted = Array(name.utf8)
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var (lo, hi) = (range.lowerBound, range.upperBound)
            while lo < hi, isBlank(bytes[lo]) { lo += 1 }
            while hi > lo, isBlank(bytes[hi - 1]) { hi -= 1 }
            return lo..<hi
        }
        var start = 0
        while start <= bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            // `=` at the start of a pair is passed over, as `split` omits the empty name before it.
            var first = start
            while first < end, bytes[first] == UInt8(ascii: "=") { first += 1 }
            if let equals = bytes[first..<end].firstIndex(of: UInt8(ascii: "=")), equals + 1 < end {
                let key = trimmed(first..<equals)
                if bytes[key].elementsEqual(wanted) {
                    return String(decoding: bytes[trimmed(equals + 1..<end)], as: UTF8.self)
                }
            }
            start = end + 1
        }
        return nil
    }

    func signedIn(_ request: Request, context: WebContext) async throws -> Visitor? {
        var visitor = try await signedInVisitor(request, context: context)
        visitor?.origin = origin(request, peer: context.peer)
        visitor?.secure = secureCookies(request, peer: context.peer)
        return visitor
    }

    func signedInVisitor(_ request: Request, context: WebContext) async throws -> Visitor? {
        let secure = secureCookies(request, peer: context.peer)
        let id = cookie(request, named: cookieName(secure: secure))
        let session: WebState.Session? = if let id { try await config.state.session(id: id) } else { nil }
        switch config.signIn {
        case .desktop, .password:
            guard let session, let id else { return nil }
            return Visitor(session: session, sessionID: id)
        case .header(let name, let trusted):
            // The header counts only from the proxy; from anyone else it is ignored.
            guard let peer = context.peer, trusted.contains(where: { $0.contains(peer) }) else {
                throw WebProblem(.forbidden, route: "-", title: "Not through the sign-in proxy",
                                 "This wallet takes its users from a reverse proxy, and this connection did not come through it.")
            }
            guard let raw = request.headers[HTTPField.Name(name)!], let user = try Self.proxyUserName(raw) else { return nil }
            if let session, let id, session.user == user { return Visitor(session: session, sessionID: id) }
            // Without its cookie (a script, a browser that dropped it, another device): the session
            // this user already has, so requests do not each leave a row behind.
            if let kept = try await config.state.latestSession(user: user) { return Visitor(session: kept, sessionID: nil) }
            // A name without a library gets no session either (its pages answer "No library").
            guard try await config.libraries(user) != nil else { throw noLibrary(user) }
            let made = try await config.state.createSession(user: user)
            return Visitor(session: made.session, sessionID: made.id, setCookie: sessionCookie(made.id, secure: secure))
        }
    }

    /// A user name from a header or the login form: trimmed, lower-cased (mail addresses are
    /// case-insensitive, as the milter's library map reads them), no control bytes, not empty.
    static func userName(_ raw: String) -> String? {
        let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty, name.utf8.count <= 320, !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        return name
    }

    /// A user name from the sign-in proxy, as the library map and the web state will compare it:
    /// nil when empty; refused (403, with the reason) when it holds `%`, `/`, `\`, a control,
    /// format or space character, when Unicode normalisation (NFKC) changes it, or when it holds
    /// a non-ASCII letter that lower-casing changes (only ASCII letters are folded, as the map
    /// lower-cases addresses). So no name a proxy vouches for can stand for another person's
    /// library (`Karl` written with U+212A KELVIN SIGN is not `karl`; `%{domain}@…` expands nothing).
    static func proxyUserName(_ raw: String) throws(WebProblem) -> String? {
        let name = raw.trimmingCharacters(in: .whitespaces)
        if name.isEmpty { return nil }
        func refused(_ why: String) -> WebProblem {
            WebProblem(.forbidden, route: "-", title: "User name refused",
                       "The sign-in proxy named a user this wallet does not take: \(why). Nothing was opened; ask whoever runs this wallet.")
        }
        guard name.utf8.count <= 320 else { throw refused("it is longer than any mail address") }
        for scalar in name.unicodeScalars {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            switch scalar.properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                throw refused("it holds an invisible, control or space character (\(code))")
            default:
                break
            }
            if scalar == "%" || scalar == "/" || scalar == "\\" {
                throw refused("it holds “\(Character(scalar))”, which no address this wallet keeps a library for holds")
            }
        }
        guard name.precomposedStringWithCompatibilityMapping.unicodeScalars.elementsEqual(name.unicodeScalars) else {
            throw refused("Unicode normalisation (NFKC) changes it, so it could stand for another address")
        }
        if name.unicodeScalars.contains(where: { !$0.isASCII && ($0.properties.changesWhenLowercased || $0.properties.changesWhenCaseFolded) }) {
            throw refused("it holds a non-ASCII capital letter, which could stand for another address once lower-cased")
        }
        return name.lowercased()
    }

    // MARK: Signing in

    func login(_ request: Request, context: WebContext, query: [String: String]) async throws -> Answer {
        switch config.signIn {
        case .desktop:
            guard request.method == .get, let token = query["token"] else {
                throw WebProblem(.unauthorized, route: "/login", title: "Sign in", signInSentence)
            }
            guard consumeSignInToken(token) else {
                throw WebProblem(.unauthorized, route: "/login", title: "Link already used",
                                 "This sign-in link has been used or is not one this wallet made. Start “passconduit serve” again for a new one.")
            }
            let made = try await config.state.createSession(user: "")
            var r = redirect("/")
            r.headers[.setCookie] = sessionCookie(made.id, secure: secureCookies(request, peer: context.peer))
            return Answer(route: "/login", response: r)
        case .header:
            return Answer(route: "/login", response: redirect("/"))
        case .password(let checker):
            if request.method != .post {
                return Answer(route: "/login", response: page(.ok, title: "Sign in", body: WebPages.loginForm(message: nil)))
            }
            try checkOrigin(request)
            var request = request
            let body = try await request.collectBody(upTo: 16 * 1024)
            let form = WebForm.urlEncoded(Substring(String(decoding: body.readableBytesView, as: UTF8.self)))
            let typed = form["user"] ?? ""
            let user = Self.userName(typed)
            let password = form["password"] ?? ""
            guard let user, !password.isEmpty, password.utf8.count <= 1024,
                  !password.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\u{0}" }) else {
                return Answer(route: "/login", response: page(.unauthorized, title: "Sign in",
                                                              body: WebPages.loginForm(message: Self.rejectedSentence, typed: typed)))
            }
            // Counted before the password is checked (one step with the decision, on every host).
            let client = clientAddress(request, context: context)
            let earlier: Int
            switch try await config.state.countSignIn(account: user, client: client) {
            case .throttled(let reason, let retryAfter):
                config.log("sign-in throttled: account=\(Self.logText(user)) client=\(client ?? "-") reason=\(reason.rawValue) retry-after=\(retryAfter)s")
                var r = page(.tooManyRequests, title: "Too many attempts", body: WebPages.loginForm(message: Self.throttledSentence(reason, retryAfter: retryAfter), typed: typed))
                r.headers[.retryAfter] = "\(retryAfter)"
                return Answer(route: "/login", response: r)
            case .allowed(let n):
                earlier = n
            }
            // Back-off: each earlier attempt of this client at this account makes the answer slower,
            // the same for every outcome (other clients and accounts are not slowed).
            if earlier > 0, config.signInBackoff > 0 {
                try? await Task.sleep(for: .seconds(config.signInBackoff * Double(min(1 << min(earlier - 1, 3), 8))))
            }
            switch await checker.check(user: user, password: password, clientAddress: client, clientPort: client == context.peer ? context.peerPort : nil) {
            case .accepted:
                try await config.state.uncountSignIn(account: user, client: client, accepted: true)
                let made = try await config.state.createSession(user: user)
                var r = redirect("/")
                r.headers[.setCookie] = sessionCookie(made.id, secure: secureCookies(request, peer: context.peer))
                return Answer(route: "/login", response: r)
            case .rejected:
                config.log("sign-in failed: account=\(Self.logText(user)) client=\(client ?? "-") reason=wrong-address-or-password")
                return Answer(route: "/login", response: page(.unauthorized, title: "Sign in", body: WebPages.loginForm(message: Self.rejectedSentence, typed: typed)))
            case .unavailable(let reason):
                // The operator's to know (the server's address and what went wrong); the visitor
                // learns only that the mail server is unavailable. The attempt judged no password.
                config.log("sign-in impossible: the mail server cannot be reached: account=\(Self.logText(user)) client=\(client ?? "-") reason=\(Self.logQuoted(reason))")
                try? await config.state.uncountSignIn(account: user, client: client, accepted: false)
                var r = page(.serviceUnavailable, title: "Cannot sign in now",
                             body: WebPages.loginForm(message: "The mail server that checks passwords cannot be reached now. Nothing was changed; try again in a few minutes.", typed: typed))
                r.headers[.retryAfter] = "60"
                return Answer(route: "/login", response: r)
            }
        }
    }

    /// The 429 page's sentence for why an attempt was not checked.
    static func throttledSentence(_ reason: WebState.Throttle.Reason, retryAfter: Int) -> String {
        let wait = retryAfter >= 90 ? "\((retryAfter + 59) / 60) minutes" : "\(retryAfter) seconds"
        switch reason {
        case .accountAndClient: return "Too many failed sign-ins for this address from your network. Wait \(wait) and try again."
        case .client: return "Too many failed sign-ins from your network. Wait \(wait) and try again."
        case .account: return "There were many failed sign-ins for this address lately, so each try waits a little. Try again in \(wait)."
        }
    }

    /// `text` for a log line's `name=value`: letters, digits and `@ . _ + -` as they are, every
    /// other byte percent-encoded (no space, `=`, quote or line break another field could hide in).
    package static func logText(_ text: String) -> String {
        var out = ""
        for byte in text.utf8.prefix(320) {
            let c = Character(UnicodeScalar(byte))
            if byte < 0x80, c.isLetter || c.isNumber || "@._+-:".contains(c) { out.append(c) }
            else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// `text` between double quotes for a log line's last field: quotes, backslashes and control
    /// characters replaced by `?`, so it ends where it seems to.
    static func logQuoted(_ text: String) -> String {
        "\"" + String(String.UnicodeScalarView(text.unicodeScalars.prefix(500).map {
            $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" || $0 == "\\" || (0x80...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" ? "?" : $0
        })) + "\""
    }

    /// The request's client address (see `ClientAddress`).
    func clientAddress(_ request: Request, context: WebContext) -> String? {
        ClientAddress(trusted: config.trustedProxies, socketTrusted: config.socketProxyTrusted).of(request.headers, peer: context.peer)
    }

    static let rejectedSentence = "That address and password do not match. Check both and try again."

    // MARK: Responses

    func redirect(_ location: String) -> Response {
        var r = Response(status: .seeOther)
        r.headers[.location] = location
        return r
    }

    func page(_ status: HTTPResponse.Status, title: String, body: String, head: String = "", nav: String = "", offlineKey: String? = nil) -> Response {
        page(status, title: title, bodyParts: [body], head: head, nav: nav, offlineKey: offlineKey)
    }

    /// A page whose body is `bodyParts` one after another, written once into the response (a
    /// kept list of a thousand passes is not copied again into a page string first).
    func page(_ status: HTTPResponse.Status, title: String, bodyParts: [String], head: String = "", nav: String = "", offlineKey: String? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        if let offlineKey { headers[WebOffline.keyHeader] = offlineKey }
        let (before, after) = WebPages.document(title: title, head: WebOffline.head(key: offlineKey) + head, nav: nav)
        var buffer = ByteBufferAllocator().buffer(capacity: before.utf8.count + bodyParts.reduce(0) { $0 + $1.utf8.count } + after.utf8.count)
        buffer.writeString(before)
        for part in bodyParts { buffer.writeString(part) }
        buffer.writeString(after)
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }

    // MARK: Work done off the request threads

    /// The library's pass times, read from each pass's pass.json once.
    func times(for passes: [StoredPass], library: any PassLibraryBackend, opener: PassOpener) async -> [String: PassTimes] {
        var out: [String: PassTimes] = [:]
        for pass in passes {
            if let cached = lock.withLock({ timesCache[pass.sha256] }) {
                out[pass.sha256] = cached
                continue
            }
            guard let bytes = try? await library.export(pass.id), let document = opener.document(of: bytes) else { continue }
            let times = PassTimes(document)
            lock.withLock { timesCache[pass.sha256] = times }
            out[pass.sha256] = times
        }
        return out
    }

    /// A pass's card as the wallet's page shows it: its style sheet (nil when it cannot be
    /// drawn), its HTML, the `lang` attribute of the language its texts were chosen in.
    struct Card: Sendable {
        var css: String?
        var body: String
        var language: String?
        /// The pass names a web service to ask for a newer version ("Check for update").
        var canUpdate = false
    }

    /// The card of the pass with this SHA-256 for these languages, drawn by `draw` only when it is
    /// not in the cache. A card depends only on the pass's bytes, the reader's languages and whether
    /// the pass has expired yet (its mark), so an entry drawn before `expires` serves until then.
    /// The cache is consulted only after the pass was found in the visitor's own library. The
    /// verdict is drawn into it, so a reload of the trust anchors (SIGHUP) starts a new key.
    func card(sha256: String, languages: [String], expires: Date?, now: Date = Date(),
              draw: () async throws -> Card) async rethrows -> Card {
        let key = sha256 + "|" + languages.joined(separator: ",") + "|\(config.openers.generation)"
        if let hit = lock.withLock({ cards[key] }), now < hit.validUntil { return hit.card }
        let card = try await draw()
        let validUntil = expires.flatMap { $0 > now ? $0 : nil } ?? .distantFuture
        lock.withLock {
            if cards.count >= Self.cardCacheLimit { cards.removeAll(keepingCapacity: true) }
            cards[key] = (card, validUntil)
        }
        return card
    }

    static let cardCacheLimit = 256

    /// The change log of a user's library by pass, read once and then only what was appended
    /// since (the log only grows; a shorter one, after a restore, is read again). Kept per user
    /// and library object, so nobody's history is taken from another's library, nor from a
    /// library dropped and made again (opened again as another object).
    func changes(of id: PassID, user: String, library: any PassLibraryBackend, last known: Int64? = nil) async throws -> [ChangeEntry] {
        try await history(user: user, library: library, last: known)[id] ?? []
    }

    /// The pass whose version had the digest `sha256`, from the same change log: an address of a
    /// pass's page made before an update leads to the pass as it is now (issue 41 item 6,
    /// operator trial D11: it answered 404). Only the user's own library is looked in.
    func pass(ofVersion sha256: String, user: String, library: any PassLibraryBackend) async throws -> PassID? {
        guard Digest.isSHA256Hex(sha256) else { return nil }
        let byPass = try await history(user: user, library: library, last: nil)
        return byPass.first { $0.value.contains { $0.sha256 == sha256 } }?.key
    }

    private func history(user: String, library: any PassLibraryBackend, last known: Int64?) async throws -> [PassID: [ChangeEntry]] {
        var (sequence, byPass) = lock.withLock { histories[user].flatMap { $0.library.matches(library) ? ($0.sequence, $0.byPass) : nil } } ?? (0, [:])
        let last: Int64
        if let known { last = known } else { last = try await library.lastSequence() }
        if last < sequence { (sequence, byPass) = (0, [:]) }
        while sequence < last {
            let page = try await library.changes(after: sequence, limit: 1000)
            for entry in page { byPass[entry.passID, default: []].append(entry) }
            guard let tail = page.last else { break }
            sequence = tail.sequence
            if page.count < 1000 { break }
        }
        let known = (sequence, byPass)
        lock.withLock {
            if histories[user] == nil, histories.count >= 64 { histories.removeAll() }
            if histories[user]?.library.matches(library) != true || (histories[user]?.sequence ?? -1) <= known.0 {
                histories[user] = (HeldLibrary(library), known.0, known.1)
            }
        }
        return byPass
    }

    func render(_ verdict: PassVerdict) async -> (css: String, body: String)? {
        guard let info = verdict.pass else { return nil }
        let barcode = config.barcode(info)
        let status = verdict.status, error = verdict.error
        return await withCheckedContinuation { continuation in
            renderQueue.async {
                // The page has one h1 (its title): the card's back names the issuer one level below.
                let card = PassRenderer.htmlCard(info: info, status: status, error: error, barcode: barcode,
                                                 errorMessage: error.map { WebWords.forPeople($0.message) }, issuer: .section)
                continuation.resume(returning: (card.css, card.body))
            }
        }
    }

    /// A request's body as one array: the buffer it was collected in is freed on return, so an
    /// upload is held once while it is checked.
    static func bodyBytes(_ request: inout Request, upTo limit: Int) async throws -> [UInt8] {
        let body = try await request.collectBody(upTo: limit)
        return Array(body.readableBytesView)
    }

    /// Runs blocking work (the scanner's synchronous library calls) on the wallet's bounded pool
    /// of threads (`blockingPool`), never on the tasks' cooperative pool. It started a thread per
    /// upload before (issue 39 item 3); uploads beyond the pool's threads wait their turn, and
    /// `UploadSlots` answers 503 beyond `--uploads-at-once`.
    func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        try await Self.blockingPool.runIfActive { body() }
    }

    /// One thread per core (at least two), for the whole process: blocking work is scanning and
    /// checking, which a core does at a time.
    static let blockingPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        return pool
    }()
}

/// A request answered with a sentence: status, the route for the log, the page's title.
struct WebProblem: Error {
    var status: HTTPResponse.Status
    var route: String
    var title: String
    var sentence: String
    /// The code of the API's JSON error for it.
    var code: Problem.Code = .notAccepted
    init(_ status: HTTPResponse.Status, route: String, title: String, _ sentence: String) {
        self.status = status
        self.route = route
        self.title = title
        self.sentence = sentence
    }
}
