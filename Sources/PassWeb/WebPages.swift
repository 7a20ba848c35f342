import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PassRender
import PassStore
import Support
import WalletPass

/// The pages of one signed-in user, over their library only. Server-rendered HTML that works
/// with JavaScript off; every pass text goes through the renderer's escaping.
struct WebPages {
    let app: WebApp
    let visitor: WebApp.Visitor
    let library: any PassLibraryBackend
    let languages: [String]
    /// The viewer's time zone (`WebTime`): chosen on Settings, else the browser's; nil when
    /// neither is known.
    var zone: TimeZone? = nil
    /// When this browser last looked at the list (`WebAddress`); nil on a first look.
    var seen: Date? = nil

    typealias Answer = WebApp.Answer
    static func e(_ s: String) -> String { HTMLText.escape(s) }
    var csrf: String { visitor.session.csrf }

    var opener: PassOpener {
        let base = app.config.opener
        var opener = PassOpener(trust: base.trust, limits: base.limits, preferredLanguages: languages)
        opener.shownZone = WebTime.shown(zone)
        return opener
    }

    func handle(method: HTTPRequest.Method, segments: [Substring], query: [String: String], form: [String: String],
                parts: [WebForm.Part]) async throws -> Answer {
        let get = method == .get || method == .head
        switch (segments.count, segments.first ?? "") {
        case (1, ""):
            guard get else { break }
            return try await passList(query: query)
        case (1, "offline.json"):
            guard get else { break }
            return WebOffline.list(key: offlineKey, passes: try await listSnapshot().passes)
        case (2, "passes"):
            guard get else { break }
            let name = segments[1]
            if name.hasSuffix(".pkpass") {
                return try await download(String(name.dropLast(".pkpass".count)), attachment: query["download"] != nil)
            }
            return try await passPage(String(name))
        case (3, "passes") where segments[2] == "update" && !get:
            return try await checkForUpdate(String(segments[1]))
        case (3, "passes") where segments[2] == "remove":
            return try await remove(String(segments[1]), confirmed: !get)
        case (3, "passes") where segments[2] == "share" && !get:
            return try await share(String(segments[1]), form: form)
        case (5, "passes") where segments[2] == "links" && segments[4] == "revoke" && !get:
            return try await revokeLink(String(segments[1]), String(segments[3]))
        case (1, "offers"):
            guard get else { break }
            return try await offerList()
        case (2, "offers"):
            guard get else { break }
            return try await offerPage(String(segments[1]))
        case (3, "offers") where !get && (segments[2] == "accept" || segments[2] == "decline"):
            return try await decide(String(segments[1]), accept: segments[2] == "accept")
        case (1, "add"):
            if get { return Answer(route: "/add", response: page("Add a pass", body: addForm(message: nil))) }
            return try await upload(parts)
        default:
            break
        }
        throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such page.")
    }

    // MARK: Layout

    func page(_ title: String, body: String, head: String = "", status: HTTPResponse.Status = .ok) -> Response {
        app.page(status, title: title, bodyParts: [body], head: head, nav: nav, offlineKey: offlineKey)
    }

    func page(_ title: String, bodyParts: [String]) -> Response {
        app.page(.ok, title: title, bodyParts: bodyParts, nav: nav, offlineKey: offlineKey)
    }

    /// The name of this session's offline cache (see WebOffline).
    var offlineKey: String { WebOffline.key(csrf: csrf) }

    var nav: String {
        // Whose wallet this is, on every page (a shared tablet: issue 41 item 5); the desktop wallet has one owner.
        let who = visitor.session.user.isEmpty ? "" : "<span class=\"who\">Signed in as <strong dir=\"auto\">\(Self.e(visitor.session.user))</strong></span>\n"
        return """
        <nav aria-label="Wallet"><a href="/">Passes</a> <a href="/offers">Offers</a> <a href="/add">Add a pass</a> <a href="/settings">Settings</a>
        \(who)<form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="\(csrf)"><button type="submit">Sign out</button> <button type="submit" name="everywhere" value="1">Sign out everywhere</button></form></nav>
        """
    }

    static func document(title: String, head: String, nav: String, body: String) -> String {
        let (before, after) = document(title: title, head: head, nav: nav)
        return before + body + after
    }

    /// The page around its body: what comes before it and after it.
    static func document(title: String, head: String, nav: String) -> (before: String, after: String) {
        ("""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="referrer" content="no-referrer">
        <title>\(e(title)) · passconduit</title>
        <link rel="stylesheet" href="/style.css">
        <link rel="icon" href="data:,">
        \(head)</head>
        <body>
        <header class="top">\(nav)</header>
        <main>
        <h1>\(e(title))</h1>

        """, """

        </main>
        </body>
        </html>

        """)
    }

