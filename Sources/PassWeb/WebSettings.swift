import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import PassStore
import Support

/// `/settings`: the calendar subscription (create, renew, revoke), notices (on or off for this
/// library, and their lead times) and the API tokens (create with a name, list, revoke). A new secret is shown once, on the page that answers its
/// creation; only its SHA-256 is kept. Every change is a POST carrying the session's form token
/// (checked with the Origin in `WebApp.route`, as for every form); GET changes nothing.
extension WebPages {
    func settings(_ request: Request, method: HTTPRequest.Method, segments: [Substring], form: [String: String]) async throws -> Answer {
        let get = method == .get || method == .head
        let user = visitor.session.user
        let state = app.config.state
        switch segments.count {
        case 1 where get:
            return Answer(route: "/settings", response: try await settingsPage(request, notice: ""))
        case 2 where !get && segments[1] == "calendar":
            switch form["action"] {
            case "renew"?:
                let secret = try await state.renewCalendarSecret(user: user)
                let urls = app.calendarURLs(visitor.origin, secret: secret)
                let notice = """
                <div class="note" role="status"><p>Your calendar address (shown only now: copy it into your calendar program; renewing or revoking it stops this one):</p>
                <p><a href="\(Self.e(urls.webcal))">\(Self.e(urls.webcal))</a></p>
                <p>For calendars that want https (Google Calendar's “From URL”): <code>\(Self.e(urls.https))</code></p></div>

                """
                return Answer(route: "/settings/calendar", response: try await settingsPage(request, notice: notice, title: "Calendar address made"))
            case "revoke"?:
                try await state.revokeCalendarSecret(user: user)
                return Answer(route: "/settings/calendar", response: try await settingsPage(request,
                    notice: "<p class=\"note\" role=\"status\">The calendar address is revoked: calendars subscribed to it get nothing more.</p>\n",
                    title: "Calendar address revoked"))
            default:
                break
            }
        case 2 where !get && segments[1] == "zone":
            return try await chooseZone(request, form: form)
        case 2 where !get && segments[1] == "tokens":
            let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.count <= WebState.maxTokenName,
                  !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                return Answer(route: "/settings/tokens", response: try await settingsPage(request,
                    notice: "<p class=\"problem\" role=\"alert\">Give the token a name of up to \(WebState.maxTokenName) characters (what will use it, such as “chat bridge”). No token was made.</p>\n",
                    status: .badRequest))
            }
            // An expiry in days from now, or none (the form's first choice).
            let expiry = (form["expires"] ?? "").trimmingCharacters(in: .whitespaces)
            var expires: Date?
            if !expiry.isEmpty {
                guard let days = Int(expiry), (1...WebState.maxTokenDays).contains(days) else {
                    return Answer(route: "/settings/tokens", response: try await settingsPage(request,
                        notice: "<p class=\"problem\" role=\"alert\">A token expires after 1 to \(WebState.maxTokenDays) days, or never. No token was made.</p>\n",
                        status: .badRequest))
                }
                expires = Date().addingTimeInterval(TimeInterval(days) * 86400)
            }
            let made = try await state.createToken(user: user, name: name, expires: expires)
            let notice = """
            <div class="note" role="status"><p>Your new API token “<span dir="auto">\(Self.e(name))</span>” (shown only now: copy it; it cannot be shown again\(expires.map { "; it stops working on \(Self.e(when($0)))" } ?? "")):</p>
            <p><code class="secret">\(made.token)</code></p>
            <p>Use it as <code>Authorization: Bearer TOKEN</code>, for example:<br><code>curl -H 'Authorization: Bearer \(made.token)' \(Self.e(visitor.origin.description))/api/v1/passes</code></p></div>

            """
            return Answer(route: "/settings/tokens", response: try await settingsPage(request, notice: notice, title: "API token made"))
        case 2 where !get && segments[1] == "notices":
            return Answer(route: "/settings/notices", response: try await saveNotices(request, form: form))
        case 4 where !get && segments[1] == "tokens" && segments[3] == "revoke":
            guard try await state.revokeToken(user: user, id: String(segments[2])) else {
                throw WebProblem(.notFound, route: "/settings/tokens/{id}/revoke", title: "Not found", "You have no such API token.")
            }
            return Answer(route: "/settings/tokens/{id}/revoke", response: try await settingsPage(request,
                notice: "<p class=\"note\" role=\"status\">The API token is revoked: requests with it are refused from now on.</p>\n",
                title: "API token revoked"))
        default:
            break
        }
        throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such page.")
    }

    func settingsPage(_ request: Request, notice: String, title: String = "Settings", status: HTTPResponse.Status = .ok) async throws -> Response {
        let user = visitor.session.user
        let state = app.config.state
        var h = notice
        if !user.isEmpty {
            h += "<section aria-labelledby=\"account\"><h2 id=\"account\">Your wallet</h2>\n"
                + "<p>This is the wallet of <strong dir=\"auto\">\(Self.e(user))</strong>. Not you? Sign out, and sign in with your own address.</p>\n"
                + "<form method=\"post\" action=\"/logout\" class=\"inline\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\"><button type=\"submit\">Sign out</button></form>\n"
                + "</section>\n"
        }
        h += zoneSection(request)
        h += "<section aria-labelledby=\"calendar\"><h2 id=\"calendar\">Calendar subscription</h2>\n"
        h += "<p>Your calendar program can subscribe to the dates of your passes, and keeps them up to date. "
            + "The address holds a secret of its own: anyone who has it sees your passes' dates, so renew or revoke it when it was shared by mistake. "
            + "For reminders, add <code>?alarm=3h</code> (any lead time: 30m, 1d) or <code>?alarm=kind</code> "
            + "(3 hours before a flight, a day before an event, an hour before any other date) to the address.</p>\n"
        let form = { (action: String, label: String, danger: Bool) in
            "<form method=\"post\" action=\"/settings/calendar\" class=\"inline\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">"
                + "<button type=\"submit\" name=\"action\" value=\"\(action)\"\(danger ? " class=\"danger\"" : "")>\(label)</button></form>"
        }
        if let made = try await state.calendarSubscription(user: user) {
            h += "<p>You have a calendar address, made \(Self.e(when(made))). It is shown only when it is made; "
                + "renew it for a new one (calendars subscribed to the old one then stop getting your passes).</p>\n"
            h += "<div class=\"actions\">" + form("renew", "Renew the address", false) + " " + form("revoke", "Revoke it", true) + "</div>\n"
        } else {
            h += "<div class=\"actions\">" + form("renew", "Make a calendar address", false) + "</div>\n"
        }
        h += "</section>\n"

        h += try await noticesSection()
        h += "<section aria-labelledby=\"tokens\"><h2 id=\"tokens\">API tokens</h2>\n"
        h += "<p>A chat bridge or a script reaches your passes through the JSON API (<code>/api/v1/passes</code>) with a token. Each token is shown once, when it is made.</p>\n"
        let tokens = try await state.tokens(user: user)
        if tokens.isEmpty {
            h += "<p>You have no API token.</p>\n"
        } else {
            h += "<table class=\"tokens\"><thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Made</th><th scope=\"col\">Last used</th><th scope=\"col\">Expires</th><th scope=\"col\">Revoke</th></tr></thead><tbody>\n"
            for token in tokens {
                h += "<tr><td dir=\"auto\">\(Self.e(token.name))</td><td>\(Self.e(when(token.created)))</td>"
                    + "<td>\(token.lastUsed.map { Self.e(when($0)) } ?? "never")</td>"
                    + "<td>\(token.expires.map { ($0 <= Date() ? "expired " : "") + Self.e(when($0)) } ?? "no expiry")</td>"
                    + "<td><form method=\"post\" action=\"/settings/tokens/\(token.id)/revoke\" class=\"inline\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">"
                    + "<button type=\"submit\" class=\"danger\" aria-label=\"Revoke the token \(Self.e(token.name))\">Revoke</button></form></td></tr>\n"
            }
            h += "</tbody></table>\n"
        }
        h += """
        <form method="post" action="/settings/tokens" class="search">
        <input type="hidden" name="csrf" value="\(csrf)">
        <label>Name of a new token <input name="name" type="text" maxlength="\(WebState.maxTokenName)" required></label>
        <label>Expires <select name="expires"><option value="">never</option><option value="30">in 30 days</option><option value="90">in 90 days</option><option value="365">in a year</option></select></label>
        <button type="submit">Make a token</button>
        </form>
        </section>

        """
        return page(title, body: h, status: status)
    }
}

