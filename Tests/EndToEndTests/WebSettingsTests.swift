import Foundation
import XCTest

/// The web wallet's Settings page, its calendar subscription and its JSON API, on the built
/// binary over HTTP (curl), judged by real readers (python3-icalendar, khal): the subscription
/// is what `passconduit calendar` writes, the API answers with what `list --json` and
/// `show --json` write, and no secret reaches the log or another user's passes.
final class WebSettingsTests: XCTestCase {
    /// An iCalendar text unfolded (RFC 5545 §3.1), and without the zone names the feed writes
    /// after its times (" GMT+2") unless `keep`.
    static func unnamed(_ text: String, keep: Bool = false) -> String {
        let unfolded = text.replacingOccurrences(of: "\r\n ", with: "")
        return keep ? unfolded : unfolded.replacingOccurrences(of: " GMT+2", with: "")
    }

    override func tearDown() { FilterRun.cleanUp() }

    typealias Server = WebServeTests.Server
    func curl(_ url: String, jar: URL? = nil, _ extra: [String] = []) throws -> WebServeTests.Reply {
        try WebServeTests.curl(url, jar: jar, extra)
    }

    /// The secret between `/calendar/` and `.ics` in the first http(s) address on a page.
    static func calendarURL(_ html: String) -> String? {
        guard let end = html.range(of: ".ics</code>") else { return nil }
        let before = html[..<end.lowerBound]
        guard let start = before.range(of: "http", options: .backwards) else { return nil }
        return String(html[start.lowerBound..<end.lowerBound]) + ".ics"
    }

    static func apiToken(_ html: String) -> String? {
        guard let r = html.range(of: "<code class=\"secret\">") else { return nil }
        return String(html[r.upperBound...].prefix(64))
    }

    static func json(_ reply: WebServeTests.Reply) -> Any? { try? JSONSerialization.jsonObject(with: reply.body) }