    /// The sign-in form; after a refused attempt it keeps the address that was typed (never the
    /// password) and puts the cursor in the password field.
    static func loginForm(message: String?, typed: String = "") -> String {
        var h = ""
        if let message { h += "<p class=\"problem\" role=\"alert\">\(e(message))</p>\n" }
        let kept = String(typed.prefix(320))
        let value = kept.isEmpty ? "" : " value=\"\(e(kept))\""
        h += """
        <form method="post" action="/login" class="login">
        <label>Mailbox address <input name="user" type="text" autocomplete="username" required\(value)></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required\(kept.isEmpty ? "" : " autofocus")></label>
        <button type="submit">Sign in</button>
        </form>
        """
        return h
    }

    static func size(_ bytes: Int) -> String { "\(bytes / (1024 * 1024)) MB" }

    // MARK: The pass list

    func passList(query: [String: String]) async throws -> Answer {
        let snapshot = try await listSnapshot()
        var q = LibraryView.Query()
        q.text = query["q"].flatMap { $0.isEmpty ? nil : $0 }
        q.kind = query["kind"].flatMap { $0.isEmpty ? nil : $0 }
        q.upcoming = query["when"] == "upcoming"
        q.past = query["when"] == "past"
        let kinds = [("", "Every kind"), ("boardingPass", "Boarding passes"), ("eventTicket", "Event tickets"), ("coupon", "Coupons"),
                     ("storeCard", "Store cards"), ("generic", "Other passes")]
        var h = """
        <form method="get" action="/" class="search" role="search">
        <label>Search <input type="search" name="q" value="\(Self.e(q.text ?? ""))"></label>
        <label>Kind <select name="kind">\(kinds.map { "<option value=\"\($0.0)\"\(q.kind == $0.0 ? " selected" : "")>\($0.1)</option>" }.joined())</select></label>
        <button type="submit">Search</button>
        </form>

        """
        let offers = snapshot.offers
        if !offers.isEmpty {
            h += "<p class=\"note\"><a href=\"/offers\">\(offers.count == 1 ? "1 pass is" : "\(offers.count) passes are") waiting for you to accept or decline.</a></p>\n"
        }
        h += try await whatChanged()
        let now = Date()
        var r = page("Your passes", bodyParts: [h, try await sections(snapshot, query: q, now: now)])
        r.headers[.setCookie] = seenCookie(now)
        return Answer(route: "/", response: r)
    }

    /// How far back "What changed" looks, and how many notices it shows.
    static let whatChangedDays = 7
    static let whatChangedCount = 10

