import DovecotTestKit
import Foundation
import PostgresTestKit
import XCTest

/// `serve` behind a reverse proxy (issue 37): the address people open (`--public-url`, or the
/// proxy's `X-Forwarded-Proto` from a trusted peer) makes the cookie Secure and every address
/// https; names a sign-in proxy vouches for are taken only when no other person's library could
/// be meant; a proxied request without the cookie leaves no session row behind; the mailbox
/// server is told who is signing in.
final class WebProxyTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    typealias Server = WebServeTests.Server
    func curl(_ url: String, jar: URL? = nil, _ extra: [String] = []) throws -> WebServeTests.Reply {
        try WebServeTests.curl(url, jar: jar, extra)
    }

    /// A sandbox with a library per name under `libraries/`, each holding `passes`.
    func libraries(_ sandbox: Sandbox, _ passes: [String: String]) throws -> String {
        for (user, pass) in passes {
            let added = try sandbox.run("add", ["--library", sandbox.dir.path + "/libraries/\(user).sqlite", "--trust", Run.sample("ca/trust"),
                                                "--yes", Run.sample("passes/\(pass).pkpass")], common: false)
            XCTAssertEqual(added.status, 0, added.stderr)
        }
        return sandbox.dir.path + "/libraries/%{local}@%{domain}.sqlite"
    }

    /// Issue 37 item 14 (operator D2): behind nginx the wallet sees plain HTTP. With
    /// `--public-url https://…:8443` the session cookie is `__Host-` and Secure, the calendar
    /// address and the API example use that address, HSTS is sent, and a form is taken only from
    /// that origin. Without it, a trusted proxy's `X-Forwarded-Proto: https` does the same for
    /// the cookie.
    func testThePublicURLMakesTheCookieSecureAndEveryAddressHttps() throws {
        let sandbox = try Sandbox()
        let template = try libraries(sandbox, ["alice@example.org": "store-card"])
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-Forwarded-User", "--trusted-proxy", "127.0.0.1",
                                          "--library-map", template, "--public-url", "https://Wallet.example.org:8443/"], common: false)
        try server.started()
        let alice = ["-H", "X-Forwarded-User: alice@example.org"]
        let home = try curl(server.base + "/", alice)
        XCTAssertEqual(home.status, 200, home.text)
        let cookie = try XCTUnwrap(home.header("Set-Cookie"))
        XCTAssertTrue(cookie.hasPrefix("__Host-pcsid="), cookie)
        XCTAssertTrue(cookie.contains("; Secure"), cookie)
        XCTAssertEqual(home.header("Strict-Transport-Security"), "max-age=31536000")
        let csrf = try XCTUnwrap(WebServeTests.csrf(home.text))
        let origin = ["-H", "Origin: https://wallet.example.org:8443"]
        let calendar = try curl(server.base + "/settings/calendar", alice + origin + ["-d", "csrf=\(csrf)&action=renew"])
        XCTAssertEqual(calendar.status, 200, calendar.text)
        XCTAssertTrue(calendar.text.contains("webcal://wallet.example.org:8443/calendar/"), calendar.text)
        XCTAssertEqual(WebSettingsTests.calendarURL(calendar.text)?.hasPrefix("https://wallet.example.org:8443/calendar/"), true, calendar.text)
        let token = try curl(server.base + "/settings/tokens", alice + origin + ["-d", "csrf=\(csrf)&name=bridge"])
        XCTAssertTrue(token.text.contains(" https://wallet.example.org:8443/api/v1/passes</code>"), token.text)
        XCTAssertFalse(token.text.contains("http://wallet") || token.text.contains("http://127.0.0.1"), token.text)
        // A form from the address the request came in on is not from the public address.
        let local = try curl(server.base + "/settings/calendar", alice + ["-H", "Origin: \(server.base)", "-d", "csrf=\(csrf)&action=renew"])
        XCTAssertEqual(local.status, 403, local.text)
        XCTAssertEqual(try sandbox.run("serve", ["--public-url", "https://wallet.example.org/app", "--listen", "127.0.0.1:0"]).status, 64)

        // No --public-url: the trusted proxy's X-Forwarded-Proto (or Forwarded) says https.
        // (Its own state: alice's session from above would be reused, and no cookie set.)
        let plain = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-Forwarded-User", "--trusted-proxy", "127.0.0.1",
                                         "--library-map", template, "--state", sandbox.dir.path + "/plain-state.sqlite"], common: false)
        try plain.started()
        let viaHTTPS = try curl(plain.base + "/", alice + ["-H", "X-Forwarded-Proto: https"])
        XCTAssertTrue(viaHTTPS.header("Set-Cookie")?.contains("; Secure") ?? false, viaHTTPS.headers)
        XCTAssertNotNil(viaHTTPS.header("Strict-Transport-Security"))
        let forwarded = try curl(plain.base + "/", alice + ["-H", "Forwarded: for=192.0.2.1;proto=https"])
        XCTAssertNotNil(forwarded.header("Strict-Transport-Security"), forwarded.headers)
        // What the proxy wrote wins over what the client sent before it: nginx replaces
        // X-Forwarded-Proto and passes a client's own Forwarded through; the last hop counts.
        let forged = try curl(plain.base + "/", alice + ["-H", "Forwarded: proto=http", "-H", "X-Forwarded-Proto: https"])
        XCTAssertNotNil(forged.header("Strict-Transport-Security"), forged.headers)
        let appended = try curl(plain.base + "/", alice + ["-H", "Forwarded: proto=http, for=192.0.2.1;proto=https"])
        XCTAssertNotNil(appended.header("Strict-Transport-Security"), appended.headers)
        let viaHTTP = try curl(plain.base + "/", alice + ["-H", "X-Forwarded-Proto: http"])
        XCTAssertEqual(viaHTTP.status, 200)
        XCTAssertNil(viaHTTP.header("Strict-Transport-Security"))
    }

    /// Issue 37 item 6 (websec D6): a name written with U+212A KELVIN SIGN is not karl's, and
    /// `%{domain}@example.org` is not example.org's: both are refused with a sentence, and neither
    /// opens a library or leaves a session.
    func testProxyNamesThatCouldStandForAnotherPersonAreRefused() throws {
        let sandbox = try Sandbox()
        let template = try libraries(sandbox, ["karl@example.org": "store-card", "example.org@example.org": "coupon"])
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-Forwarded-User", "--trusted-proxy", "127.0.0.1",
                                          "--library-map", template, "--state", sandbox.dir.path + "/web.sqlite"], common: false)
        try server.started()
        XCTAssertTrue(try curl(server.base + "/", ["-H", "X-Forwarded-User: Karl@example.org"]).text.contains("Passconduit Coffee"))
        XCTAssertTrue(try curl(server.base + "/", ["-H", "X-Forwarded-User: example.org@example.org"]).text.contains("Passconduit Bakery"))
        let before = try sqlite(sandbox.dir.path + "/web.sqlite", "SELECT count(*) FROM web_session")
        for name in ["\u{212A}arl@example.org", "%{domain}@example.org", "karl\u{200B}@example.org", "../karl@example.org"] {
            let reply = try curl(server.base + "/", ["-H", "X-Forwarded-User: \(name)"])
            XCTAssertEqual(reply.status, 403, name)
            XCTAssertTrue(reply.text.contains("User name refused"), reply.text)
            XCTAssertFalse(reply.text.contains("Passconduit Coffee") || reply.text.contains("Passconduit Bakery"), reply.text)
            XCTAssertNil(reply.header("Set-Cookie"), name)
        }
        XCTAssertEqual(try sqlite(sandbox.dir.path + "/web.sqlite", "SELECT count(*) FROM web_session"), before)
    }

    func sqlite(_ path: String, _ sql: String) throws -> String {
        try HandOn.run("/usr/bin/sqlite3", [path, sql]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Issue 37 item 10 (websec D10): requests through the proxy without the cookie (a script,
    /// curl) take the session the user has; a name without a library gets none. On both state
    /// backends.
    func testCookielessProxiedRequestsLeaveOneSessionOnEitherBackend() throws {
        let sandbox = try Sandbox()
        let template = try libraries(sandbox, ["alice@example.org": "store-card"])
        let state = sandbox.dir.path + "/web.sqlite"
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1",
                                          "--library-map", template, "--state", state], common: false)
        try server.started()
        var tokens = Set<String>()
        for _ in 0..<30 {
            let page = try curl(server.base + "/offers", ["-H", "X-User: alice@example.org"])
            XCTAssertEqual(page.status, 200, page.text)
            tokens.insert(WebServeTests.csrf(page.text) ?? "")
        }
        for _ in 0..<5 { XCTAssertEqual(try curl(server.base + "/", ["-H", "X-User: nobody@example.org"]).status, 403) }
        XCTAssertEqual(try sqlite(state, "SELECT count(*) FROM web_session"), "1")
        XCTAssertEqual(tokens.count, 1, "one session, one form token")

        let postgres = try PostgresTestServer.shared
        let database = try postgres.database()
        let location = postgres.location(database: database)
        let added = try sandbox.run("add", ["--library", location, "--user", "alice@example.org", "--trust", Run.sample("ca/trust"),
                                            "--yes", Run.sample("passes/store-card.pkpass")], common: false)
        XCTAssertEqual(added.status, 0, added.stderr)
        let web = try Server(sandbox, ["--library", location, "--listen", "127.0.0.1:0", "--auth", "header:X-User",
                                       "--trusted-proxy", "127.0.0.1"], common: false)
        try web.started()
        for _ in 0..<30 { XCTAssertEqual(try curl(web.base + "/offers", ["-H", "X-User: alice@example.org"]).status, 200) }
        for _ in 0..<5 { XCTAssertEqual(try curl(web.base + "/", ["-H", "X-User: nobody@example.org"]).status, 403) }
        XCTAssertEqual(try postgres.psql(database, "SELECT count(*) FROM passconduit_web.session").trimmingCharacters(in: .whitespacesAndNewlines), "1")
    }

    /// One raw HTTP/1.1 exchange (what curl will not send): the status line of the answer.
    func raw(_ base: String, _ request: String) throws -> String {
        let url = URL(string: base)!
        let script = """
        import socket, sys
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
        s.sendall(sys.argv[2].encode("latin-1"))
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if b"\\r\\n\\r\\n" in data and b"</html>" in data:
                break
        print(data.split(b"\\r\\n")[0].decode("latin-1"))
        """
        return try HandOn.run("/usr/bin/python3", ["-c", script, "\(url.port!)", request]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Issue 37, "Also": a request without Host, or with two, is 400; a malformed chunked body is
    /// 400, not 500; behind a sign-in proxy "Sign out" says the proxy's session must end too and
    /// links to `--proxy-logout-url`.
    func testHostHeadersChunkedBodiesAndSigningOutBehindAProxy() throws {
        let sandbox = try Sandbox()
        let template = try libraries(sandbox, ["alice@example.org": "store-card"])
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1",
                                          "--library-map", template, "--proxy-logout-url", "https://sso.example.org/logout?rd=/&x=\"<"], common: false)
        try server.started()
        let user = "X-User: alice@example.org\r\n"
        XCTAssertEqual(try raw(server.base, "GET / HTTP/1.1\r\n\(user)Connection: close\r\n\r\n"), "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(try raw(server.base, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\(user)Connection: close\r\n\r\n"), "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(try raw(server.base, "GET / HTTP/1.1\r\nHost: a\r\n\(user)Connection: close\r\n\r\n"), "HTTP/1.1 200 OK")
        let home = try curl(server.base + "/", ["-H", "X-User: alice@example.org"])
        let csrf = try XCTUnwrap(WebServeTests.csrf(home.text))
        XCTAssertEqual(try raw(server.base, "POST /settings/tokens HTTP/1.1\r\nHost: a\r\n\(user)Content-Type: application/x-www-form-urlencoded\r\n"
                                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\ncsrf=\(csrf)\r\n0\r\n\r\n"), "HTTP/1.1 400 Bad Request")
        XCTAssertFalse(server.text.contains(" 500 "), server.text)

        // An API token made to expire says when; an expiry out of range makes none.
        let alice = ["-H", "X-User: alice@example.org"]
        let made = try curl(server.base + "/settings/tokens", alice + ["-d", "csrf=\(csrf)&name=script&expires=30"])
        XCTAssertEqual(made.status, 200, made.text)
        XCTAssertTrue(made.text.contains("it stops working on"), made.text)
        XCTAssertTrue(made.text.contains("<th scope=\"col\">Expires</th>"), made.text)
        let token = try XCTUnwrap(WebSettingsTests.apiToken(made.text))
        XCTAssertEqual(try curl(server.base + "/api/v1/passes", ["-H", "Authorization: Bearer \(token)"]).status, 200)
        XCTAssertEqual(try curl(server.base + "/settings/tokens", alice + ["-d", "csrf=\(csrf)&name=script&expires=0"]).status, 400)

        let out = try curl(server.base + "/logout", ["-H", "X-User: alice@example.org", "-d", "csrf=" + csrf])
        XCTAssertEqual(out.status, 200, out.text)
        XCTAssertTrue(out.text.contains("Your organisation's sign-in still knows you"), out.text)
        XCTAssertTrue(out.text.contains("<a href=\"https://sso.example.org/logout?rd=/&amp;x=&quot;&lt;\">"), out.text)
        XCTAssertEqual(out.header("Clear-Site-Data"), "\"cache\", \"cookies\", \"storage\"")
        XCTAssertTrue(out.header("Set-Cookie")?.contains("Max-Age=0") ?? false)
        XCTAssertEqual(try sandbox.run("serve", ["--listen", "127.0.0.1:0", "--proxy-logout-url", "https://sso.example.org/"]).status, 64)
    }

    /// Issue 37 item 4 (websec D4) through `serve`, and item 14 for the mailbox sign-in: Dovecot's
    /// log names the visitor's address (the one the trusted proxy at 127.0.0.9 names, or a direct
    /// visitor's own, 127.0.0.8), not serve's; behind a trusted proxy
    /// that says https the cookie is Secure, from any other peer the header is not believed.
    func testTheMailboxServerSeesTheVisitorAndTheProxysSchemeIsBelievedOnlyFromItsAddress() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/dovecot") else {
            XCTFail("Dovecot is missing: apt-get install dovecot-imapd")
            return
        }
        let dovecot = try DovecotIMAP(users: ["alice@example.org": "correct horse"], tls: false)
        defer { dovecot.stop() }
        let sandbox = try Sandbox()
        let template = try libraries(sandbox, ["alice@example.org": "store-card"])
        let form = ["--data-urlencode", "user=alice@example.org", "--data-urlencode", "password=correct horse"]
        let trusted = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "imap://127.0.0.1:\(dovecot.imapPort)",
                                           "--trusted-proxy", "127.0.0.9", "--library-map", template], common: false)
        try trusted.started()
        // The proxy names its client (X-Forwarded-For) and the scheme; Dovecot is told the client.
        let signIn = try curl(trusted.base + "/login", ["--interface", "127.0.0.9", "-H", "X-Forwarded-Proto: https",
                                                        "-H", "X-Forwarded-For: 198.51.100.7"] + form)
        XCTAssertEqual(signIn.status, 303, signIn.text)
        XCTAssertTrue(signIn.header("Set-Cookie")?.hasPrefix("__Host-pcsid=") ?? false, signIn.headers)
        XCTAssertTrue(signIn.header("Set-Cookie")?.contains("; Secure") ?? false, signIn.headers)
        let line = dovecot.log.split(separator: "\n").first { $0.contains("Login: user=<alice@example.org>") }
        XCTAssertTrue(line?.contains("rip=198.51.100.7") ?? false, "Dovecot names the visitor: \(dovecot.log.suffix(800))")
        // From a peer that is not the trusted proxy, X-Forwarded-Proto is not believed.
        let other = try curl(trusted.base + "/login", ["--interface", "127.0.0.8", "-H", "X-Forwarded-Proto: https"] + form)
        XCTAssertEqual(other.status, 303, other.text)
        XCTAssertFalse(other.header("Set-Cookie")?.contains("Secure") ?? true, other.headers)
        XCTAssertNil(other.header("Strict-Transport-Security"))
        // A visitor that is not the proxy is named by its own address.
        XCTAssertTrue(dovecot.log.split(separator: "\n").contains { $0.contains("Login: user=<alice@example.org>") && $0.contains("rip=127.0.0.8") },
                      dovecot.log.suffix(800).description)
    }
}