extension WebPages {
    /// The form's lead-time fields: name, label, the pass styles whose config default it shows.
    static let noticeLeadFields: [(name: String, label: String, kind: String)] = [
        ("boarding-pass", "Before a flight or other departure", "boardingPass"),
        ("event", "Before an event starts", "eventTicket"),
        ("other", "Before any other pass's date", "generic"),
    ]

    /// "Notices" (issue 43 item 2): this library's own switch and lead times, kept in the
    /// library and read by `notices --send`; the host's `[notices]` values are the defaults.
    func noticesSection() async throws -> String {
        let host = app.config.notices
        var h = "<section aria-labelledby=\"notices\"><h2 id=\"notices\">Notices</h2>\n"
        guard host.enabled else {
            h += "<p>This wallet's host sends no notices of gate changes or coming dates.</p>\n</section>\n"
            return h
        }
        let own = try await library.noticePreferences()
        let on = own.enabled ?? !host.optIn
        let ways = [host.mail ? "by mail" : nil, host.desktop ? "on the desktop" : nil].compactMap { $0 }.joined(separator: " and ")
        h += "<p>When an issuer changes one of your passes (“Gate changed to B22”) or voids it, and before a pass's time, "
            + "you are told\(ways.isEmpty ? "" : " " + ways). "
            + "Notices are <strong>\(on ? "on" : "off")</strong> for your library.</p>\n"
        h += "<form method=\"post\" action=\"/settings/notices\" class=\"search\">\n"
            + "<input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">\n"
            + "<label><input type=\"checkbox\" name=\"enabled\" value=\"on\"\(on ? " checked" : "")> Send me notices</label>\n"
        for field in Self.noticeLeadFields {
            let mine: Int? = switch field.name {
            case "boarding-pass": own.boardingPassMinutes
            case "event": own.eventTicketMinutes
            default: own.otherMinutes
            }
            let fallback = Int((host.leadTimes.byKind[field.kind] ?? 0) / 60)
            h += "<label>\(field.label), minutes (0: no reminder; empty: \(fallback)) "
                + "<input name=\"\(field.name)\" type=\"number\" min=\"0\" max=\"\(NoticePreferences.maxMinutes)\" step=\"1\" "
                + "placeholder=\"\(fallback)\" value=\"\(mine.map(String.init) ?? "")\"></label>\n"
        }
        h += "<button type=\"submit\">Save notice settings</button>\n</form>\n</section>\n"
        return h
    }

