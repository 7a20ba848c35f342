import Foundation
import PostgresTestKit
import XCTest

/// `POST /api/v1/offers` and service tokens (issue 42 item 3), the built binary over HTTP with
/// curl on a `--library-map` gateway: a bot's service token, made with `passconduit library
/// service-tokens`, stages offers with their chat provenance in a mapped user's library and makes
/// share links there, and gets 403 for everything else; a user token stages in its own library
/// only; the web wallet's offer page says where the pass was sent, escaped; no token reaches the log.
final class WebOfferAPITests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    typealias W = WebServeTests

    func testAServiceTokenStagesOffersWithProvenanceAndMakesLinksAndNothingElse() throws {
        let sandbox = try Sandbox()
        let template = sandbox.dir.path + "/libraries/%{local}@%{domain}.sqlite"
        let alice = sandbox.dir.path + "/libraries/alice@example.org.sqlite"
        let bob = sandbox.dir.path + "/libraries/bob@example.org.sqlite"
        let state = sandbox.dir.path + "/web-state.sqlite"
        let trust = ["--trust", Run.sample("ca/trust")]
        XCTAssertEqual(try sandbox.run("add", ["--library", alice, "--yes", Run.sample("passes/store-card.pkpass")] + trust, common: false).status, 0)
        XCTAssertEqual(try sandbox.run("add", ["--library", bob, "--yes", Run.sample("passes/boarding-pass.pkpass")] + trust, common: false).status, 0)
        let aliceHash = try XCTUnwrap(try sandbox.run("list", ["--library", alice, "--json"] + trust, common: false).objects.first?["sha256"] as? String)
        func offers(_ library: String) throws -> [[String: Any]] {
            try sandbox.run("offers", ["--library", library, "--json"] + trust, common: false).objects
        }

        // The operator makes the bot's token; it is printed once and listed by its id and name only.
        let made = try sandbox.run("library", ["service-tokens", "--create", "matrix-bot", "--library-map", template, "--state", state], common: false)
        XCTAssertEqual(made.status, 0, made.stderr)
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(token.count, 64, made.stdout)
        let list = try sandbox.run("library", ["service-tokens", "--library-map", template, "--state", state], common: false)
        XCTAssertTrue(list.stdout.contains("\tmatrix-bot\t") && list.stdout.contains("never used"), list.stdout)
        XCTAssertFalse(list.stdout.contains(token))

        let server = try W.Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1",
                                            "--trusted-proxy", "::1", "--library-map", template, "--state", state], common: false)
        try server.started()
        let asBot = ["-H", "Authorization: Bearer \(token)"]
        let pass = ["--data-binary", "@" + Run.sample("passes/boarding-pass.pkpass"), "-H", "Content-Type: application/octet-stream"]
        let provenance = "network=matrix&room=%21abc%3Aexample.org&eventId=%24xyz&sender=%40alice%3Aexample.org&name=ticket.pkpass"
        let offersURL = server.base + "/api/v1/offers"

        // Staged in Alice's library, with where it was sent; nothing added.
        let staged = try W.curl(offersURL + "?user=alice%40example.org&" + provenance, asBot + pass)
        XCTAssertEqual(staged.status, 200, staged.text)
        let results = try XCTUnwrap((WebSettingsTests.json(staged) as? [String: Any])?["results"] as? [[String: Any]], staged.text)
        XCTAssertEqual(results.map { $0["result"] as? String }, ["offered"])
        let pending = try offers(alice)
        XCTAssertEqual(pending.count, 1)
        let source = try XCTUnwrap(pending.first?["source"] as? [String: Any])
        XCTAssertEqual(source["network"] as? String, "matrix")
        XCTAssertEqual(source["room"] as? String, "!abc:example.org")
        XCTAssertEqual(source["eventId"] as? String, "$xyz")
        XCTAssertEqual(source["sender"] as? String, "@alice:example.org")
        XCTAssertEqual(source["file"] as? String, "ticket.pkpass")
        XCTAssertEqual(try sandbox.run("list", ["--library", alice, "--json"] + trust, common: false).objects.count, 1, "an offer adds nothing")
        XCTAssertEqual(try offers(bob).count, 0)
        // Sent again, the address in capitals (read as the library map reads it): the same offer.
        let again = try W.curl(offersURL + "?user=Alice%40EXAMPLE.org&" + provenance, asBot + pass)
        XCTAssertEqual((((WebSettingsTests.json(again) as? [String: Any])?["results"] as? [[String: Any]])?.first)?["result"] as? String, "already-offered")
        // An address that could stand for another once folded (K is U+212A KELVIN SIGN): refused.
        let kelvin = try W.curl(offersURL + "?user=%E2%84%AArol%40example.org&" + provenance, asBot + pass)
        XCTAssertEqual(kelvin.status, 400)
        XCTAssertEqual(WebSettingsTests.errorCode(kelvin), "bad-value")

        // A share link for a pass of Alice's library.
        let link = try W.curl(server.base + "/api/v1/passes/\(aliceHash)/links?user=alice%40example.org", asBot + ["-H", "Content-Type: application/json", "-H", "X-Forwarded-Proto: http", "-d", #"{"days": 2}"#])
        XCTAssertEqual(link.status, 201, link.text)
        let url = try XCTUnwrap((WebSettingsTests.json(link) as? [String: Any])?["url"] as? String)
        XCTAssertEqual(try W.curl(url).status, 200)

        // Nothing else: no reading, listing, accepting or removing.
        let forbidden: [(String, [String])] = [
            ("/api/v1/passes?user=alice%40example.org", []),
            ("/api/v1/passes/\(aliceHash)?user=alice%40example.org", []),
            ("/api/v1/passes/\(aliceHash).pkpass?user=alice%40example.org", []),
            ("/api/v1/passes/\(aliceHash)?user=alice%40example.org", ["-X", "DELETE"]),
            ("/api/v1/passes?user=alice%40example.org", pass),
            ("/api/v1/offers?user=alice%40example.org", []),
            ("/api/v1/offers/1/accept?user=alice%40example.org", ["-X", "POST"]),
            ("/api/v1/offers/1/decline?user=alice%40example.org", ["-X", "POST"]),
            ("/api/v1/passes/\(aliceHash)/links?user=alice%40example.org", []),
            ("/api/v1/passes/\(aliceHash)/links/1?user=alice%40example.org", ["-X", "DELETE"]),
        ]
        for (path, extra) in forbidden {
            let reply = try W.curl(server.base + path, asBot + extra)
            XCTAssertEqual(reply.status, 403, "\(path) \(extra): \(reply.text)")
            XCTAssertEqual(WebSettingsTests.errorCode(reply), "forbidden", path)
        }
        XCTAssertEqual(try offers(alice).count, 1, "the offer is still pending")
        XCTAssertEqual(try W.curl(url).status, 200, "the link is not revoked")
        // A mailbox the map has no library for, and none named.
        XCTAssertEqual(try W.curl(offersURL + "?user=carol%40example.org", asBot + pass).status, 404)
        XCTAssertEqual(try W.curl(offersURL, asBot + pass).status, 400)
        // A bad token, and none.
        let bad = try W.curl(offersURL + "?user=alice%40example.org", ["-H", "Authorization: Bearer " + String(repeating: "0", count: 64)] + pass)
        XCTAssertEqual(bad.status, 401)
        XCTAssertEqual(WebSettingsTests.errorCode(bad), "invalid-token")
        XCTAssertEqual(try W.curl(offersURL + "?user=alice%40example.org", pass).status, 401)

        // A user token stages in its own library, never in another's.
        let jar = sandbox.dir.appendingPathComponent("bob-jar")
        let settings = try W.curl(server.base + "/settings", jar: jar, ["-H", "X-User: bob@example.org"])
        let csrf = try XCTUnwrap(W.csrf(settings.text), settings.text)
        let bobToken = try XCTUnwrap(WebSettingsTests.apiToken(try W.curl(server.base + "/settings/tokens", jar: jar,
                                                                           ["-H", "X-User: bob@example.org", "-d", "csrf=\(csrf)&name=bot"]).text))
        let asBob = ["-H", "Authorization: Bearer \(bobToken)"]
        let coupon = ["--data-binary", "@" + Run.sample("passes/coupon.pkpass")]
        let elsewhere = try W.curl(offersURL + "?user=alice%40example.org", asBob + coupon)
        XCTAssertEqual(elsewhere.status, 403, elsewhere.text)
        XCTAssertEqual(try offers(alice).count, 1, "nothing staged in Alice's library")
        let own = try W.curl(offersURL + "?network=matrix&sender=%40bob%3Aexample.org", asBob + coupon)
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertEqual(try offers(bob).compactMap { ($0["source"] as? [String: Any])?["sender"] as? String }, ["@bob:example.org"])

        // The web wallet's offer page says where it came from, escaped.
        let hostile = try W.curl(offersURL + "?user=alice%40example.org&network=matrix&room=%21r%3Aexample.org&sender=%40m%3Cb%3Ex%3Aexample.org",
                                 asBot + ["--data-binary", "@" + Run.sample("passes/generic.pkpass")])
        XCTAssertEqual(hostile.status, 200, hostile.text)
        let offerNumber = try XCTUnwrap(try offers(alice).last?["offer"] as? Int)
        let page = try W.curl(server.base + "/offers/\(offerNumber)", jar: sandbox.dir.appendingPathComponent("alice-jar"), ["-H", "X-User: alice@example.org"])
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertTrue(page.text.contains("Sent by @m&lt;b&gt;x:example.org in room !r:example.org (Matrix), "), page.text)
        XCTAssertFalse(page.text.contains("<b>x"), page.text)
        // The offers list says where they came from: mail, or a chat too.
        let offersPage = try W.curl(server.base + "/offers", jar: sandbox.dir.appendingPathComponent("alice-jar"), ["-H", "X-User: alice@example.org"])
        XCTAssertTrue(offersPage.text.contains("These passes came in your mail or were sent to you in a chat."), offersPage.text)
        XCTAssertTrue(offersPage.text.contains("sent by @m&lt;b&gt;x:example.org"), offersPage.text)

        // Revoked: nothing. The log names routes, never a token.
        let tokenID = String(list.stdout.prefix { $0 != "\t" })
        XCTAssertEqual(tokenID.count, 16, list.stdout)
        let revoke = try sandbox.run("library", ["service-tokens", "--revoke", tokenID, "--library-map", template, "--state", state], common: false)
        XCTAssertEqual(revoke.status, 0, revoke.stderr)
        XCTAssertEqual(try W.curl(offersURL + "?user=alice%40example.org", asBot + pass).status, 401)
        XCTAssertTrue(server.text.contains("POST /api/v1/offers 200 "), server.text)
        XCTAssertTrue(server.text.contains("GET /api/v1/passes 403 "), server.text)
        XCTAssertFalse(server.text.contains(token), server.text)
        XCTAssertFalse(server.text.contains(bobToken), server.text)
    }

    /// The same on PostgreSQL: the service token lives in the database's web tables, the offer in
    /// the named user's library, and another user's library gets nothing.
    func testOnPostgreSQLAServiceTokenStagesAnOfferInTheNamedUsersLibrary() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer.shared
        let database = try server.database()
        let location = server.location(database: database)
        func cli(_ command: String, user: String, _ arguments: [String]) throws -> Run {
            try sandbox.run(command, ["--library", location, "--user", user, "--trust", Run.sample("ca/trust")] + arguments, common: false)
        }
        XCTAssertEqual(try cli("add", user: "alice@example.org", ["--yes", Run.sample("passes/store-card.pkpass")]).status, 0)
        XCTAssertEqual(try cli("add", user: "bob@example.org", ["--yes", Run.sample("passes/coupon.pkpass")]).status, 0)
        let made = try sandbox.run("library", ["service-tokens", "--create", "bot", "--library-map", location], common: false)
        XCTAssertEqual(made.status, 0, made.stderr)
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Kept as its SHA-256 only.
        let kept = try server.psql(database, "SELECT hash FROM passconduit_web.service_token")
        XCTAssertEqual(kept.trimmingCharacters(in: .whitespacesAndNewlines).count, 64, kept)
        XCTAssertFalse(kept.contains(token))
        let web = try W.Server(sandbox, ["--library", location, "--listen", "127.0.0.1:0", "--auth", "header:X-User",
                                         "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"], common: false)
        try web.started()
        let staged = try W.curl(web.base + "/api/v1/offers?user=alice%40example.org&network=matrix&sender=%40alice%3Aexample.org&room=%21r%3Aexample.org",
                                ["-H", "Authorization: Bearer \(token)", "--data-binary", "@" + Run.sample("passes/boarding-pass.pkpass")])
        XCTAssertEqual(staged.status, 200, staged.text + web.text)
        let offers = try cli("offers", user: "alice@example.org", ["--json"]).objects
        XCTAssertEqual(offers.compactMap { ($0["source"] as? [String: Any])?["sender"] as? String }, ["@alice:example.org"])
        XCTAssertEqual(try cli("offers", user: "bob@example.org", ["--json"]).objects.count, 0)
        let listing = try W.curl(web.base + "/api/v1/passes?user=alice%40example.org", ["-H", "Authorization: Bearer \(token)"])
        XCTAssertEqual(listing.status, 403)
        XCTAssertFalse(web.text.contains(token))
    }
}

