import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PassStore
import Support
import WalletPass

/// Share links (issue 42 item 2): `/s/…` serves one pass's current bytes to anyone holding the
/// link, without signing in, until it expires, is revoked or (made for one download) was used.
/// The library keeps only the secret's SHA-256; the secret is shown once, in the answer that
/// made it, and never reaches the log (its route is `/s/…`), an error or a list. Every link
/// that serves nothing gets the same 404, so a link's state does not leak.
extension WebApp {
    static let shareRoute = "/s/…"
    static let shareDaysChoices = [1, 7, 30]

    /// The owner a link names: none where this wallet keeps one library (desktop), else the
    /// signed-in address, so `/s/` finds that library among the map's.
    func shareOwner(_ user: String) -> String? { config.signIn.isDesktop ? nil : user }

    func sharedPass(_ request: Request, segments: [Substring]) async throws -> Answer? {
        guard segments.first == "s", segments.count >= 2 else { return nil }
        let route = Self.shareRoute
        let nobody = WebProblem(.notFound, route: route, title: "Not found",
                                "There is no pass at this link. A shared pass's link works until it expires or is revoked, and a link made for one download works once.")
        guard request.method == .get else {
            throw WebProblem(.methodNotAllowed, route: route, title: "Not allowed", "A shared pass is only fetched (GET).")
        }
        try checkHost(request)
        guard segments.count == 2, let parsed = ShareLink.parse(segments[1]) else { throw nobody }
        let (owner, secret) = parsed
        let user: String
        if config.signIn.isDesktop {
            user = owner ?? ""
        } else {
            guard let owner else { throw nobody }
            user = owner
        }
        guard let library = try await config.libraries(user),
              let redeemed = try await library.redeemShareLink(secretHash: ShareLink.hash(secret)) else { throw nobody }
        let (link, bytes) = redeemed
        let pass = try await library.pass(link.passID)
        var headers = HTTPFields()
        headers[.contentType] = "application/vnd.apple.pkpass"
        headers[.contentLength] = "\(bytes.count)"
        headers[.contentDisposition] = "attachment; filename=\"\(Self.safeFileName(pass?.description ?? "")).pkpass\""
        return Answer(route: route, response: Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes))))
    }

    /// A pass's description as a file name any system takes: ASCII letters and digits, `-` for
    /// anything else, at most 60 characters; "pass" for none. The pass page's download and a
    /// share link name the file alike.
    static func safeFileName(_ description: String) -> String {
        String((description.isEmpty ? "pass" : description).unicodeScalars
            .map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "-" }.prefix(60))
    }

    /// A new link to `pass` lasting `days` days: the link, and its full address (shown once).
    func makeShareLink(_ pass: StoredPass, days: Int, oneDownload: Bool, user: String, origin: PublicOrigin,
                       library: any PassLibraryBackend) async throws -> (link: ShareLink, url: String) {
        let secret = ShareLink.newSecret()
        let link = try await library.createShareLink(pass.id, secretHash: ShareLink.hash(secret),
                                                     expires: Date().addingTimeInterval(TimeInterval(days) * 86400), oneDownload: oneDownload)
        return (link, origin.description + ShareLink.path(secret: secret, owner: shareOwner(user)))
    }

    /// `/api/v1/passes/SHA/links` and `/api/v1/passes/SHA/links/ID`.
    func apiLinks(_ request: Request, path: [Substring], user: String, library: any PassLibraryBackend, peer: String?,
                  route: inout String) async throws -> (String, Response)? {
        let method = request.method
        if path.count == 3 {
            route = "/api/v1/passes/{sha256}/links"
            let pass = try await apiPass(String(path[1]), library: library)
            if method == .get || method == .head {
                return (route, Self.json(.ok, .array(try await library.shareLinks(pass.id).map { ShareLinkJSON.object($0) })))
            }
            guard method == .post else { return nil }
            let body = try await jsonObject(request)
            var days = ShareLink.defaultDays
            if let value = body["days"] {
                // A number, not a boolean: JSONSerialization on Linux read 1 as true, and refused {"days": 1}.
                guard case .number = value, let n = value.integer, (1...ShareLink.maxDays).contains(n) else {
                    throw APIError(.badRequest, .badValue, "\"days\" is a whole number of days from 1 to \(ShareLink.maxDays). Nothing was changed.")
                }
                days = n
            }
            var once = false
            if let value = body["oneDownload"] {
                guard case .bool(let b) = value else {
                    throw APIError(.badRequest, .badValue, "\"oneDownload\" is true or false. Nothing was changed.")
                }
                once = b
            }
            let (link, url) = try await makeShareLink(pass, days: days, oneDownload: once, user: user,
                                                      origin: origin(request, peer: peer), library: library)
            return (route, Self.json(.created, .object([("url", .string(url)), ("link", ShareLinkJSON.object(link))])))
        }
        route = "/api/v1/passes/{sha256}/links/{id}"
        guard method == .delete else { return nil }
        try await jsonBody(request)
        let pass = try await apiPass(String(path[1]), library: library)
        let text = path[3]
        guard text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text),
              try await library.shareLinks(pass.id).contains(where: { $0.id == id }), try await library.revokeShareLink(id),
              let link = try await library.shareLinks(pass.id).first(where: { $0.id == id }) else {
            throw APIError(.notFound, .notFound, "This pass has no such link.")
        }
        return (route, Self.json(.ok, .object([("revoked", ShareLinkJSON.object(link))])))
    }

    /// The JSON object of a request's body ({} for none); a 400 for anything else.
    func jsonObject(_ request: Request) async throws -> [String: JSONValue] {
        var request = request
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maxAPIJSONBytes {
            throw NIOTooManyBytesError(maxBytes: Self.maxAPIJSONBytes)
        }
        let body = try await request.collectBody(upTo: Self.maxAPIJSONBytes)
        let bytes = Data(body.readableBytesView)
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else { return [:] }
        guard let object = JSONValue.parse(Array(bytes))?.object else {
            throw APIError(.badRequest, .badJSON, "The request body is not a JSON object. Nothing was changed.")
        }
        return object
    }
}