    /// "What changed" (issue 43 item 2): this library's recent notices, newest first, those not
    /// shown before marked new; showing them marks them seen (the `web` channel's claim), so
    /// the next visit shows them without the mark. Empty when there is none.
    func whatChanged(now: Date = Date()) async throws -> String {
        let since = now.addingTimeInterval(-Double(Self.whatChangedDays) * 86_400)
        let notices = try await library.notices(since: since, limit: Self.whatChangedCount).filter { $0.due <= now }
        guard !notices.isEmpty else { return "" }
        var h = "<section aria-labelledby=\"changed\" class=\"notices\"><h2 id=\"changed\">What changed</h2>\n<ul class=\"notices\">"
        for notice in notices {
            let words = NoticeWords(notice)
            let unread = !notice.sent.contains(Notice.Channel.web.rawValue)
            let what = "<span class=\"text\" dir=\"auto\">\(Self.e(words.sentence))</span>"
                + (words.passLine.map { " <span class=\"org\" dir=\"auto\">\(Self.e($0))</span>" } ?? "")
            let linked = notice.pass.map { _ in "<a href=\"\(Self.page(notice.passID))\">\(what)</a>" } ?? what
            h += "<li\(unread ? " class=\"unread\"" : "")>" + (unread ? "<strong class=\"mark\">New</strong> " : "") + linked
                + " <time datetime=\"\(DateText.iso(notice.created))\">\(Self.e(when(notice.created)))</time></li>"
            if unread { _ = try await library.claimNotice(notice.id, channel: .web) }
        }
        return h + "</ul></section>\n"
    }

    /// This user's passes, offers and pass times, from the wallet's cache while their library's
    /// change log has not moved (`WebListCache`).
    func listSnapshot() async throws -> WebListCache.Snapshot {
        let app = self.app, library = self.library, opener = self.opener
        return try await app.lists.snapshot(user: visitor.session.user, library: library) { passes in
            await app.times(for: passes, library: library, opener: opener)
        }
    }

    /// The list's passes for a search, drawn once for the snapshot and kept until the first
    /// moment the drawing would differ (a pass expires, a date falls behind: `LibraryView.nextChange`).
    func sections(_ snapshot: WebListCache.Snapshot, query q: LibraryView.Query, now: Date = Date()) async throws -> String {
        let changed = Self.changed(snapshot.passes, since: seen)
        let search = [q.text ?? "", q.kind ?? "", q.upcoming ? "u" : "", q.past ? "p" : "",
                      "\(app.config.openers.generation)", languages.joined(separator: ","), zoneKey,
                      changed.sorted { $0.key < $1.key }.map { $0.key + $0.value }.joined(separator: ",")].joined(separator: "\u{0}")
        let user = visitor.session.user
        if let kept = app.lists.drawn(user: user, library: library, tip: snapshot.tip, search: search, now: now) { return kept }
        let passes = snapshot.passes
        let view = LibraryView(passes: passes, times: snapshot.times, query: q, now: now)
        var h = ""
        if passes.isEmpty {
            h += "<p>Your library is empty. <a href=\"/add\">Add a pass</a>.</p>\n"
        } else if view.current.isEmpty && view.archived.isEmpty {
            h += "<p>No pass matches.</p>\n"
        }
        let faces = await app.faces.faces(for: (view.currentItems + view.archivedItems).map(\.pass), languages: languages + ["@" + zoneKey],
                                          library: library, opener: opener)
        if !view.current.isEmpty {
            h += "<section aria-labelledby=\"next\"><h2 id=\"next\">Passes</h2>\n" + stack(view.current, faces: faces, changed: changed, now: now) + "</section>\n"
        }
        if !view.archived.isEmpty {
            h += "<section aria-labelledby=\"expired\" class=\"past\"><h2 id=\"expired\">Expired</h2>\n" + stack(view.archived, faces: faces, changed: changed, now: now) + "</section>\n"
        }
        let validUntil = LibraryView.nextChange(passes: passes, times: snapshot.times, after: now) ?? .distantFuture
        app.lists.keep(user: user, library: library, tip: snapshot.tip, search: search, html: h, validUntil: validUntil)
        return h
    }

    // MARK: One pass

    /// The stored pass whose full SHA-256 is `hash`, in this user's library only.
    func stored(_ hash: String) async throws -> (StoredPass, [UInt8]) {
        let pass = try await storedPass(hash)
        return (pass, try await library.export(pass.id))
    }

    /// From the user's cached list when it is current (one look at the change log's tail), else
    /// one indexed lookup by the full digest (not a scan of the whole library).
    func storedPass(_ hash: String) async throws -> StoredPass {
        if Self.isAddress(hash) {
            guard let pass = try await pass(atAddress: hash) else {
                throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such pass in your library.")
            }
            return pass
        }
        return try await storedPass(hash, known: try await app.lists.current(user: visitor.session.user, library: library))
    }

    func storedPass(_ hash: String, known: WebListCache.Snapshot?) async throws -> StoredPass {
        guard let pass = try await WebApp.storedPass(hash, library: library, known: known) else {
            throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such pass in your library.")
        }
        return pass
    }

    func passPage(_ name: String, now: Date = Date()) async throws -> Answer {
        guard Self.isAddress(name) else {
            // A version's address (the current one or an earlier one, from before an update):
            // the pass's page, at its address of every version.
            let known = try await app.lists.current(user: visitor.session.user, library: library)
            if let pass = try await WebApp.storedPass(name, library: library, known: known) {
                return Answer(route: "/passes/{hash}", response: app.redirect(Self.page(pass.id)))
            }
            if let id = try await app.pass(ofVersion: name, user: visitor.session.user, library: library),
               try await library.pass(id) != nil {
                return Answer(route: "/passes/{hash}", response: app.redirect(Self.page(id)))
            }
            throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such pass in your library.")
        }
        // One look at the log's tail: the kept list finds the pass and keys its drawing.
        let known = try await app.lists.current(user: visitor.session.user, library: library)
        let snapshot: WebListCache.Snapshot
        if let known { snapshot = known } else { snapshot = try await listSnapshot() }
        guard let pass = snapshot.pass(address: name) else {
            throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such pass in your library.")
        }
        let hash = pass.sha256
        // Drawn once for the snapshot of the list it was found in (the pass, its card, its
        // history do not change while the log has not moved), kept until the pass expires (its
        // mark); only the session's parts are added on each request.
        let key = hash + "|" + languages.joined(separator: ",") + "|\(app.config.openers.generation)|" + zoneKey
        let user = visitor.session.user
        let drawn: WebListCache.DrawnPass
        if let known, let kept = app.lists.drawnPass(user: user, library: library, tip: known.tip, key: key, now: now) {
            drawn = kept
        } else {
            drawn = try await drawPassPage(pass, hash: hash, last: known?.tip.sequence, now: now)
            if let known {
                let validUntil = pass.expirationDate.flatMap { $0 > now ? $0 : nil } ?? .distantFuture
                app.lists.keep(user: user, library: library, tip: known.tip, key: key, page: drawn, validUntil: validUntil)
            }
        }
        return Answer(route: "/passes/{hash}", response: app.page(
            .ok, title: drawn.title, bodyParts: [drawn.card, drawn.canUpdate ? updateForm(Self.address(pass.id)) : "", try await shareSection(pass, hash: Self.address(pass.id), now: now), drawn.rest],
            head: drawn.head, nav: nav, offlineKey: offlineKey))
    }

    func drawPassPage(_ pass: StoredPass, hash: String, last: Int64?, now: Date) async throws -> WebListCache.DrawnPass {
        // The card is the same for the same bytes: drawn once, then taken from the cache (and the
        // stored bytes are read and verified only to draw it).
        let library = self.library, opener = self.opener, app = self.app
        let card = try await app.card(sha256: hash, languages: languages + ["@" + zoneKey], expires: pass.expirationDate, now: now) {
            let verdict = opener.open(try await library.export(pass.id))
            let canUpdate = verdict.pass?.canUpdate == true
            guard let drawn = await app.render(verdict) else {
                return WebApp.Card(css: nil, body: "<p class=\"problem\">This pass can no longer be drawn: \(Self.e(verdict.error.map { WebWords.forPeople($0.message) } ?? "its pass.json cannot be read")).</p>\n",
                                   language: nil, canUpdate: canUpdate)
            }
            return WebApp.Card(css: Self.cardStyle(drawn.css), body: drawn.body, language: Self.language(verdict), canUpdate: canUpdate)
        }
        var h = ""
        var head = ""
        if let css = card.css {
            head = "<style>\(css)</style>\n"
            h += "<div class=\"cardbox\"\(card.language ?? "")\(Self.expiry(pass, now: now, zone: zone))>\(card.body)</div>\n"
        } else {
            h += card.body
        }
        h += """
        <p class="actions"><a class="button" href="/passes/\(hash).pkpass" type="application/vnd.apple.pkpass">Add to Apple Wallet</a>
        <a class="button" href="/passes/\(hash).pkpass?download=1" download>Download (.pkpass)</a>
        <a class="button danger" href="\(Self.page(pass.id))/remove">Remove…</a></p>

        """
        let before = h
        h = "<section aria-labelledby=\"origin\"><h2 id=\"origin\">Where it came from</h2><dl>\n"
        if let source = pass.source {
            if let subject = source.subject { h += "<dt>Message</dt><dd dir=\"auto\">\(Self.e(subject))</dd>\n" }
            if let chat = SourceText.chat(source) { h += "<dt>Chat</dt><dd dir=\"auto\">\(Self.e(chat))</dd>\n" }
            // "offer 4" is the library's own reference to the offer it was accepted from, not a file
            // anyone saw (issue 41 item 4); the message it came in is named above.
            if let file = source.file, !Self.isOfferReference(file) { h += "<dt>File</dt><dd dir=\"auto\">\(Self.e(file))</dd>\n" }
            h += "<dt>Received</dt><dd>\(Self.e(when(source.receivedAt)))</dd>\n"
        }
        h += "<dt>Added</dt><dd>\(Self.e(when(pass.addedAt)))</dd>\n"
        h += "<dt>Issuer</dt><dd dir=\"auto\">\(Self.e(pass.organizationName)) (\(Self.e(pass.teamIdentifier)))\(pass.status == .valid ? "" : ", " + Self.e(pass.status.rawValue))</dd>\n"
        h += "</dl></section>\n"
        h += try await history(pass, last: last)
        return WebListCache.DrawnPass(title: pass.description.isEmpty ? pass.organizationName : pass.description, head: head,
                                      card: before, canUpdate: card.canUpdate, rest: h)
    }

    /// The language the pass's texts were chosen in (its `.lproj`), for screen readers.
    static func language(_ verdict: PassVerdict) -> String {
        guard let language = verdict.pass?.language, !language.isEmpty, language.utf8.count <= 35 else { return "" }
        return " lang=\"\(e(language.replacingOccurrences(of: "_", with: "-")))\""
    }

    /// When a pass that is not expired yet expires: app.js marks it once that moment has passed,
    /// also on a page saved for use offline.
    static func expiry(_ pass: StoredPass, now: Date = Date(), zone: TimeZone? = nil) -> String {
        guard let at = pass.expirationDate, at > now, !pass.voided else { return "" }
        return " data-expires=\"\(DateText.iso(at))\" data-expires-text=\"\(e(WebTime.human(at, zone: zone)))\""
    }

    /// The card's style sheet inside the wallet's page: its rules for the stand-alone page's
    /// `body` and `main` are left to the wallet's own.
    static func cardStyle(_ css: String) -> String {
        css.replacingOccurrences(of: "body {", with: ".card-page-body {").replacingOccurrences(of: "main {", with: ".card-page-main {")
            + cardExtras
    }

    /// Square codes drawn wide enough to scan off a phone (the card's SVG scales without blur);
    /// long ones kept inside the card.
    static let cardExtras = """

    .cardbox { display: flex; flex-direction: column; align-items: center; gap: 16px; }
    .cardbox .card, .cardbox .back { max-width: 100%; }
    .cardbox figure { max-width: 100%; box-sizing: border-box; }
    .cardbox figure svg { max-width: 100%; height: auto; }
    .cardbox figure svg[data-format="QR"], .cardbox figure svg[data-format="Aztec"] { width: min(240px, 64vw); }
    .cardbox .mark { color: #fff; border: 0; border-radius: 0; font-size: 10px; }
    .cardbox .mark.expired { background: #b34700; }
    """

    /// `last`: the log's newest sequence number when this request has already read it.
    func history(_ pass: StoredPass, last: Int64? = nil) async throws -> String {
        let entries = try await app.changes(of: pass.id, user: visitor.session.user, library: library, last: last)
        guard !entries.isEmpty else { return "" }
        var h = "<section aria-labelledby=\"history\"><h2 id=\"history\">History</h2><ol class=\"history\">\n"
        for entry in entries.reversed().prefix(50) {
            h += "<li><span class=\"date\">\(Self.e(when(entry.at)))</span> <span dir=\"auto\">\(Self.e(Self.happened(entry.kind, issuer: pass.organizationName)))</span>"
            let lines = entry.changes.map { c -> String in
                if let m = c.message { return m }
                let name = c.label.flatMap { $0.isEmpty ? nil : $0 } ?? c.key
                return "\(name): \(c.oldValue ?? "(none)") → \(c.newValue ?? "(removed)")"
            }
            if !lines.isEmpty { h += "<ul>" + lines.map { "<li dir=\"auto\">\(Self.e($0))</li>" }.joined() + "</ul>" }
            h += "</li>\n"
        }
        return h + "</ol></section>\n"
    }

    /// "offer 12": how the library records a pass accepted from an offer.
    static func isOfferReference(_ file: String) -> Bool {
        guard file.hasPrefix("offer ") else { return false }
        let number = file.dropFirst("offer ".count)
        return !number.isEmpty && number.allSatisfy(\.isASCII) && number.allSatisfy(\.isNumber)
    }

    /// What a history entry says happened, in words for people (issue 41 item 4: the page showed
    /// the log's verbs, "add" and "replace"). A newer version is the issuer's, however it arrived.
    static func happened(_ kind: ChangeKind, issuer: String) -> String {
        switch kind {
        case .add: return "Added to your wallet"
        case .replace: return issuer.isEmpty ? "Updated to a newer version" : "Updated by \(issuer)"
        case .remove: return "Removed from your wallet"
        case .revert: return "Put back to the version before"
        case .offer: return "Arrived, waiting for you to accept it"
        case .decline: return "Declined"
        }
    }

    /// The original bytes, byte-identical, as Safari hands them to Wallet.
    func download(_ hash: String, attachment: Bool) async throws -> Answer {
        let (pass, bytes) = try await stored(hash)
        var headers = HTTPFields()
        headers[.contentType] = "application/vnd.apple.pkpass"
        headers[.contentLength] = "\(bytes.count)"
        if attachment {
            headers[.contentDisposition] = "attachment; filename=\"\(WebApp.safeFileName(pass.description)).pkpass\""
        }
        return Answer(route: "/passes/{hash}.pkpass", response: Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes))))
    }

    func remove(_ hash: String, confirmed: Bool) async throws -> Answer {
        let pass = try await storedPass(hash)
        if !confirmed {
            let h = """
            <p>Remove <strong dir="auto">\(Self.e(pass.organizationName)) · \(Self.e(pass.description))</strong> from your library? This cannot be undone here.</p>
            <form method="post" action="/passes/\(hash)/remove"><input type="hidden" name="csrf" value="\(csrf)">
            <button type="submit" class="danger">Remove</button> <a href="\(Self.page(pass.id))">Keep it</a></form>
            """
            return Answer(route: "/passes/{hash}/remove", response: page("Remove this pass?", body: h))
        }
        try await library.remove(pass.id)
        return Answer(route: "/passes/{hash}/remove", response: app.redirect("/"))
    }

    // MARK: Offers

    func offerList() async throws -> Answer {
        let offers = try await library.offers()
        var h = ""
        if offers.isEmpty { h += "<p>No pending offers.</p>\n" }
        else {
            // Where they came from, in one sentence: the mail filter, or (issue 42 item 3) a chat bot too.
            h += offers.contains(where: { $0.source?.isChat == true })
                ? "<p>These passes came in your mail or were sent to you in a chat. Nothing is added until you accept it.</p>\n<ul class=\"passes\">"
                : "<p>The mail filter found these passes in your mail. Nothing is added until you accept it.</p>\n<ul class=\"passes\">"
            for offer in offers {
                h += "<li><a href=\"/offers/\(offer.offerID)\"><span class=\"org\">\(Self.e(offer.organizationName))</span> "
                    + "<span class=\"desc\">\(Self.e(offer.description))</span>"
                    + (offer.source?.subject.map { " <span class=\"date\">from “\(Self.e($0))”</span>" } ?? "")
                    + (offer.source.flatMap { $0.isChat ? $0.sender : nil }.map { " <span class=\"date\">sent by \(Self.e($0))</span>" } ?? "")
                    + (offer.status == .valid ? "" : " <span class=\"mark\">\(Self.e(offer.status.rawValue))</span>") + "</a></li>"
            }
            h += "</ul>\n"
        }
        return Answer(route: "/offers", response: page("Offers", body: h))
    }

    func offer(_ text: String) async throws -> Offer {
        guard text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = Int64(text),
              let offer = try await library.offer(id) else {
            throw WebProblem(.notFound, route: "-", title: "Not found", "There is no such offer in your library.")
        }
        return offer
    }

    func offerPage(_ text: String) async throws -> Answer {
        let offer = try await offer(text)
        let bytes = try await library.offerBytes(offer.offerID)
        let verdict = opener.open(bytes)
        var h = ""
        var head = ""
        if let subject = offer.source?.subject { h += "<p>From the message “<span dir=\"auto\">\(Self.e(subject))</span>”, \(Self.e(when(offer.createdAt))).</p>\n" }
        if let source = offer.source, let chat = SourceText.chat(source) { h += "<p dir=\"auto\">\(Self.e(chat)).</p>\n" }
        if let card = await app.render(verdict) {
            head = "<style>\(Self.cardStyle(card.css))</style>\n"
            h += "<div class=\"cardbox\"\(Self.language(verdict))>\(card.body)</div>\n"
        }
        h += """
        <div class="actions">
        <form method="post" action="/offers/\(offer.offerID)/accept" class="inline"><input type="hidden" name="csrf" value="\(csrf)"><button type="submit">Accept</button></form>
        <form method="post" action="/offers/\(offer.offerID)/decline" class="inline"><input type="hidden" name="csrf" value="\(csrf)"><button type="submit" class="danger">Decline</button></form>
        </div>

        """
        return Answer(route: "/offers/{number}", response: page(offer.description.isEmpty ? "Offer" : offer.description, body: h, head: head))
    }

    /// Accept or decline, by the same intake policy as `add --offer` and `offers --decline`.
    func decide(_ text: String, accept: Bool) async throws -> Answer {
        let offer = try await offer(text)
        let route = accept ? "/offers/{number}/accept" : "/offers/{number}/decline"
        let sentence: String
        var status = HTTPResponse.Status.ok
        switch try await OfferDecision.decide(offer, accept: accept, library: library, opener: opener) {
        case .declined:
            return Answer(route: route, response: page("Declined", body: "<p>Declined: <span dir=\"auto\">\(Self.e(offer.organizationName)) · \(Self.e(offer.description))</span>.</p><p><a href=\"/offers\">Other offers</a></p>"))
        case .refused(let message):
            sentence = message
            status = .unprocessableContent
        case .already:
            sentence = "Already in your library."
        case .settled:
            let h = "<p>This offer was settled a moment ago (accepted or declined, perhaps in another window). Nothing more was changed.</p><p><a href=\"/offers\">Offers</a></p>"
            return Answer(route: route, response: page("Already settled", body: h, status: .conflict))
        case .added(let storedPass):
            let h = "<p>Added to your library.</p><p><a href=\"\(Self.page(storedPass.id))\">Open the pass</a></p>"
            return Answer(route: route, response: page("Added", body: h))
        case .updated(let storedPass):
            let h = "<p>Updated to your library.</p><p><a href=\"\(Self.page(storedPass.id))\">Open the pass</a></p>"
            return Answer(route: route, response: page("Updated", body: h))
        }
        return Answer(route: route, response: page("Not added", body: "<p>\(Self.e(sentence))</p><p><a href=\"/offers\">Offers</a></p>", status: status))
    }

    // MARK: Adding a pass

    func addForm(message: String?) -> String {
        var h = message ?? ""
        h += """
        <form method="post" action="/add" enctype="multipart/form-data" class="upload">
        <input type="hidden" name="csrf" value="\(csrf)">
        <label>A pass (.pkpass), a bundle (.pkpasses) or a saved message (.eml) <input type="file" name="file" required></label>
        <button type="submit">Add</button>
        </form>
        """
        return h
    }

    /// The upload goes through the same conduit as `add`: found by content, verified, decided by
    /// the user's intake policy (the upload is the consent), with the same sentences.
    func upload(_ parts: [WebForm.Part]) async throws -> Answer {
        guard let file = parts.first(where: { $0.name == "file" && $0.filename != nil }), !file.body.isEmpty else {
            return Answer(route: "/add", response: page("Add a pass", body: addForm(message: "<p class=\"problem\" role=\"alert\">Choose a file to add.</p>\n"), status: .badRequest))
        }
        let setup = app.config.setup
        let library = self.library
        let opener = self.opener
        let bytes = file.body
        let name = file.filename ?? "upload"
        let seconds = app.config.uploadSeconds
        let lines: [(String, String?)] = try await app.offPool { () -> Result<[(String, String?)], WebProblem> in
            Result { try WebUpload.add(bytes: bytes, name: name, setup: setup, opener: opener, library: library, seconds: seconds, route: "/add") }
                .mapError { $0 as? WebProblem ?? WebProblem(.internalServerError, route: "/add", title: "Not added", "The upload could not be read; nothing was changed.") }
        }.get()
        var h = "<ul class=\"verdicts\">"
        for (sentence, hash) in lines {
            h += "<li>\(Self.e(sentence))" + (hash.map { " <a href=\"/passes/\($0)\">Open</a>" } ?? "") + "</li>"
        }
        h += "</ul>\n<p><a href=\"/\">Your passes</a> · <a href=\"/add\">Add another</a></p>"
        let anyAdded = lines.contains { $0.1 != nil }
        return Answer(route: "/add", response: page(anyAdded ? "Added" : "Not added", body: h, status: anyAdded ? .ok : .unprocessableContent))
    }

    // MARK: The style sheet

    static let stylesheet = """
    :root { color-scheme: light dark; --fg: #111; --bg: #f4f5f7; --panel: #fff; --line: #d0d4da; --accent: #0b57d0; --danger: #b3261e; }
    @media (prefers-color-scheme: dark) {
      :root { --fg: #e8eaed; --bg: #121416; --panel: #1e2124; --line: #3c4043; --accent: #8ab4f8; --danger: #f28b82; }
    }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--fg); font: 16px/1.45 system-ui, "DejaVu Sans", sans-serif; }
    header.top { background: var(--panel); border-bottom: 1px solid var(--line); padding: 8px 12px; }
    header.top nav { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; }
    header.top form { margin-left: auto; }
    header.top .who { margin-left: auto; overflow-wrap: anywhere; }
    header.top .who + form { margin-left: 0; }
    main { max-width: 760px; margin: 0 auto; padding: 12px; }
    h1 { font-size: 1.4em; margin: .4em 0; }
    h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
    a { color: var(--accent); }
    form.inline { display: inline; }
    button, .button { font: inherit; padding: 6px 14px; border-radius: 8px; border: 1px solid var(--line);
      background: var(--panel); color: var(--fg); cursor: pointer; text-decoration: none; display: inline-block; }
    .danger { color: var(--danger); }
    .problem { color: var(--danger); font-weight: bold; }
    ul.passes { list-style: none; padding: 0; margin: 0 0 8px; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; }
    ul.passes li { border-top: 1px solid var(--line); }
    ul.passes li:first-child { border-top: 0; }
    ul.passes a { display: flex; flex-wrap: wrap; gap: 4px 10px; padding: 10px 12px; color: inherit; text-decoration: none; }
    ul.passes .org { font-weight: bold; }
    ul.passes .date { opacity: .75; margin-left: auto; }
    .mark { font-size: .8em; border: 1px solid var(--danger); color: var(--danger); border-radius: 4px; padding: 0 4px; }
    form.search, form.login, form.upload { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin: 8px 0 16px; }
    form.login { flex-direction: column; align-items: stretch; max-width: 360px; }
    label { display: flex; flex-direction: column; gap: 2px; }
    input, select { font: inherit; padding: 6px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: var(--fg); }
    .actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 16px 0; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; }
    dd { margin: 0; overflow-wrap: anywhere; }
    code, pre, .note a { overflow-wrap: anywhere; }
    pre { white-space: pre-wrap; }
    @media (max-width: 480px) { body { font-size: 15px; } main { padding: 8px; } }
    """ + "\n" + stackStyle
}

