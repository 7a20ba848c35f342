import Foundation
import PostgresTestKit
import XCTest

/// Share links from `serve` (issue 42 item 2), the built binary over HTTP with curl: made on the
/// pass page, through the API and with `passconduit share`; `/s/…` serves the exact stored
/// bytes as a Wallet pass without signing in, then the same 404 once the link is revoked,
/// expired or used up; on a `--library-map` gateway the link finds its owner's library; the
/// secret never reaches the server's log.
final class WebShareTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    typealias W = WebServeTests

    /// The link the share page shows once.
    static func shownLink(_ html: String) -> String? {
        guard let r = html.range(of: "<input class=\"sharelink\" type=\"text\" readonly size=\"60\" value=\"") else { return nil }
        let rest = html[r.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// The secret part of a link (after `/s/`, and after the owner's `.` when it has one).
    static func secret(_ url: String) -> String {
        let last = url.split(separator: "/").last.map(String.init) ?? url
        return last.split(separator: ".").last.map(String.init) ?? last
    }

    func sha(_ sandbox: Sandbox, library: String? = nil) throws -> [String] {
        let args = library.map { ["--library", $0, "--json", "--trust", Run.sample("ca/trust")] } ?? ["--json"]
        return try sandbox.run("list", args, common: library == nil ? true : false).objects.compactMap { $0["sha256"] as? String }
    }

    func expire(_ library: String, linkID: Int) throws {
        try HandOn.require("/usr/bin/sqlite3", package: "sqlite3")
        let r = try HandOn.run("/usr/bin/sqlite3", [library, "UPDATE share_link SET expiresAt = 1000 WHERE id = \(linkID)"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testThePassPageMakesLinksThatServeTheExactBytesUntilRevokedExpiredOrUsed() throws {
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/boarding-pass.pkpass")]).status, 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/boarding-pass.pkpass")))
        let hash = try XCTUnwrap(try sha(sandbox).first)
        let server = try W.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try W.curl(server.signIn, jar: jar).status, 303)

        // The page at the pass's own address (issue 41 item 6); its forms post there.
        let address = try W.address("pass.org.passconduit.boarding", "BP-PC1234-20260701-12A")
        let page = try W.passPage(server.base, hash, jar: jar)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains("<form method=\"post\" action=\"/passes/\(address)/share\">"), page.text)
        XCTAssertTrue(page.text.contains("<button type=\"submit\">Share…</button>"), page.text)
        XCTAssertFalse(page.text.contains("class=\"links\""), "no links yet")
        let csrf = try XCTUnwrap(W.csrf(page.text))
        let origin = ["-H", "Origin: " + server.base]
        // Without the session's form token nothing is made.
        XCTAssertEqual(try W.curl(server.base + "/passes/\(hash)/share", jar: jar, origin + ["-d", "days=7"]).status, 403)
        XCTAssertEqual(try W.curl(server.base + "/passes/\(hash)/share", jar: jar, origin + ["-d", "csrf=\(csrf)&days=5"]).status, 400)

        func make(_ form: String) throws -> String {
            let shared = try W.curl(server.base + "/passes/\(hash)/share", jar: jar, origin + ["-d", "csrf=\(csrf)&" + form])
            XCTAssertEqual(shared.status, 200, shared.text)
            XCTAssertEqual(shared.header("Cache-Control"), "no-store")
            return try XCTUnwrap(Self.shownLink(shared.text), shared.text)
        }
        let weekly = try make("days=7")
        XCTAssertTrue(weekly.hasPrefix(server.base + "/s/"), weekly)
        XCTAssertEqual(Self.secret(weekly).count, 22, weekly)
        let once = try make("days=1&once=1")
        let daily = try make("days=30")

        // Anyone, without a cookie: the stored bytes as a Wallet pass, as often as asked.
        for _ in 0..<2 {
            let fetched = try W.curl(weekly)
            XCTAssertEqual(fetched.status, 200, fetched.text)
            XCTAssertEqual(fetched.header("Content-Type"), "application/vnd.apple.pkpass")
            XCTAssertEqual(fetched.body, original)
            XCTAssertEqual(fetched.header("Content-Length"), "\(original.count)")
            let disposition = try XCTUnwrap(fetched.header("Content-Disposition"))
            XCTAssertTrue(disposition.hasPrefix("attachment; filename=\"") && disposition.hasSuffix(".pkpass\""), disposition)
            XCTAssertFalse(disposition.dropFirst("attachment; filename=\"".count).dropLast(".pkpass\"".count).contains { !($0.isLetter || $0.isNumber || $0 == "-") }, disposition)
        }
        // One download only: once.
        XCTAssertEqual(try W.curl(once).body, original)
        let usedUp = try W.curl(once)
        XCTAssertEqual(usedUp.status, 404)

        // The page lists the links, with their use, and revokes one.
        let listed = try W.curl(server.base + "/passes/" + address, jar: jar)
        XCTAssertTrue(listed.text.contains("class=\"links\""), listed.text)
        XCTAssertTrue(listed.text.contains("2 times, last "), listed.text)
        XCTAssertTrue(listed.text.contains("#2 (one download)"), listed.text)
        XCTAssertTrue(listed.text.contains("action=\"/passes/\(address)/links/1/revoke\""), listed.text)
        XCTAssertFalse(listed.text.contains(Self.secret(weekly)), "the page never shows a secret again")
        let revoked = try W.curl(server.base + "/passes/\(hash)/links/1/revoke", jar: jar, origin + ["-d", "csrf=\(csrf)"])
        XCTAssertEqual(revoked.status, 303)
        let afterRevoke = try W.curl(weekly)
        XCTAssertEqual(afterRevoke.status, 404)

        // Expired (its expiry moved into the past in the library file).
        XCTAssertEqual(try W.curl(daily).status, 200)
        try expire(sandbox.library, linkID: 3)
        let expired = try W.curl(daily)
        XCTAssertEqual(expired.status, 404)

        // Every link that serves nothing gets the same answer as one that never was.
        let unknown = try W.curl(server.base + "/s/" + String(repeating: "A", count: 22))
        XCTAssertEqual(unknown.status, 404)
        for reply in [usedUp, afterRevoke, expired] {
            XCTAssertEqual(reply.body, unknown.body)
            XCTAssertEqual(reply.header("Content-Type"), unknown.header("Content-Type"))
        }
        XCTAssertEqual(try W.curl(server.base + "/s/x").status, 404)
        XCTAssertEqual(try W.curl(weekly, ["-X", "POST"]).status, 405)

        // The log names the route, never a secret.
        XCTAssertTrue(server.text.contains("GET /s/… 200 "), server.text)
        XCTAssertTrue(server.text.contains("GET /s/… 404 "), server.text)
        XCTAssertTrue(server.text.contains("POST /passes/{hash}/share 200 "), server.text)
        for link in [weekly, once, daily] {
            XCTAssertFalse(server.text.contains(Self.secret(link)), server.text)
        }
    }

    /// A gateway: `--library-map` and header sign-in. Alice's links, made through the API and
    /// with `passconduit share`, name her so the wallet opens her library; the API lists and
    /// revokes them without secrets; Bob's token reaches none of them.
    func testOnAGatewayTheAPIAndTheCommandLineMakeLinksThatFindTheirOwnersLibrary() throws {
        let sandbox = try Sandbox()
        let template = sandbox.dir.path + "/libraries/%{local}@%{domain}.sqlite"
        let alice = sandbox.dir.path + "/libraries/alice@example.org.sqlite"
        let bob = sandbox.dir.path + "/libraries/bob@example.org.sqlite"
        let trust = ["--trust", Run.sample("ca/trust")]
        XCTAssertEqual(try sandbox.run("add", ["--library", alice, "--yes", Run.sample("passes/store-card.pkpass")] + trust, common: false).status, 0)
        XCTAssertEqual(try sandbox.run("add", ["--library", bob, "--yes", Run.sample("passes/boarding-pass.pkpass")] + trust, common: false).status, 0)
        let card = try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/store-card.pkpass")))
        let aliceHash = try XCTUnwrap(try sha(sandbox, library: alice).first)

        let server = try W.Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1",
                                            "--trusted-proxy", "::1", "--library-map", template], common: false)
        try server.started()
        func token(_ user: String) throws -> String {
            let jar = sandbox.dir.appendingPathComponent("\(user)-jar")
            let settings = try W.curl(server.base + "/settings", jar: jar, ["-H", "X-User: \(user)"])
            let csrf = try XCTUnwrap(W.csrf(settings.text), settings.text)
            return try XCTUnwrap(WebSettingsTests.apiToken(try W.curl(server.base + "/settings/tokens", jar: jar,
                                                                      ["-H", "X-User: \(user)", "-d", "csrf=\(csrf)&name=bot"]).text))
        }
        let asAlice = ["-H", "Authorization: Bearer \(try token("alice@example.org"))"]
        let asBob = ["-H", "Authorization: Bearer \(try token("bob@example.org"))"]
        let links = server.base + "/api/v1/passes/\(aliceHash)/links"
        let json = ["-H", "Content-Type: application/json"]

        // Behind the proxy the link's scheme is the browser's (this proxy says plain http).
        let made = try W.curl(links, asAlice + json + ["-H", "X-Forwarded-Proto: http", "-d", #"{"days": 2, "oneDownload": false}"#])
        XCTAssertEqual(made.status, 201, made.text)
        let object = try XCTUnwrap(WebSettingsTests.json(made) as? [String: Any])
        let url = try XCTUnwrap(object["url"] as? String)
        XCTAssertTrue(url.hasPrefix(server.base + "/s/"), url)
        let link = try XCTUnwrap(object["link"] as? [String: Any])
        XCTAssertEqual(link["id"] as? Int, 1)
        XCTAssertEqual(link["state"] as? String, "live")
        XCTAssertEqual(link["oneDownload"] as? Bool, false)
        XCTAssertEqual(try W.curl(links, asAlice + json + ["-d", #"{"days": 0}"#]).status, 400)
        XCTAssertEqual(try W.curl(links, asAlice + json + ["-d", #"{"oneDownload": "yes"}"#]).status, 400)
        // A number is a number and a boolean a boolean: {"days": 1} was refused on Linux, where
        // Foundation's JSON reader gave 1 as true.
        XCTAssertEqual(try W.curl(links, asAlice + json + ["-d", #"{"days": true}"#]).status, 400)
        XCTAssertEqual(try W.curl(links, asAlice + json + ["-d", #"{"oneDownload": 1}"#]).status, 400)
        XCTAssertEqual(try W.curl(links, asAlice + json + ["-d", #"{"days": 1.5}"#]).status, 400)
        XCTAssertEqual(try W.curl(links, asBob + json + ["-d", "{}"]).status, 404, "Bob has no such pass")

        let fetched = try W.curl(url)
        XCTAssertEqual(fetched.status, 200, fetched.text)
        XCTAssertEqual(fetched.header("Content-Type"), "application/vnd.apple.pkpass")
        XCTAssertEqual(fetched.body, card)
        // The same secret under Bob's name is nothing: the owner part only chooses the library.
        let bobPart = Data("bob@example.org".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        XCTAssertEqual(try W.curl(server.base + "/s/\(bobPart).\(Self.secret(url))").status, 404)
        XCTAssertEqual(try W.curl(server.base + "/s/\(Self.secret(url))").status, 404, "a gateway's link names its owner")

        // `passconduit share` on Alice's library file, named for the gateway.
        let cli = try sandbox.run("share", ["--library", alice, aliceHash, "--once", "--base-url", server.base, "--owner", "alice@example.org", "--json"] + trust,
                                  common: false)
        XCTAssertEqual(cli.status, 0, cli.stderr)
        let cliObject = try XCTUnwrap(cli.objects.first)
        let cliURL = try XCTUnwrap(cliObject["url"] as? String)
        XCTAssertEqual((cliObject["link"] as? [String: Any])?["oneDownload"] as? Bool, true)
        XCTAssertEqual(try W.curl(cliURL).body, card)
        XCTAssertEqual(try W.curl(cliURL).status, 404, "one download")

        // Listed without secrets; revoked through the API.
        let listed = try W.curl(links, asAlice)
        XCTAssertEqual(listed.status, 200)
        let rows = try XCTUnwrap(WebSettingsTests.json(listed) as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["id"] as? Int }, [1, 2])
        XCTAssertEqual(rows.map { $0["uses"] as? Int }, [1, 1])
        XCTAssertEqual(rows.map { $0["state"] as? String }, ["live", "used-up"])
        XCTAssertFalse(listed.text.contains(Self.secret(url)))
        XCTAssertEqual(try W.curl(links + "/1", asBob + ["-X", "DELETE"]).status, 404)
        let revoked = try W.curl(links + "/1", asAlice + ["-X", "DELETE"])
        XCTAssertEqual(revoked.status, 200, revoked.text)
        XCTAssertEqual(((WebSettingsTests.json(revoked) as? [String: Any])?["revoked"] as? [String: Any])?["state"] as? String, "revoked")
        XCTAssertEqual(try W.curl(url).status, 404)
        XCTAssertEqual(try W.curl(links + "/9", asAlice + ["-X", "DELETE"]).status, 404)

        // The command line lists and revokes too.
        let list = try sandbox.run("share", ["--library", alice, aliceHash, "--list"] + trust, common: false)
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout.split(separator: "\n").count, 2, list.stdout)
        XCTAssertTrue(list.stdout.hasPrefix("1  revoked  made "), list.stdout)
        XCTAssertEqual(try sandbox.run("share", ["--library", alice, "--revoke", "2"] + trust, common: false).stdout, "Revoked link 2.\n")
        // A link for one day, one download, as JSON numbers and booleans.
        let oneDay = try W.curl(links, asAlice + json + ["-d", #"{"days": 1, "oneDownload": true}"#])
        XCTAssertEqual(oneDay.status, 201, oneDay.text)
        XCTAssertEqual((try WebSettingsTests.json(oneDay) as? [String: Any])?["link"].flatMap { ($0 as? [String: Any])?["oneDownload"] as? Bool }, true)
        XCTAssertEqual(try sandbox.run("share", ["--library", alice, "--revoke", "7"] + trust, common: false).status, 66)

        XCTAssertTrue(server.text.contains("POST /api/v1/passes/{sha256}/links 201 "), server.text)
        XCTAssertTrue(server.text.contains("DELETE /api/v1/passes/{sha256}/links/{id} 200 "), server.text)
        for secret in [Self.secret(url), Self.secret(cliURL)] {
            XCTAssertFalse(server.text.contains(secret), server.text)
        }
    }

    /// On PostgreSQL (one database, a library per address): `passconduit share --user` names the
    /// user, and the wallet serves that user's pass, once; another user's library is not asked.
    func testOnAPostgreSQLLibraryALinkOfTheCommandLineOpensThatUsersPassOnce() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer.shared
        let location = server.location(database: try server.database())
        func cli(_ command: String, user: String, _ arguments: [String]) throws -> Run {
            try sandbox.run(command, ["--library", location, "--user", user, "--trust", Run.sample("ca/trust")] + arguments, common: false)
        }
        XCTAssertEqual(try cli("add", user: "alice@example.org", ["--yes", Run.sample("passes/store-card.pkpass")]).status, 0)
        XCTAssertEqual(try cli("add", user: "bob@example.org", ["--yes", Run.sample("passes/boarding-pass.pkpass")]).status, 0)
        let aliceHash = try XCTUnwrap(try cli("list", user: "alice@example.org", ["--json"]).objects.first?["sha256"] as? String)
        let web = try W.Server(sandbox, ["--library", location, "--listen", "127.0.0.1:0", "--auth", "header:X-User",
                                         "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"], common: false)
        try web.started()

        let made = try cli("share", user: "alice@example.org", [String(aliceHash.prefix(8)), "--once", "--days", "1", "--base-url", web.base + "/"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let lines = made.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, made.stdout)
        let url = lines[0]
        XCTAssertTrue(url.hasPrefix(web.base + "/s/YWxpY2VAZXhhbXBsZS5vcmc."), url)
        XCTAssertTrue(lines[1].hasPrefix("Passconduit Coffee · ") && lines[1].contains(": link 1, one download, until "), lines[1])
        // Bob's library does not hold it: the same link under his name answers nothing.
        XCTAssertEqual(try cli("share", user: "bob@example.org", ["--list"]).stdout, "No share links.\n")

        let fetched = try W.curl(url)
        XCTAssertEqual(fetched.status, 200, fetched.text + web.text)
        XCTAssertEqual(fetched.header("Content-Type"), "application/vnd.apple.pkpass")
        XCTAssertEqual(fetched.body, try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/store-card.pkpass"))))
        XCTAssertEqual(try W.curl(url).status, 404, "one download")
        let listed = try cli("share", user: "alice@example.org", ["--list", "--json"])
        XCTAssertEqual(listed.objects.map { $0["state"] as? String }, ["used-up"], listed.stdout)
        XCTAssertEqual(listed.objects.map { $0["uses"] as? Int }, [1], listed.stdout)
        XCTAssertFalse(listed.stdout.contains(Self.secret(url)))
        XCTAssertFalse(web.text.contains(Self.secret(url)), web.text)
    }
}