    static func errorCode(_ reply: WebServeTests.Reply) -> String? {
        ((json(reply) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }

    // MARK: Calendar

    func testTheCalendarSubscriptionServesWhatCalendarWritesAndEndsWhenRenewedOrRevoked() throws {
        let sandbox = try Sandbox()
        let passes = ["passes/event-ticket.pkpass", "passes/boarding-pass.pkpass"].map(Run.sample)
        XCTAssertEqual(try sandbox.run("add", ["--yes"] + passes).status, 0)
        // What `calendar` writes where the passes' own +02:00 is the local zone: the feed writes the
        // same hours with the zone named ("20:00 GMT+2"; issue 41 item 2), so it is that, named.
        let expected = try sandbox.run("calendar", [], environment: ["TZ": "Etc/GMT-2"])
        XCTAssertEqual(expected.status, 0, expected.stderr)

        let server = try Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try curl(server.signIn, jar: jar).status, 303)
        let settings = try curl(server.base + "/settings", jar: jar)
        XCTAssertEqual(settings.status, 200, settings.text)
        XCTAssertTrue(settings.text.contains("Make a calendar address"), settings.text)
        XCTAssertTrue(try curl(server.base + "/", jar: jar).text.contains("href=\"/settings\""), "the header links to Settings")
        let csrf = try XCTUnwrap(WebServeTests.csrf(settings.text))

        // A form without the session's token, or sent by another site, makes nothing.
        XCTAssertEqual(try curl(server.base + "/settings/calendar", jar: jar, ["-d", "action=renew"]).status, 403)
        XCTAssertEqual(try curl(server.base + "/settings/calendar", jar: jar,
                                ["-d", "csrf=\(csrf)&action=renew", "-H", "Origin: http://evil.example"]).status, 403)
        XCTAssertEqual(try curl(server.base + "/settings/calendar", jar: jar,
                                ["-d", "csrf=\(csrf)&action=renew", "-H", "Sec-Fetch-Site: cross-site"]).status, 403)
        XCTAssertTrue(try curl(server.base + "/settings", jar: jar).text.contains("Make a calendar address"))
        // GET never changes anything.
        XCTAssertEqual(try curl(server.base + "/settings/calendar?action=renew", jar: jar).status, 404)

        let made = try curl(server.base + "/settings/calendar", jar: jar, ["-d", "csrf=\(csrf)&action=renew"])
        XCTAssertEqual(made.status, 200, made.text)
        let url = try XCTUnwrap(Self.calendarURL(made.text), made.text)
        XCTAssertTrue(url.hasPrefix(server.base + "/calendar/"), "http on loopback desktop mode: \(url)")
        let secret = String(url.dropFirst((server.base + "/calendar/").count).dropLast(4))
        XCTAssertEqual(secret.count, 64, "256 random bits")
        XCTAssertTrue(made.text.contains("webcal://" + url.dropFirst("http://".count)), made.text)

        // Fetched as a calendar program does: no cookie; exactly what `passconduit calendar` writes.
        let feed = try curl(url)
        XCTAssertEqual(feed.status, 200, feed.text)
        XCTAssertEqual(feed.header("Content-Type"), "text/calendar; charset=utf-8")
        XCTAssertEqual(Self.unnamed(feed.text), Self.unnamed(expected.stdout))
        XCTAssertTrue(Self.unnamed(feed.text, keep: true).contains("DATE: 12 Jun 2037\\, 20:00 GMT+2"), feed.text)
        XCTAssertFalse(feed.text.contains("VALARM"))
        // "?alarm=": the reminders of `calendar --alarm`, byte for byte; a lead time it cannot read is a 400.
        for lead in ["3h", "kind"] {
            let withAlarm = try curl(url + "?alarm=" + lead)
            XCTAssertEqual(withAlarm.status, 200, withAlarm.text)
            XCTAssertEqual(Self.unnamed(withAlarm.text), Self.unnamed(try sandbox.run("calendar", ["--alarm", lead], environment: ["TZ": "Etc/GMT-2"]).stdout))
            XCTAssertEqual(withAlarm.text.components(separatedBy: "BEGIN:VALARM").count - 1, 2, withAlarm.text)
            let alarmed = sandbox.dir.appendingPathComponent("alarm-\(lead).ics")
            try withAlarm.body.write(to: alarmed)
            let read = try HandOn.checkICS([alarmed], passes: passes.map { URL(fileURLWithPath: $0) })
            let seconds = read.compactMap { ($0["alarms"] as? [[String: Any]])?.first?["seconds"] as? Int }.sorted()
            XCTAssertEqual(seconds, lead == "3h" ? [-10_800, -10_800] : [-86_400, -10_800], "\(read)")
        }
        let refused = try curl(url + "?alarm=-3h")
        XCTAssertEqual(refused.status, 400)
        XCTAssertTrue(refused.text.contains("alarm= wants a lead time"), refused.text)
        XCTAssertFalse(refused.text.contains(secret), "the error page does not repeat the secret")
        let ics = sandbox.dir.appendingPathComponent("subscribed.ics")
        try feed.body.write(to: ics)
        let events = try HandOn.checkICS([ics], passes: passes.map { URL(fileURLWithPath: $0) })
        XCTAssertEqual(events.count, 2, "the event ticket's date and the boarding pass's")
        let khal = try HandOn.khal([ics], in: sandbox.dir)
        XCTAssertEqual(Set(khal.compactMap { $0.split(separator: "|").last.map(String.init) }), Set(events.compactMap { $0["uid"] as? String }))

        // Shown once: the page afterwards says there is one, never what it is.
        let later = try curl(server.base + "/settings", jar: jar)
        XCTAssertTrue(later.text.contains("Renew the address"), later.text)
        XCTAssertFalse(later.text.contains(secret))

        // Renewed: the old address is nothing, the new one serves.
        let renewed = try curl(server.base + "/settings/calendar", jar: jar, ["-d", "csrf=\(csrf)&action=renew"])
        let newURL = try XCTUnwrap(Self.calendarURL(renewed.text))
        XCTAssertNotEqual(newURL, url)
        let old = try curl(url)
        XCTAssertEqual(old.status, 404)
        XCTAssertFalse(old.text.contains("BEGIN:VCALENDAR") || old.text.contains("Passconduit"), old.text)
        XCTAssertEqual(Self.unnamed(try curl(newURL).text), Self.unnamed(expected.stdout))

        // Revoked: nothing; an unknown or malformed secret neither.
        XCTAssertEqual(try curl(server.base + "/settings/calendar", jar: jar, ["-d", "csrf=\(csrf)&action=revoke"]).status, 200)
        XCTAssertEqual(try curl(newURL).status, 404)
        XCTAssertEqual(try curl(server.base + "/calendar/\(String(repeating: "ab", count: 32)).ics").status, 404)
        XCTAssertEqual(try curl(server.base + "/calendar/short.ics").status, 404)
        XCTAssertTrue(try curl(server.base + "/settings", jar: jar).text.contains("Make a calendar address"))

        // The log names the route, never the secret.
        XCTAssertTrue(server.text.contains("GET /calendar/{secret}.ics 200"), server.text)
        let newSecret = String(newURL.dropFirst((server.base + "/calendar/").count).dropLast(4))
        XCTAssertFalse(server.text.contains(secret) || server.text.contains(newSecret), server.text)
    }

    /// Alice's calendar secret serves Alice's passes only; Bob's serves Bob's; neither reaches
    /// the other's through any address.
    func testACalendarSecretServesOnlyItsOwnersPasses() throws {
        let sandbox = try Sandbox()
        let (server, alice, bob) = try twoUsers(sandbox)
        let aliceJar = sandbox.dir.appendingPathComponent("alice-jar"), bobJar = sandbox.dir.appendingPathComponent("bob-jar")
        func subscribe(_ who: [String], _ jar: URL) throws -> String {
            let page = try curl(server.base + "/settings", jar: jar, who)
            XCTAssertEqual(page.status, 200, page.text)
            let made = try curl(server.base + "/settings/calendar", jar: jar, who + ["-d", "csrf=\(WebServeTests.csrf(page.text) ?? "")&action=renew"])
            // Behind the proxy the address is https unless the proxy says the request came in over http.
            XCTAssertTrue(made.text.contains("https://127.0.0.1"), made.text)
            let viaHTTP = try curl(server.base + "/settings/calendar", jar: jar,
                                   who + ["-H", "X-Forwarded-Proto: http", "-d", "csrf=\(WebServeTests.csrf(page.text) ?? "")&action=renew"])
            return try XCTUnwrap(Self.calendarURL(viaHTTP.text), viaHTTP.text)
        }
        let aliceURL = try subscribe(alice, aliceJar), bobURL = try subscribe(bob, bobJar)
        let aliceFeed = try curl(aliceURL), bobFeed = try curl(bobURL)
        XCTAssertEqual(aliceFeed.status, 200)
        XCTAssertTrue(aliceFeed.text.contains("Linux Philharmonic"), aliceFeed.text)
        XCTAssertFalse(aliceFeed.text.contains("PC 1234"), aliceFeed.text)
        XCTAssertTrue(bobFeed.text.contains("PC 1234"), bobFeed.text)
        XCTAssertFalse(bobFeed.text.contains("Linux Philharmonic"), bobFeed.text)
        // The feed takes no user from the proxy's header: Alice's header with Bob's secret is Bob's calendar, nothing of Alice's.
        XCTAssertFalse(try curl(bobURL, alice).text.contains("Linux Philharmonic"))
    }

    /// Alice (event ticket) and Bob (boarding pass), each with a library of their own behind the
    /// sign-in proxy.
    func twoUsers(_ sandbox: Sandbox) throws -> (Server, [String], [String]) {
        let template = sandbox.dir.path + "/libraries/%{local}@%{domain}.sqlite"
        let trust = ["--trust", Run.sample("ca/trust")]
        XCTAssertEqual(try sandbox.run("add", ["--library", sandbox.dir.path + "/libraries/alice@example.org.sqlite", "--yes",
                                               Run.sample("passes/event-ticket.pkpass")] + trust, common: false).status, 0)
        XCTAssertEqual(try sandbox.run("add", ["--library", sandbox.dir.path + "/libraries/bob@example.org.sqlite", "--yes",
                                               Run.sample("passes/boarding-pass.pkpass")] + trust, common: false).status, 0)
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-Forwarded-User", "--trusted-proxy", "127.0.0.1/8",
                                          "--trusted-proxy", "::1", "--library-map", template], common: false)
        try server.started()
        return (server, ["-H", "X-Forwarded-User: alice@example.org"], ["-H", "X-Forwarded-User: bob@example.org"])
    }

    // MARK: The JSON API

    func testTheAPIAnswersWithTokensOnlyWithListAndShowObjectsAndNothingOfAnotherUser() throws {
        let sandbox = try Sandbox()
        let (server, alice, bob) = try twoUsers(sandbox)
        let trust = ["--trust", Run.sample("ca/trust")]
        let aliceLibrary = sandbox.dir.path + "/libraries/alice@example.org.sqlite"
        let bobLibrary = sandbox.dir.path + "/libraries/bob@example.org.sqlite"
        // Two offers for Alice (a boarding pass and a coupon), staged by the delivery filter.
        for message in ["messages/name-only.eml", "messages/content-only.eml"] {
            let filtered = try sandbox.run("filter", ["--library", aliceLibrary] + trust,
                                           stdin: try Data(contentsOf: URL(fileURLWithPath: Run.sample(message))), common: false)
            XCTAssertEqual(filtered.status, 0, filtered.stderr)
        }
        XCTAssertEqual(try sandbox.run("offers", ["--library", aliceLibrary, "--json"] + trust, common: false).objects.count, 2)
        let aliceJar = sandbox.dir.appendingPathComponent("alice-jar"), bobJar = sandbox.dir.appendingPathComponent("bob-jar")
        func makeToken(_ who: [String], _ jar: URL, name: String) throws -> String {
            let page = try curl(server.base + "/settings", jar: jar, who)
            XCTAssertTrue(page.text.contains("You have no API token"), page.text)
            let csrf = WebServeTests.csrf(page.text) ?? ""
            // A token needs the session's form token, and a name.
            XCTAssertEqual(try curl(server.base + "/settings/tokens", jar: jar, who + ["-d", "name=x"]).status, 403)
            XCTAssertEqual(try curl(server.base + "/settings/tokens", jar: jar, who + ["-d", "csrf=\(csrf)&name=+"]).status, 400)
            let made = try curl(server.base + "/settings/tokens", jar: jar, who + ["-d", "csrf=\(csrf)&name=\(name)"])
            XCTAssertEqual(made.status, 200, made.text)
            return try XCTUnwrap(Self.apiToken(made.text), made.text)
        }
        let aliceToken = try makeToken(alice, aliceJar, name: "chat+bridge")
        let bobToken = try makeToken(bob, bobJar, name: "script")
        let listed = try curl(server.base + "/settings", jar: aliceJar, alice)
        XCTAssertTrue(listed.text.contains("chat bridge") && listed.text.contains("never"), listed.text)
        XCTAssertFalse(listed.text.contains(aliceToken), "a token is shown once")
        let asAlice = ["-H", "Authorization: Bearer \(aliceToken)"], asBob = ["-H", "Authorization: Bearer \(bobToken)"]

        // Without a token, with a made-up one, with a cookie only: 401 and a JSON sentence.
        for extra in [[], ["-H", "Authorization: Bearer " + String(repeating: "0", count: 64)], ["-H", "Authorization: Basic YTpi"]] {
            let r = try curl(server.base + "/api/v1/passes", extra)
            XCTAssertEqual(r.status, 401, r.text)
            XCTAssertTrue(r.header("WWW-Authenticate")?.hasPrefix("Bearer") ?? false, r.headers)
            XCTAssertNotNil(Self.errorCode(r), r.text)
        }
        XCTAssertEqual(try curl(server.base + "/api/v1/passes", jar: aliceJar, alice).status, 401, "the session cookie is not an API credential")

        // The list and one pass: the same objects as list --json and show --json.
        let passes = try curl(server.base + "/api/v1/passes", asAlice)
        XCTAssertEqual(passes.status, 200, passes.text)
        XCTAssertEqual(passes.header("Content-Type"), "application/json")
        let cliList = try sandbox.run("list", ["--library", aliceLibrary, "--json"] + trust, common: false)
        XCTAssertEqual(Self.json(passes) as? NSArray, cliList.objects as NSArray)
        let aliceHash = try XCTUnwrap(cliList.objects.first?["sha256"] as? String)
        let bobHash = try XCTUnwrap(try sandbox.run("list", ["--library", bobLibrary, "--json"] + trust, common: false).objects.first?["sha256"] as? String)
        let one = try curl(server.base + "/api/v1/passes/\(aliceHash)", asAlice)
        XCTAssertEqual(one.status, 200, one.text)
        let cliShow = try sandbox.run("show", ["--library", aliceLibrary, "--json", aliceHash] + trust, common: false)
        XCTAssertEqual(Self.json(one) as? NSDictionary, cliShow.objects.first.map { $0 as NSDictionary })
        let bytes = try curl(server.base + "/api/v1/passes/\(aliceHash).pkpass", asAlice)
        XCTAssertEqual(bytes.header("Content-Type"), "application/vnd.apple.pkpass")
        XCTAssertEqual(bytes.body, try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/event-ticket.pkpass"))))

        // Another user's token on this user's hash and offers: 404, and nothing changes.
        for (path, method) in [("/api/v1/passes/\(aliceHash)", "GET"), ("/api/v1/passes/\(aliceHash).pkpass", "GET"),
                               ("/api/v1/passes/\(aliceHash)", "DELETE"), ("/api/v1/offers/1/accept", "POST"), ("/api/v1/offers/2/decline", "POST")] {
            let r = try curl(server.base + path, asBob + ["-X", method])
            XCTAssertEqual(r.status, 404, path + " " + r.text)
            XCTAssertEqual(Self.errorCode(r), "not-found", r.text)
            if path.contains(aliceHash) {
                XCTAssertEqual(try curl(server.base + path.replacingOccurrences(of: aliceHash, with: bobHash), asAlice + ["-X", method]).status, 404, path)
            }
        }
        XCTAssertEqual((Self.json(try curl(server.base + "/api/v1/offers", asBob)) as? [Any])?.count, 0)
        let offers = try XCTUnwrap(Self.json(try curl(server.base + "/api/v1/offers", asAlice)) as? [[String: Any]])
        XCTAssertEqual(offers.map { $0["offer"] as? Int }, [1, 2])
        let cliOffers = try sandbox.run("offers", ["--library", aliceLibrary, "--json"] + trust, common: false)
        XCTAssertEqual(offers as NSArray, cliOffers.objects as NSArray)

        // A 10 MB JSON body: 413, nothing changed, and the server keeps serving.
        let big = sandbox.dir.appendingPathComponent("big.json")
        try Data("{\"x\":\"".utf8 + [UInt8](repeating: UInt8(ascii: "a"), count: 10 << 20) + Data("\"}".utf8)).write(to: big)
        let tooLarge = try curl(server.base + "/api/v1/offers/1/accept", asAlice + ["-H", "Content-Type: application/json", "--data-binary", "@" + big.path])
        XCTAssertEqual(tooLarge.status, 413, tooLarge.text)
        XCTAssertEqual(Self.errorCode(tooLarge), "too-large")
        XCTAssertEqual(try curl(server.base + "/api/v1/offers", asAlice).status, 200, "still serving")
        // Bad JSON, bytes that are no pass: 400.
        let badJSON = try curl(server.base + "/api/v1/offers/1/accept", asAlice + ["-H", "Content-Type: application/json", "--data-binary", "{not json"])
        XCTAssertEqual(badJSON.status, 400, badJSON.text)
        XCTAssertEqual(Self.errorCode(badJSON), "bad-json")
        let notAPass = try curl(server.base + "/api/v1/passes", asAlice + ["--data-binary", "@" + big.path])
        XCTAssertEqual(notAPass.status, 400, notAPass.text)
        // A body over the pass size limit (32 MB): 413 before it is read.
        let huge = sandbox.dir.appendingPathComponent("huge.pkpass")
        try Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 33 << 20)).write(to: huge)
        let hugeAnswer = try curl(server.base + "/api/v1/passes", asAlice + ["--data-binary", "@" + huge.path])
        XCTAssertEqual(hugeAnswer.status, 413, hugeAnswer.text)
        try? FileManager.default.removeItem(at: huge)
        XCTAssertEqual((Self.json(try curl(server.base + "/api/v1/offers", asAlice)) as? [Any])?.count, 2, "nothing changed")

        // Accept one offer, decline the other, as add --offer and offers --decline do.
        let accepted = try curl(server.base + "/api/v1/offers/1/accept", asAlice + ["-X", "POST"])
        XCTAssertEqual(accepted.status, 200, accepted.text)
        XCTAssertEqual((Self.json(accepted) as? [String: Any])?["outcome"] as? String, "added", accepted.text)
        XCTAssertEqual(try curl(server.base + "/api/v1/offers/2/decline", asAlice + ["-X", "POST"]).status, 200)
        XCTAssertEqual(try sandbox.run("offers", ["--library", aliceLibrary, "--json"] + trust, common: false).objects.count, 0)
        XCTAssertEqual(try sandbox.run("list", ["--library", aliceLibrary, "--json"] + trust, common: false).objects.count, 2)

        // Add a pass by its bytes (the upload's intake and sentences), then remove it.
        let added = try curl(server.base + "/api/v1/passes", asAlice + ["-H", "Content-Type: application/vnd.apple.pkpass",
                                                                         "--data-binary", "@" + Run.sample("passes/store-card.pkpass")])
        XCTAssertEqual(added.status, 200, added.text)
        let result = try XCTUnwrap(((Self.json(added) as? [String: Any])?["results"] as? [[String: Any]])?.first)
        XCTAssertTrue((result["message"] as? String)?.hasSuffix("added to your library.") ?? false, added.text)
        let storeHash = try XCTUnwrap(result["sha256"] as? String)
        let again = try curl(server.base + "/api/v1/passes", asAlice + ["--data-binary", "@" + Run.sample("passes/store-card.pkpass")])
        XCTAssertTrue(again.text.contains("already in your library."), again.text)
        let bad = try curl(server.base + "/api/v1/passes", asAlice + ["--data-binary", "@" + Run.sample("passes/bad-manifest-mismatch.pkpass")])
        XCTAssertEqual(bad.status, 422, bad.text)
        let removed = try curl(server.base + "/api/v1/passes/\(storeHash)", asAlice + ["-X", "DELETE"])
        XCTAssertEqual(removed.status, 200, removed.text)
        XCTAssertEqual(try curl(server.base + "/api/v1/passes/\(storeHash)", asAlice).status, 404)
        XCTAssertEqual(try sandbox.run("list", ["--library", bobLibrary, "--json"] + trust, common: false).objects.count, 1, "Bob's library untouched")

        // The settings page shows the token's last use; revoked, it is refused.
        let page = try curl(server.base + "/settings", jar: aliceJar, alice)
        XCTAssertFalse(page.text.contains("<td>never</td>"), page.text)
        let tokenID = try XCTUnwrap(page.text.range(of: "/settings/tokens/").map { String(page.text[$0.upperBound...].prefix(16)) })
        XCTAssertEqual(try curl(server.base + "/settings/tokens/\(tokenID)/revoke", jar: bobJar, bob + ["-d", "csrf=\(WebServeTests.csrf(page.text) ?? "")"]).status, 403,
                       "Alice's form token is not Bob's")
        let bobPage = try curl(server.base + "/settings", jar: bobJar, bob)
        XCTAssertEqual(try curl(server.base + "/settings/tokens/\(tokenID)/revoke", jar: bobJar, bob + ["-d", "csrf=\(WebServeTests.csrf(bobPage.text) ?? "")"]).status, 404,
                       "Bob cannot revoke Alice's token")
        XCTAssertEqual(try curl(server.base + "/api/v1/passes", asAlice).status, 200)
        let revoked = try curl(server.base + "/settings/tokens/\(tokenID)/revoke", jar: aliceJar, alice + ["-d", "csrf=\(WebServeTests.csrf(page.text) ?? "")"])
        XCTAssertEqual(revoked.status, 200, revoked.text)
        let after = try curl(server.base + "/api/v1/passes", asAlice)
        XCTAssertEqual(after.status, 401)
        XCTAssertEqual(Self.errorCode(after), "invalid-token")
        XCTAssertEqual(try curl(server.base + "/api/v1/passes", asBob).status, 200, "Bob's token still works")

        // No token in the log; routes by pattern, refused ones too.
        XCTAssertTrue(server.text.contains("GET /api/v1/passes 401"), server.text)
        XCTAssertFalse(server.text.contains(aliceToken) || server.text.contains(bobToken), server.text)
        XCTAssertTrue(server.text.contains("GET /api/v1/passes/{sha256} "), server.text)
        XCTAssertFalse(server.text.contains(aliceHash), server.text)
    }

    // MARK: Restarts

    /// Sessions, API tokens and calendar secrets live in the state file beside the library: a
    /// restarted server still knows them.
    func testARestartSignsNobodyOutAndKeepsTokensAndTheCalendar() throws {
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        try Self.checkRestart(sandbox, arguments: [], common: true)
        XCTAssertTrue(FileManager.default.fileExists(atPath: sandbox.dir.path + "/web-sessions.sqlite"))
    }

    /// Signs in on a first server, makes a token and a calendar address, stops it, starts a
    /// second one on the same library: the cookie, the token and the address still work.
    static func checkRestart(_ sandbox: Sandbox, arguments: [String], common: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let jar = sandbox.dir.appendingPathComponent("restart-jar")
        let first = try Server(sandbox, ["--listen", "127.0.0.1:0"] + arguments, common: common)
        try first.started()
        XCTAssertEqual(try WebServeTests.curl(first.signIn, jar: jar).status, 303, first.text, file: file, line: line)
        let page = try WebServeTests.curl(first.base + "/settings", jar: jar)
        let csrf = WebServeTests.csrf(page.text) ?? ""
        let token = try XCTUnwrap(apiToken(try WebServeTests.curl(first.base + "/settings/tokens", jar: jar, ["-d", "csrf=\(csrf)&name=bridge"]).text), file: file, line: line)
        let made = try WebServeTests.curl(first.base + "/settings/calendar", jar: jar, ["-d", "csrf=\(csrf)&action=renew"])
        let calendarPath = try XCTUnwrap(calendarURL(made.text).map { String($0.dropFirst(first.base.count)) }, made.text, file: file, line: line)
        first.process.terminate()
        first.process.waitUntilExit()

        let second = try Server(sandbox, ["--listen", "127.0.0.1:0"] + arguments, common: common)
        try second.started()
        let home = try WebServeTests.curl(second.base + "/", jar: jar)
        XCTAssertEqual(home.status, 200, "still signed in: " + home.text + second.text, file: file, line: line)
        XCTAssertTrue(home.text.contains("Passconduit Arena"), home.text, file: file, line: line)
        XCTAssertEqual(WebServeTests.csrf(home.text), csrf, "the same session", file: file, line: line)
        let api = try WebServeTests.curl(second.base + "/api/v1/passes", ["-H", "Authorization: Bearer \(token)"])
        XCTAssertEqual(api.status, 200, api.text, file: file, line: line)
        XCTAssertEqual((json(api) as? [Any])?.count, 1, file: file, line: line)
        let feed = try WebServeTests.curl(second.base + calendarPath)
        XCTAssertEqual(feed.status, 200, file: file, line: line)
        XCTAssertTrue(feed.text.contains("BEGIN:VEVENT"), feed.text, file: file, line: line)
        // Revoked on the restarted server, the token and the address are nothing.
        let settings = try WebServeTests.curl(second.base + "/settings", jar: jar)
        let tokenID = try XCTUnwrap(settings.text.range(of: "/settings/tokens/").map { String(settings.text[$0.upperBound...].prefix(16)) },
                                    file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + "/settings/tokens/\(tokenID)/revoke", jar: jar, ["-d", "csrf=\(csrf)"]).status, 200,
                       file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + "/api/v1/passes", ["-H", "Authorization: Bearer \(token)"]).status, 401, file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + "/settings/calendar", jar: jar, ["-d", "csrf=\(csrf)&action=revoke"]).status, 200,
                       file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + calendarPath).status, 404, file: file, line: line)
        // Signing out ends the session in the shared state: its cookie is nobody's afterwards.
        let cookie = try XCTUnwrap(try String(contentsOf: jar, encoding: .utf8).split(separator: "\n")
            .first { $0.contains("\tpcsid\t") }?.split(separator: "\t").last.map(String.init), file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + "/", ["-H", "Cookie: pcsid=\(cookie)"]).status, 200, file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + "/logout", jar: jar, ["-d", "csrf=\(csrf)"]).status, 303, file: file, line: line)
        XCTAssertEqual(try WebServeTests.curl(second.base + "/", ["-H", "Cookie: pcsid=\(cookie)"]).status, 401, file: file, line: line)
    }
}
