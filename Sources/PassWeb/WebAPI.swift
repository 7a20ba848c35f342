import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PassStore
import Support
import WalletPass

/// The JSON API, `/api/v1/…`, for chat bridges and scripts: the same reads and actions as the
/// pages, one object per pass exactly as `list --json` and `show --json` write them (schema 1),
/// authenticated by an API token from the Settings page (`Authorization: Bearer TOKEN`). No
/// cookie is ever taken here, so no cross-site form can act through it (no CSRF token needed).
/// Every answer is JSON, errors `{"error": {"code": …, "message": …}}`; every lookup is inside
/// the token owner's library, so another user's hash or offer number is a 404.
extension WebApp {
    struct APIError: Error {
        var status: HTTPResponse.Status
        var code: Problem.Code
        var message: String
        init(_ status: HTTPResponse.Status, _ code: Problem.Code, _ message: String) {
            self.status = status
            self.code = code
            self.message = message
        }
        static let notFound = APIError(.notFound, .notFound, "There is no such pass in your library.")
    }

    /// The largest JSON body an API request takes (none needs more than a few bytes).
    static let maxAPIJSONBytes = 64 * 1024

    /// The API's answer to `request`, or nil when its path is not under `/api/`.
    func api(_ request: Request, segments: [Substring], peer: String? = nil) async -> Answer? {
        guard segments.first == "api" else { return nil }
        var route = Self.apiPattern(segments)
        do {
            let (pattern, answer) = try await apiRoute(request, segments: segments, peer: peer, route: &route)
            return Answer(route: pattern, response: answer)
        } catch let error as APIError {
            var response = Self.json(error.status, Self.errorJSON(error.code, error.message))
            if error.status == .unauthorized {
                response.headers[.wwwAuthenticate] = error.code == .invalidToken
                    ? "Bearer realm=\"passconduit\", error=\"invalid_token\"" : "Bearer realm=\"passconduit\""
            }
            return Answer(route: route, response: response)
        } catch is NIOTooManyBytesError {
            return Answer(route: route, response: Self.json(.contentTooLarge, Self.errorJSON(.tooLarge,
                "The request body is larger than this request takes; nothing was changed.")))
        } catch let error as LibraryError {
            let failure = LibraryFailure(error)
            var response = Self.json(failure.status, Self.errorJSON(failure.busy ? .unavailable : .library, failure.sentence))
            if failure.busy { response.headers[.retryAfter] = LibraryFailure.retryAfter }
            return Answer(route: route, response: response)
        } catch let problem as WebProblem {
            return Answer(route: route, response: Self.json(problem.status, Self.errorJSON(problem.code, problem.sentence)))
        } catch let refusal as UploadSlots.Refusal {
            let (sentence, retryAfter) = UploadSlots.answer(refusal)
            var response = Self.json(refusal == .person ? .tooManyRequests : .serviceUnavailable, Self.errorJSON(.busy, sentence))
            response.headers[.retryAfter] = "\(retryAfter)"
            return Answer(route: route, response: response)
        } catch {
            return Answer(route: route, response: Self.json(.internalServerError, Self.errorJSON(.internalError,
                "The wallet could not answer this request. Nothing was changed.")))
        }
    }

    /// The route pattern the log names an API request by (its hash or number left out).
    static func apiPattern(_ segments: [Substring]) -> String {
        let path = segments.dropFirst(2)
        guard segments.count >= 3, segments[1] == "v1" else { return "/api" }
        switch (path.count, path.first ?? "") {
        case (1, "passes"): return "/api/v1/passes"
        case (2, "passes"): return path.last!.hasSuffix(".pkpass") ? "/api/v1/passes/{sha256}.pkpass" : "/api/v1/passes/{sha256}"
        case (1, "offers"): return "/api/v1/offers"
        case (3, "offers") where path.last == "accept" || path.last == "decline": return "/api/v1/offers/{number}/" + path.last!
        case (3, "passes") where path.last == "links": return "/api/v1/passes/{sha256}/links"
        case (4, "passes") where path[path.startIndex + 2] == "links": return "/api/v1/passes/{sha256}/links/{id}"
        default: return "/api/v1"
        }
    }