    /// POST /settings/notices: the switch (a checkbox: absent is off) and three lead times in
    /// minutes (empty: the host's). Anything else changes nothing and says why.
    func saveNotices(_ request: Request, form: [String: String]) async throws -> Response {
        guard app.config.notices.enabled else {
            return try await settingsPage(request,
                notice: "<p class=\"problem\" role=\"alert\">This wallet's host sends no notices; nothing was changed.</p>\n",
                status: .conflict)
        }
        var preferences = NoticePreferences(enabled: form["enabled"] == "on")
        for field in Self.noticeLeadFields {
            let text = (form[field.name] ?? "").trimmingCharacters(in: .whitespaces)
            var minutes: Int?
            if !text.isEmpty {
                guard text.count <= 6, let value = Int(text), (0...NoticePreferences.maxMinutes).contains(value) else {
                    return try await settingsPage(request,
                        notice: "<p class=\"problem\" role=\"alert\">A lead time is a whole number of minutes from 0 to \(NoticePreferences.maxMinutes) (two weeks), or empty. Nothing was changed.</p>\n",
                        status: .badRequest)
                }
                minutes = value
            }
            switch field.name {
            case "boarding-pass": preferences.boardingPassMinutes = minutes
            case "event": preferences.eventTicketMinutes = minutes
            default: preferences.otherMinutes = minutes
            }
        }
        try await library.setNoticePreferences(preferences)
        return try await settingsPage(request,
            notice: "<p class=\"note\" role=\"status\">Notice settings saved: notices are \(preferences.enabled == true ? "on" : "off") for your library.</p>\n",
            title: "Notice settings saved")
    }
}

extension WebApp {
    /// The wallet's address as the browser reached it: `--public-url` when given; else the
    /// request's Host, over https with TLS or behind the sign-in proxy (which does TLS), or as a
    /// trusted proxy says (`X-Forwarded-Proto`, `Forwarded: proto=`), plain http only on this
    /// machine's loopback without TLS.
    func origin(_ request: Request, peer: String?) -> PublicOrigin {
        if let known = config.publicURL { return known }
        let host = request.head.authority.flatMap { a in
            a.utf8.allSatisfy { b in (0x21...0x7E).contains(b) && b != UInt8(ascii: "/") && b != UInt8(ascii: "\"") && b != UInt8(ascii: "<") }
                ? a : nil
        } ?? "localhost"
        var scheme = "https"
        if config.tls == nil {
            if let forwarded = forwardedScheme(request, peer: peer) {
                scheme = forwarded
            } else if case .header = config.signIn {
                scheme = "https"
            } else if config.listen.isLoopback {
                scheme = "http"
            }
        }
        return PublicOrigin(scheme: scheme, authority: host)
    }

    /// "https" or "http" as a trusted proxy names the browser's scheme (`X-Forwarded-Proto`, else
    /// `Forwarded: proto=`, RFC 7239); nil from any other peer, or when it says neither.
    func forwardedScheme(_ request: Request, peer: String?) -> String? {
        var trusted = config.trustedProxies
        if case .header(_, let proxies) = config.signIn { trusted += proxies }
        if let peer {
            guard trusted.contains(where: { $0.contains(peer) }) else { return nil }
        } else if !config.socketProxyTrusted {
            return nil  // a unix-socket peer is believed only with --trusted-proxy unix
        }
        // What the trusted proxy itself wrote: the last entry of each header (the shipped nginx
        // sample replaces X-Forwarded-Proto and passes a client's own Forwarded through, so an
        // earlier entry, or a Forwarded beside a proxy's X-Forwarded-Proto, is the client's).
        if let proto = request.headers[values: HTTPField.Name("X-Forwarded-Proto")!].last {
            let value = (proto.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            if value == "https" || value == "http" { return value }
        }
        if let value = ClientAddress.lastHop("proto", of: request.headers)?.lowercased(), value == "https" || value == "http" {
            return value
        }
        return nil
    }

    /// A calendar secret's subscription addresses: `webcal://` (Apple Calendar, Thunderbird,
    /// GNOME, Outlook) and the same over http(s) (Google Calendar wants that).
    func calendarURLs(_ origin: PublicOrigin, secret: String) -> (webcal: String, https: String) {
        let path = "/calendar/\(secret).ics"
        return ("webcal://" + origin.authority + path, origin.description + path)
    }
}