extension WebPages {
    /// The pass page's "Share" section: the form that makes a link, and the pass's links with
    /// when each was used and a Revoke button. Drawn on every request (links change without
    /// the change log moving).
    func shareSection(_ pass: StoredPass, hash: String, now: Date = Date()) async throws -> String {
        let links = try await library.shareLinks(pass.id)
        var h = "<section aria-labelledby=\"share\"><h2 id=\"share\">Share</h2>\n"
        h += """
        <p>A link anyone can open to add this pass to their Wallet, without signing in. It is shown once.</p>
        <form method="post" action="/passes/\(hash)/share"><input type="hidden" name="csrf" value="\(csrf)">
        <label>Works for <select name="days">\(WebApp.shareDaysChoices.map { "<option value=\"\($0)\"\($0 == ShareLink.defaultDays ? " selected" : "")>\($0) day\($0 == 1 ? "" : "s")</option>" }.joined())</select></label>
        <label><input type="checkbox" name="once" value="1"> One download only</label>
        <button type="submit">Share…</button></form>

        """
        if !links.isEmpty {
            h += "<table class=\"links\"><thead><tr><th>Link</th><th>Created</th><th>Expires</th><th>Used</th><th></th></tr></thead><tbody>\n"
            for link in links.reversed() {
                let state = link.state(at: now)
                var used = link.uses == 0 ? "never" : (link.uses == 1 ? "once" : "\(link.uses) times")
                if let last = link.lastUsed { used += ", last \(when(last))" }
                let status: String
                switch state {
                case .live:
                    status = """
                    <form method="post" action="/passes/\(hash)/links/\(link.id)/revoke"><input type="hidden" name="csrf" value="\(csrf)"><button type="submit" class="danger">Revoke</button></form>
                    """
                case .expired: status = "expired"
                case .revoked: status = "revoked"
                case .used: status = "used"
                }
                h += "<tr><td>#\(link.id)\(link.oneDownload ? " (one download)" : "")</td><td>\(Self.e(when(link.created)))</td>"
                    + "<td>\(Self.e(when(link.expires)))</td><td>\(Self.e(used))</td><td>\(status)</td></tr>\n"
            }
            h += "</tbody></table>\n"
        }
        return h + "</section>\n"
    }

    /// POST `/passes/HASH/share`: makes the link and shows it, once.
    func share(_ hash: String, form: [String: String]) async throws -> Answer {
        let route = "/passes/{hash}/share"
        let pass = try await storedPass(hash)
        guard let days = form["days"].flatMap({ Int($0) }), WebApp.shareDaysChoices.contains(days) else {
            throw WebProblem(.badRequest, route: route, title: "Not shared", "Choose how long the link works: 1, 7 or 30 days. Nothing was changed.")
        }
        let once = form["once"] != nil
        let (link, url) = try await app.makeShareLink(pass, days: days, oneDownload: once, user: visitor.session.user,
                                                      origin: visitor.origin, library: library)
        let h = """
        <p>Anyone with this link can add <strong dir="auto">\(Self.e(pass.organizationName)) · \(Self.e(pass.description))</strong> to their Wallet \(once ? "once, " : "")until \(Self.e(when(link.expires))).</p>
        <p><input class="sharelink" type="text" readonly size="60" value="\(Self.e(url))" aria-label="The link"></p>
        <p>This is the only time the link is shown: copy it now. You can revoke it on the pass's page.</p>
        <p><a href="\(Self.page(pass.id))">Back to the pass</a></p>
        """
        return Answer(route: route, response: page("Share link", body: h))
    }

    /// POST `/passes/HASH/links/ID/revoke`.
    func revokeLink(_ hash: String, _ text: String) async throws -> Answer {
        let route = "/passes/{hash}/links/{id}/revoke"
        let pass = try await storedPass(hash)
        guard text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text),
              try await library.shareLinks(pass.id).contains(where: { $0.id == id }) else {
            throw WebProblem(.notFound, route: route, title: "Not found", "This pass has no such link.")
        }
        _ = try await library.revokeShareLink(id)
        return Answer(route: route, response: app.redirect(Self.page(pass.id)))
    }
}