    static func errorJSON(_ code: Problem.Code, _ message: String) -> JSONOutput {
        .object([("error", JSONOutput.problem(Problem(code, message: message)))])
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONOutput) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        let bytes = ByteBuffer(string: value.line + "\n")
        headers[.contentLength] = "\(bytes.readableBytes)"
        return Response(status: status, headers: headers, body: .init(byteBuffer: bytes))
    }

    /// The body of a request that takes JSON: at most `maxAPIJSONBytes`, and valid JSON when it has any.
    func jsonBody(_ request: Request) async throws {
        var request = request
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maxAPIJSONBytes {
            throw NIOTooManyBytesError(maxBytes: Self.maxAPIJSONBytes)
        }
        let body = try await request.collectBody(upTo: Self.maxAPIJSONBytes)
        let bytes = Data(body.readableBytesView)
        if bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }),
           (try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) == nil {
            throw APIError(.badRequest, .badJSON, "The request body is not JSON. Nothing was changed.")
        }
    }

    func apiRoute(_ request: Request, segments: [Substring], peer: String? = nil, route: inout String) async throws -> (String, Response) {
        guard segments.count >= 3, segments[1] == "v1" else {
            throw APIError(.notFound, .notFound, "There is no such API address; this wallet's API is under /api/v1/.")
        }
        try checkHost(request)
        let path = Array(segments.dropFirst(2))
        let user: String
        switch try await apiCaller(request) {
        case .user(let name): user = name
        case .service(let name):
            return try await serviceRoute(request, path: path, service: name, peer: peer, route: &route)
        }
        guard let library = try await config.libraries(user) else {
            throw APIError(.notFound, .noLibrary, "There is no pass library for this token's user on this server.")
        }
        let method = request.method
        let read = method == .get || method == .head

        switch (path.count, path[0]) {
        case (1, "passes"):
            route = "/api/v1/passes"
            if read { return (route, Self.json(.ok, try await apiList(library))) }
            if method == .post { return try await apiAdd(request, user: user, library: library) }
        case (2, "passes"):
            let name = path[1]
            if name.hasSuffix(".pkpass") {
                route = "/api/v1/passes/{sha256}.pkpass"
                guard read else { break }
                let bytes = try await library.export(try await apiPass(String(name.dropLast(".pkpass".count)), library: library).id)
                var headers = HTTPFields()
                headers[.contentType] = "application/vnd.apple.pkpass"
                headers[.contentLength] = "\(bytes.count)"
                return (route, Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes))))
            }
            route = "/api/v1/passes/{sha256}"
            if read {
                let pass = try await apiPass(String(name), library: library)
                let bytes = try await library.export(pass.id)
                let web = try await library.webServiceState(pass.id)
                return (route, Self.json(.ok, StoredPassJSON.show(pass, verdict: config.opener.open(bytes), lastUpdateCheck: web)))
            }
            if method == .delete {
                try await jsonBody(request)
                let pass = try await apiPass(String(name), library: library)
                try await library.remove(pass.id)
                return (route, Self.json(.ok, .object([("removed", StoredPassJSON.object(pass))])))
            }
        case (3, "passes") where path[2] == "links", (4, "passes") where path[2] == "links":
            if let answer = try await apiLinks(request, path: path, user: user, library: library, peer: peer, route: &route) { return answer }
        case (1, "offers"):
            route = "/api/v1/offers"
            if read { return (route, Self.json(.ok, .array(try await library.offers().map(OfferJSON.object)))) }
            if method == .post {
                // A user token stages in its own library only: naming another is refused, never redirected.
                let query = try Self.offerQuery(request)
                if let other = query["user"], other.lowercased() != user.lowercased() {
                    throw APIError(.forbidden, .forbidden, "An API token stages offers in its own library only. Nothing was changed.")
                }
                return try await apiStageOffers(request, query: query, user: user, library: library)
            }
        case (3, "offers") where path[2] == "accept" || path[2] == "decline":
            let accept = path[2] == "accept"
            route = accept ? "/api/v1/offers/{number}/accept" : "/api/v1/offers/{number}/decline"
            guard method == .post else { break }
            try await jsonBody(request)
            let text = path[1]
            guard text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text),
                  let offer = try await library.offer(id) else {
                throw APIError(.notFound, .notFound, "There is no such offer in your library.")
            }
            switch try await OfferDecision.decide(offer, accept: accept, library: library, opener: config.opener) {
            case .declined:
                return (route, Self.json(.ok, .object([("outcome", .string("declined")), ("message", .string("Declined.")), ("offer", .int(id))])))
            case .refused(let message):
                throw APIError(.unprocessableContent, .refused, message)
            case .already:
                return (route, Self.json(.ok, .object([("outcome", .string("already")), ("message", .string("Already in your library.")), ("offer", .int(id))])))
            case .settled:
                throw APIError(.conflict, .notFound, "This offer was accepted or declined a moment ago by another request; nothing more was changed.")
            case .added(let pass):
                return (route, Self.json(.ok, .object([("outcome", .string("added")), ("message", .string("Added to your library.")),
                                                       ("offer", .int(id)), ("pass", StoredPassJSON.object(pass))])))
            case .updated(let pass):
                return (route, Self.json(.ok, .object([("outcome", .string("updated")), ("message", .string("Updated in your library.")),
                                                       ("offer", .int(id)), ("pass", StoredPassJSON.object(pass))])))
            }
        default:
            throw APIError(.notFound, .notFound, "There is no such API address.")
        }
        throw APIError(.methodNotAllowed, .methodNotAllowed, "\(method.rawValue) is not taken at \(route).")
    }

    /// `list --json`'s objects, in its order (what comes next first, then the expired).
    func apiList(_ library: any PassLibraryBackend) async throws -> JSONOutput {
        var passes = try await library.passes()
        let opener = config.opener
        // As `list` does under --lang (or a language from the environment): names and
        // descriptions in the configured language where the pass has it.
        if !config.setup.preferredLanguages.isEmpty {
            for (index, pass) in passes.enumerated() {
                if let info = opener.open(try await library.export(pass.id)).pass {
                    passes[index].organizationName = info.organizationName
                    passes[index].description = info.description
                }
            }
        }
        let times = await self.times(for: passes, library: library, opener: opener)
        let view = LibraryView(passes: passes, times: times, query: LibraryView.Query())
        return .array((view.currentItems + view.archivedItems).map(StoredPassJSON.listObject))
    }

    /// The stored pass whose full SHA-256 is `hash`, in this library only: one indexed lookup
    /// by the digest, as the pages find a pass (it read every pass of the library per call).
    func apiPass(_ hash: String, library: any PassLibraryBackend) async throws -> StoredPass {
        guard let pass = try await Self.storedPass(hash, library: library) else { throw APIError.notFound }
        return pass
    }

    /// The stored pass whose full SHA-256 (lower-case hex) is `hash` in `library`: from `known`,
    /// the user's cached list, when it is current, else one indexed lookup by the digest (never
    /// a scan of the library). Nil when the library has none: pages and the API say so each in
    /// their own words.
    static func storedPass(_ hash: String, library: any PassLibraryBackend, known: WebListCache.Snapshot? = nil) async throws -> StoredPass? {
        guard Digest.isSHA256Hex(hash), hash == hash.lowercased() else { return nil }
        if let known { return known.pass(sha256: hash) }
        let id: PassID
        do {
            id = try await library.resolve(hash)
        } catch let error as LibraryError where error.kind == .notFound {
            return nil
        }
        guard let pass = try await library.pass(id), pass.sha256 == hash else { return nil }
        return pass
    }

    /// Runs `body` with the request's body read as an upload: at most one pass archive's bytes
    /// (413 beyond; at once when Content-Length says so), read in one of the person's upload
    /// slots, which is held until `body` returns (429 or 503 when none is free). The API's add
    /// and its offers take their bytes this one way.
    func withUpload<T>(_ request: Request, user: String, _ body: ([UInt8]) async throws -> T) async throws -> T {
        let limit = config.setup.limits.pass.maxArchiveBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw NIOTooManyBytesError(maxBytes: limit)
        }
        try uploads.take(user: user)
        defer { uploads.release(user: user) }
        var request = request
        return try await body(try await Self.bodyBytes(&request, upTo: limit))
    }

    /// `POST /api/v1/passes` with the bytes of a `.pkpass`: the same intake as an upload or
    /// `add --yes`, with its sentences.
    func apiAdd(_ request: Request, user: String, library: any PassLibraryBackend) async throws -> (String, Response) {
        return try await withUpload(request, user: user) { bytes in
            guard bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) else {
                throw APIError(.badRequest, .notAPass,
                               bytes.isEmpty ? "The request has no body: send the bytes of a .pkpass file. Nothing was changed."
                                             : "The request body is not a .pkpass file (a pass is a zip archive, and this is not one). Nothing was changed.")
            }
            let setup = config.setup, opener = config.opener, seconds = config.uploadSeconds
            let lines: [(String, String?)] = try await offPool { () -> Result<[(String, String?)], WebProblem> in
                Result { try WebUpload.add(bytes: bytes[...], name: "upload.pkpass", setup: setup, opener: opener, library: library,
                                           seconds: seconds, route: "/api/v1/passes") }
                    .mapError { $0 as? WebProblem ?? WebProblem(.internalServerError, route: "/api/v1/passes", title: "Not added",
                                                                "The upload could not be read; nothing was changed.") }
            }.get()
            let results: [JSONOutput] = lines.map { .object([("message", .string($0.0)), ("sha256", .string($0.1))]) }
            let anyTaken = lines.contains { $0.1 != nil }
            return ("/api/v1/passes", Self.json(anyTaken ? .ok : .unprocessableContent, .object([("results", .array(results))])))
        }
    }
}

extension WebApp.APIError: ProblemReporting {
    /// The code and sentence of the error body (the HTTP status stays the API's).
    var problem: Problem { Problem(code, message: message) }
}
