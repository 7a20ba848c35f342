import Foundation
import PostgresTestKit
import XCTest

/// `serve` on a PostgreSQL library (the tests' own server): each signed-in address is the
/// library user, exactly as the milter delivers to it; one user's hash is nothing to another,
/// and an address without a library gets none made.
final class WebPostgresTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    func testEachAddressSeesOnlyItsOwnLibraryOnTheServer() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer.shared
        let location = server.location(database: try server.database())
        func cli(_ command: String, user: String, _ arguments: [String]) throws -> Run {
            try sandbox.run(command, ["--library", location, "--user", user, "--trust", Run.sample("ca/trust")] + arguments, common: false)
        }
        XCTAssertEqual(try cli("add", user: "alice@example.org", ["--yes", Run.sample("passes/store-card.pkpass")]).status, 0)
        XCTAssertEqual(try cli("add", user: "bob@example.org", ["--yes", Run.sample("passes/boarding-pass.pkpass")]).status, 0)
        let bobHash = try XCTUnwrap(try cli("list", user: "bob@example.org", ["--json"]).objects.first?["sha256"] as? String)

        let web = try WebServeTests.Server(sandbox, ["--library", location, "--listen", "127.0.0.1:0", "--auth", "header:X-User",
                                                     "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"], common: false)
        try web.started()
        let alice = ["-H", "X-User: ALICE@example.org"]
        let home = try WebServeTests.curl(web.base + "/", alice)
        XCTAssertEqual(home.status, 200, home.text + web.text)
        XCTAssertTrue(home.text.contains("Passconduit Coffee"), home.text)
        XCTAssertFalse(home.text.contains("Passconduit Air"), home.text)
        for path in ["/passes/\(bobHash)", "/passes/\(bobHash).pkpass", "/passes/\(bobHash)/remove"] {
            XCTAssertEqual(try WebServeTests.curl(web.base + path, alice).status, 404, path)
        }
        let bob = try WebServeTests.curl(web.base + "/passes/\(bobHash).pkpass", ["-H", "X-User: bob@example.org"])
        XCTAssertEqual(bob.body, try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/boarding-pass.pkpass"))))
        XCTAssertEqual(try WebServeTests.curl(web.base + "/", ["-H", "X-User: carol@example.org"]).status, 403)
        XCTAssertEqual(try cli("list", user: "carol@example.org", ["--json"]).objects.count, 0)
        // Alice's API token and calendar address (kept in the database) reach her library only.
        let jar = sandbox.dir.appendingPathComponent("alice-jar")
        let settings = try WebServeTests.curl(web.base + "/settings", jar: jar, alice)
        let csrf = try XCTUnwrap(WebServeTests.csrf(settings.text), settings.text)
        let token = try XCTUnwrap(WebSettingsTests.apiToken(try WebServeTests.curl(web.base + "/settings/tokens", jar: jar,
                                                                                   alice + ["-d", "csrf=\(csrf)&name=bridge"]).text))
        let asAlice = ["-H", "Authorization: Bearer \(token)"]
        let passes = try XCTUnwrap(WebSettingsTests.json(try WebServeTests.curl(web.base + "/api/v1/passes", asAlice)) as? [[String: Any]])
        XCTAssertEqual(passes.map { $0["organizationName"] as? String }, ["Passconduit Coffee"])
        for path in ["/api/v1/passes/\(bobHash)", "/api/v1/passes/\(bobHash).pkpass"] {
            XCTAssertEqual(try WebServeTests.curl(web.base + path, asAlice).status, 404, path)
        }
        XCTAssertEqual(try WebServeTests.curl(web.base + "/api/v1/passes/\(bobHash)", asAlice + ["-X", "DELETE"]).status, 404)
        XCTAssertEqual(try cli("list", user: "bob@example.org", ["--json"]).objects.count, 1, "Bob's pass is still there")
        let made = try WebServeTests.curl(web.base + "/settings/calendar", jar: jar, alice + ["-H", "X-Forwarded-Proto: http", "-d", "csrf=\(csrf)&action=renew"])
        let feed = try WebServeTests.curl(try XCTUnwrap(WebSettingsTests.calendarURL(made.text), made.text))
        XCTAssertEqual(feed.status, 200)
        XCTAssertFalse(feed.text.contains("PC 1234"), "nothing of Bob's boarding pass: \(feed.text)")
        XCTAssertFalse(web.text.contains(token), web.text)
        XCTAssertFalse(web.text.contains("postgres:"), "no location with credentials in the log: \(web.text)")
    }

    /// The database server goes away under a running wallet: a page says to try again (503),
    /// names no server, and the wallet serves again once the server is back.
    func testADatabaseServerThatWentAwayIsA503ThatNamesNoServer() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer()
        defer { try? server.stop() }
        try server.start()
        let location = server.location(database: try server.database(), password: "hunter2-secret")
        XCTAssertEqual(try sandbox.run("add", ["--library", location, "--user", "alice@example.org", "--trust", Run.sample("ca/trust"),
                                                "--yes", Run.sample("passes/generic.pkpass")], common: false).status, 0)
        let web = try WebServeTests.Server(sandbox, ["--library", location, "--listen", "127.0.0.1:0", "--auth", "header:X-User",
                                                     "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"], common: false)
        try web.started()
        let alice = ["-H", "X-User: alice@example.org"]
        XCTAssertEqual(try WebServeTests.curl(web.base + "/", alice).status, 200, web.text)
        try server.stop()
        let down = try WebServeTests.curl(web.base + "/", alice)
        XCTAssertEqual(down.status, 503, down.text)
        XCTAssertTrue(down.text.contains("cannot be reached right now"), down.text)
        XCTAssertFalse(down.text.contains("hunter2") || down.text.contains("/tmp/"), down.text)
        XCTAssertFalse(web.text.contains("hunter2"), web.text)
        try server.start()
        var back = 0
        for _ in 0..<40 where back != 200 {
            back = try WebServeTests.curl(web.base + "/", alice).status
            if back != 200 { usleep(250_000) }
        }
        XCTAssertEqual(back, 200, "serving again once the server is back")
    }

    /// On a PostgreSQL library the sessions, API tokens and calendar secrets live in its
    /// database (no state file is made): a restarted server signs nobody out, and a token and
    /// a calendar address made before the restart still work.
    func testARestartSignsNobodyOutAndTheWebStateLivesInTheDatabase() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer.shared
        let location = server.location(database: try server.database())
        let options = ["--library", location, "--user", "alice@example.org", "--trust", Run.sample("ca/trust")]
        XCTAssertEqual(try sandbox.run("add", options + ["--yes", Run.sample("passes/event-ticket.pkpass")], common: false).status, 0)
        try WebSettingsTests.checkRestart(sandbox, arguments: options, common: false)
        let stateFolder = sandbox.dir.appendingPathComponent("state/passconduit")
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateFolder.appendingPathComponent("web-sessions.sqlite").path),
                       "the web state is in the database, not in a file")
    }
}