/// An upload, scanned and added as `add --yes` would: off the request threads (the scanner's
/// library calls block). The bytes are scanned where they are, in memory (no file is written); the
/// search stops when `seconds` have passed, and then nothing is changed.
enum WebUpload {
    static func add(bytes: ArraySlice<UInt8>, name: String, setup: ConduitSetup, opener: PassOpener,
                    library: any PassLibraryBackend, seconds: TimeInterval, route: String) throws -> [(String, String?)] {
        var (found, lines) = try scan(bytes: bytes, name: name, setup: setup, opener: opener, library: library,
                                      seconds: seconds, route: route, title: "Not added")
        if found.isEmpty && lines.isEmpty { lines.append(("\(name): no pass found in this file.", nil)) }
        var seen = Set<String>()
        let taking = PassTaking(library: library, intake: Intake(.user(allowUntrusted: false)))
        for pass in found where seen.insert(pass.verdict.sha256).inserted {
            let title = pass.verdict.pass.map { "\($0.organizationName) · \($0.description)" } ?? name
            // The upload is the person's consent: what the policy allows is taken at once.
            let plan = try Blocking.run { try await taking.plan(pass.verdict, record: pass.record) }
            if case .refuse(_, let message, _) = plan.decision {
                lines.append(("\(title): \(WebWords.forPeople(message))", nil))
                continue
            }
            switch try Blocking.run({ try await taking.take(plan) }) {
            case .refused: continue
            case .already: lines.append(("\(title): already in your library.", pass.verdict.sha256))
            case .added(let stored): lines.append(("\(title): added to your library.", stored.sha256))
            case .updated(let sha256, _): lines.append(("\(title): updated in your library.", sha256))
            }
        }
        return lines
    }

