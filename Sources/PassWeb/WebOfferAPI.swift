import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PassStore
import Support
import WalletPass

/// `POST /api/v1/offers` (issue 42 item 3): a pass someone handed over, staged as an offer with
/// where it came from, and the service tokens a bot sends it with. A service token (made by the
/// operator: `passconduit library service-tokens --create NAME`) belongs to no user: it may stage
/// offers in, and make share links for passes of, any library serve's map has, and nothing else
/// (every other route answers 403). A user token may stage offers in its own library only.
///
/// The body is the file's bytes (a pass, bundle, zip or saved message, found by content); the
/// query names the library and the provenance: `user` (the mailbox), `network`, `room`,
/// `eventId`, `sender`, `name` (the file's name).
extension WebApp {
    /// Who a request's token speaks for.
    enum APICaller: Sendable, Equatable {
        case user(String)
        /// A service token, by its name (never the token).
        case service(String)
    }

    /// The caller of a request; a 401 without a token or for one not (or no longer) known.
    func apiCaller(_ request: Request) async throws -> APICaller {
        guard let header = request.headers[.authorization] else {
            throw APIError(.unauthorized, .unauthorized,
                           "This API needs an API token: send “Authorization: Bearer TOKEN”. Tokens are made on the wallet's Settings page.")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        if parts.count == 2, parts[0].lowercased() == "bearer" {
            let token = parts[1].trimmingCharacters(in: .whitespaces)
            if let user = try await config.state.tokenUser(token: token) { return .user(user) }
            if let name = try await config.state.serviceTokenName(token: token) { return .service(name) }
        }
        throw APIError(.unauthorized, .invalidToken,
                       "This API token is not known here: it may have been revoked or have expired. Make a new one on the wallet's Settings page.")
    }

    /// The longest text a provenance field or mailbox takes.
    static let maxOfferField = 255

    /// The query of an offer or a service token's request, each field checked: 1 to 255
    /// characters, no control characters. A 400 otherwise.
    static func offerQuery(_ request: Request) throws -> [String: String] {
        let query = WebForm.urlEncoded(Substring(request.uri.query ?? ""))
        for (key, value) in query where ["user", "network", "room", "eventId", "sender", "name"].contains(key) {
            if value.isEmpty || value.utf8.count > maxOfferField || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw APIError(.badRequest, .badValue, "“\(key)” takes 1 to \(maxOfferField) characters without control characters. Nothing was changed.")
            }
        }
        return query
    }

    /// A service token's request: the library of the query's `user` on serve's map, then only
    /// `POST /api/v1/offers` and `POST /api/v1/passes/SHA/links`.
    func serviceRoute(_ request: Request, path: [Substring], service: String, peer: String?, route: inout String) async throws -> (String, Response) {
        let method = request.method
        let allowed: Bool
        switch (path.count, path[0]) {
        case (1, "offers"): allowed = method == .post
        case (3, "passes") where path[2] == "links": allowed = method == .post
        default: allowed = false
        }
        guard allowed else {
            throw APIError(.forbidden, .forbidden,
                           "A service token may only stage offers (POST /api/v1/offers) and make share links (POST /api/v1/passes/SHA/links).")
        }
        let query = try Self.offerQuery(request)
        // The address is read as a sign-in proxy's name is: lower-cased as the library map reads
        // addresses, and refused when it could stand for another person's library.
        let named: String?
        do {
            named = try Self.proxyUserName(query["user"] ?? "")
        } catch {
            throw APIError(.badRequest, .badValue, "The address in ?user= is not one this wallet keeps a library for. Nothing was changed.")
        }
        guard let user = named else {
            throw APIError(.badRequest, .badValue, "A service token names the library it acts on: add ?user=ADDRESS. Nothing was changed.")
        }
        guard let library = try await config.libraries(user) else {
            throw APIError(.notFound, .noLibrary, "There is no pass library for this address on this server.")
        }
        if path.count == 1 {
            route = "/api/v1/offers"
            return try await apiStageOffers(request, query: query, user: user, library: library)
        }
        guard let answer = try await apiLinks(request, path: path, user: user, library: library, peer: peer, route: &route) else {
            throw APIError(.methodNotAllowed, .methodNotAllowed, "\(method.rawValue) is not taken at \(route).")
        }
        return answer
    }

    /// Stages the passes in the body as offers with the query's provenance; one result per pass
    /// (`offer --json`'s objects). 200 when any pass was offered or needed no offer, else 422.
    func apiStageOffers(_ request: Request, query: [String: String], user: String,
                        library: any PassLibraryBackend) async throws -> (String, Response) {
        let route = "/api/v1/offers"
        return try await withUpload(request, user: user) { bytes in
            guard !bytes.isEmpty else {
                throw APIError(.badRequest, .notAPass, "The request has no body: send the bytes of the file that holds the pass. Nothing was changed.")
            }
            let name = query["name"] ?? "upload"
            let setup = config.setup, opener = config.opener, seconds = config.uploadSeconds
            let scanned = try await offPool { () -> Result<([FoundPass], [(String, String?)]), WebProblem> in
                Result {
                    let scanned = try WebUpload.scan(bytes: bytes[...], name: name, setup: setup, opener: opener, library: nil,
                                                     seconds: seconds, route: route, title: "Not offered")
                    return (scanned.found, scanned.lines)
                }
                    .mapError { $0 as? WebProblem ?? WebProblem(.internalServerError, route: route, title: "Not offered",
                                                                "The upload could not be read; nothing was changed.") }
            }.get()
            let chat = PassSource(receivedAt: Date(), network: query["network"], room: query["room"], eventID: query["eventId"],
                                  sender: query["sender"])
            var results: [JSONOutput] = []
            var seen = Set<String>()
            var taken = false
            for pass in scanned.0 where seen.insert(pass.verdict.sha256).inserted {
                let outcome = try await OfferIntake.stage(pass, chat: chat.isChat ? chat : nil, library: library)
                if !outcome.isRefusal { taken = true }
                results.append(OfferIntake.json(pass, outcome))
            }
            for (line, _) in scanned.1 { results.append(.object([("result", .string("problem")), ("message", .string(line))])) }
            if scanned.0.isEmpty && scanned.1.isEmpty {
                results.append(.object([("result", .string("problem")), ("message", .string("\(name): no pass found in this file."))]))
            }
            return (route, Self.json(taken ? .ok : .unprocessableContent, .object([("results", .array(results))])))
        }
    }
}
