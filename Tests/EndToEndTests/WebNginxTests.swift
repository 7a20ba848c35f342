import DovecotTestKit
import Foundation
import XCTest

/// The web wallet as the package ships it for a provider: `serve` on a unix socket behind the
/// shipped nginx sample (Samples/integrations/nginx/passconduit-web.conf, only its listen address,
/// certificate and socket path changed), signed in against a real Dovecot, reached over TLS by curl
/// as a browser would. What an operator's trial found there (operator-4.md D2, D7, D14; issue 37
/// items 14 and 16): the wallet thought it was on plain http (no Secure cookie, http:// calendar
/// and API addresses), a non-443 port was dropped from Host (forms refused as cross-site), and
/// nginx logged the calendar secret.
final class WebNginxTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    func testTheShippedNginxSetupServesTheWalletOverHTTPSAndKeepsTheCalendarSecretOutOfItsLog() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else {
            XCTFail("nginx is missing: apt-get install nginx-light")
            return
        }
        let dovecot = try DovecotIMAP(users: ["alice@example.org": "correct horse"], tls: false)
        defer { dovecot.stop() }
        let sandbox = try Sandbox()
        let alice = sandbox.dir.path + "/alice@example.org.sqlite"
        XCTAssertEqual(try sandbox.run("add", ["--library", alice, "--trust", Run.sample("ca/trust"), "--yes",
                                                Run.sample("passes/store-card.pkpass")], common: false).status, 0)
        let port = MilterKit.freePort()
        let origin = "https://127.0.0.1:\(port)"
        let socket = sandbox.dir.appendingPathComponent("web.sock").path
        let server = try WebServeTests.Server(sandbox, ["--listen", "unix:" + socket, "--auth", "imap://127.0.0.1:\(dovecot.imapPort)",
                                                        "--public-url", origin,
                                                        "--library-map", sandbox.dir.path + "/%{local}@%{domain}.sqlite"], common: false)
        try server.started()

        // nginx with the shipped server block: TLS on a loopback port, the sandbox's socket.
        let nginx = sandbox.dir.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: nginx.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let made = try MilterKit.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                                          "-keyout", nginx.appendingPathComponent("key.pem").path,
                                                          "-out", nginx.appendingPathComponent("cert.pem").path,
                                                          "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        XCTAssertEqual(made.status, 0, made.output)
        var block = try String(contentsOf: Run.root.appendingPathComponent("Samples/integrations/nginx/passconduit-web.conf"), encoding: .utf8)
        for (shipped, here) in [("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"),
                                ("/etc/ssl/certs/wallet.example.org.pem", nginx.appendingPathComponent("cert.pem").path),
                                ("/etc/ssl/private/wallet.example.org.key", nginx.appendingPathComponent("key.pem").path),
                                ("unix:/run/passconduit/web.sock", "unix:" + socket)] {
            XCTAssertTrue(block.contains(shipped), "the shipped sample no longer has \(shipped)")
            block = block.replacingOccurrences(of: shipped, with: here)
        }
        let accessLog = nginx.appendingPathComponent("logs/access.log")
        let config = """
        daemon off;
        master_process off;
        pid \(nginx.path)/nginx.pid;
        error_log \(nginx.path)/logs/error.log;
        events { worker_connections 64; }
        http {
            access_log \(accessLog.path);
            client_body_temp_path \(nginx.path)/body;
            proxy_temp_path \(nginx.path)/proxy;
        \(block)
        }
        """
        try config.write(to: nginx.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        proxy.arguments = ["-p", nginx.path, "-e", nginx.appendingPathComponent("logs/error.log").path, "-c", nginx.appendingPathComponent("nginx.conf").path]
        try proxy.run()
        defer { if proxy.isRunning { proxy.terminate(); proxy.waitUntilExit() } }
        XCTAssertTrue(MilterKit.waitUntil(10) { MilterKit.isListening(port) || !proxy.isRunning } && proxy.isRunning,
                      (try? String(contentsOf: nginx.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? "")

        let tls = ["-k"]
        // A form sent with the browser's Origin (port included) and no Sec-Fetch-Site, as curl
        // and older browsers send it: signed in, with a Secure cookie.
        let jar = sandbox.dir.appendingPathComponent("jar")
        let signIn = try WebServeTests.curl(origin + "/login", jar: jar, tls + ["-H", "Origin: \(origin)",
                                                                           "--data-urlencode", "user=alice@example.org",
                                                                           "--data-urlencode", "password=correct horse"])
        XCTAssertEqual(signIn.status, 303, signIn.text + server.text)
        let cookie = signIn.header("Set-Cookie") ?? ""
        XCTAssertTrue(cookie.contains("Secure") && cookie.hasPrefix("__Host-"), cookie)
        XCTAssertNotNil(signIn.header("Strict-Transport-Security"), signIn.headers)

        // The calendar address the Settings page makes is the public https one, with its port.
        let settings = try WebServeTests.curl(origin + "/settings", jar: jar, tls)
        XCTAssertEqual(settings.status, 200, settings.text)
        let csrf = try XCTUnwrap(WebServeTests.csrf(settings.text), settings.text)
        XCTAssertFalse(settings.text.contains("http://127.0.0.1"), "an http:// address on the settings page")
        let made2 = try WebServeTests.curl(origin + "/settings/calendar", jar: jar, tls + ["-H", "Origin: \(origin)",
                                                                                          "--data-urlencode", "csrf=\(csrf)",
                                                                                          "--data-urlencode", "action=renew"])
        XCTAssertEqual(made2.status, 200, made2.text)
        let pattern = try NSRegularExpression(pattern: "https://127\\.0\\.0\\.1:\(port)/calendar/([0-9a-f]{32,})\\.ics")
        let match = try XCTUnwrap(pattern.firstMatch(in: made2.text, range: NSRange(made2.text.startIndex..., in: made2.text)), made2.text)
        let secret = String(made2.text[Range(match.range(at: 1), in: made2.text)!])
        XCTAssertTrue(made2.text.contains("webcal://127.0.0.1:\(port)/calendar/\(secret).ics"), made2.text)
        XCTAssertFalse(made2.text.contains("http://127.0.0.1:\(port)/calendar/"))

        // The calendar works through nginx, and neither nginx's log nor serve's holds its secret.
        let feed = try WebServeTests.curl(origin + "/calendar/\(secret).ics", tls)
        XCTAssertEqual(feed.status, 200)
        XCTAssertTrue(feed.text.hasPrefix("BEGIN:VCALENDAR"), feed.text)
        let logged = (try? String(contentsOf: accessLog, encoding: .utf8)) ?? ""
        XCTAssertTrue(logged.contains("POST /login"), "nginx logs the other requests: \(logged)")
        XCTAssertFalse(logged.contains(secret), "nginx logged the calendar secret: \(logged)")
        XCTAssertFalse(server.text.contains(secret), server.text)
        XCTAssertFalse(server.text.contains("correct horse"), server.text)
    }
}