    /// The passes in an upload, found by content, each recorded under `name`, and a line for
    /// each problem; a deadline past `seconds` throws (`title` heads its page).
    static func scan(bytes: ArraySlice<UInt8>, name: String, setup: ConduitSetup, opener: PassOpener,
                     library: (any PassLibraryBackend)?, seconds: TimeInterval, route: String,
                     title: String) throws -> (found: [FoundPass], lines: [(String, String?)]) {
        let clock = Deadline(seconds: seconds)
        var scanner = PassScanner(opener: opener, library: library, limits: setup.limits, sniffer: setup.sniffer())
        scanner.shouldStop = { clock.passed() }
        let inputs = InputScanner(scanner: scanner, workers: 1)
        var found: [FoundPass] = []
        var lines: [(String, String?)] = []
        // Found by content alone, as a file without a telling name is ("upload"); every pass and
        // problem is then recorded under the name the person gave.
        inputs.scan(bytes: bytes, name: "upload") { event in
            switch event {
            case .found(var pass):
                pass.source.input = name
                pass.record?.source?.file = name
                found.append(pass)
            case .problem(let problem):
                lines.append(("\(name): \(WebWords.forPeople(problem.message))", nil))
            case .progress: break
            }
        }
        if clock.fired {
            // Passes found before the limit are not added either: the file is taken whole or not at all.
            var problem = WebProblem(.unprocessableContent, route: route, title: title,
                "Checking \(name) took longer than the \(Int(seconds)) seconds this wallet gives one upload (\(found.count) \(found.count == 1 ? "pass" : "passes") checked by then). Nothing was changed; add its passes in smaller files.")
            problem.code = .deadline
            throw problem
        }
        return (found, lines)
    }

    /// When an upload's check must end; `fired` once the scanner was told to stop.
    final class Deadline: @unchecked Sendable {
        let end: ContinuousClock.Instant
        private let lock = NSLock()
        private var stopped = false

        init(seconds: TimeInterval) {
            end = ContinuousClock.now + .milliseconds(Int64(max(0, seconds) * 1000))
        }

        func passed() -> Bool {
            guard ContinuousClock.now >= end else { return false }
            lock.withLock { stopped = true }
            return true
        }

        var fired: Bool { lock.withLock { stopped } }
    }
}
