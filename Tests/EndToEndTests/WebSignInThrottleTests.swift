import Foundation
import XCTest

/// Issue 37 defects 3, 8, 9, 11 and 15 (operator D1, D7): the mailbox sign-in's throttling and
/// what the log and the page say, against `serve` (the built binary) and a mail server that counts
/// every password it is asked about (a small IMAP server on loopback: it answers at once, so only
/// serve's own limits hold the guesses back).
final class WebSignInThrottleTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    /// An IMAP server that offers AUTH=PLAIN, accepts `users`' passwords and refuses the rest,
    /// and writes one line per password asked about ("user password").
    final class CountingIMAP {
        let process = Process()
        let log: URL
        var port = 0

        init(_ dir: URL, users: [String: String]) throws {
            log = dir.appendingPathComponent("imap-\(UUID().uuidString.prefix(6)).log")
            let portFile = dir.appendingPathComponent("imap-port-\(UUID().uuidString.prefix(6))")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            let accounts = String(decoding: try JSONSerialization.data(withJSONObject: users), as: UTF8.self)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", """
                import base64, json, socket, sys, threading
                users = json.loads(sys.argv[3]); lock = threading.Lock()
                s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(('127.0.0.1', 0)); s.listen(256)
                open(sys.argv[2], 'w').write(str(s.getsockname()[1]))
                def judge(f, c, tag, user, password):
                    with lock:
                        with open(sys.argv[1], 'a') as log: log.write('%s %s\\n' % (user, password))
                    ok = users.get(user) == password
                    c.sendall((tag + (' OK done\\r\\n' if ok else ' NO [AUTHENTICATIONFAILED] Authentication failed.\\r\\n')).encode())
                def serve(c):
                    f = c.makefile('rb')
                    c.sendall(b'* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR] ready\\r\\n')
                    try:
                        for raw in f:
                            words = raw.decode('utf-8', 'replace').rstrip('\\r\\n').split(' ')
                            tag, command = words[0], (words[1].upper() if len(words) > 1 else '')
                            if command == 'CAPABILITY':
                                c.sendall(('* CAPABILITY IMAP4rev1 AUTH=PLAIN SASL-IR\\r\\n%s OK done\\r\\n' % tag).encode())
                            elif command == 'AUTHENTICATE':
                                answer = words[3] if len(words) > 3 else None
                                if answer is None:
                                    c.sendall(b'+ \\r\\n'); answer = f.readline().decode().strip()
                                _, user, password = base64.b64decode(answer).decode('utf-8', 'replace').split('\\0')
                                judge(f, c, tag, user, password)
                            elif command == 'LOGOUT':
                                c.sendall(('* BYE\\r\\n%s OK done\\r\\n' % tag).encode()); break
                            else:
                                c.sendall(('%s BAD unknown\\r\\n' % tag).encode())
                    except Exception:
                        pass
                    c.close()
                while True:
                    c, _ = s.accept()
                    threading.Thread(target=serve, args=(c,), daemon=True).start()
                """, log.path, portFile.path, accounts]
            try process.run()
            for _ in 0..<200 where port == 0 {
                port = Int((try? String(contentsOf: portFile, encoding: .utf8)) ?? "") ?? 0
                if port == 0 { usleep(25_000) }
            }
            guard port != 0 else { throw NSError(domain: "CountingIMAP", code: 1, userInfo: [NSLocalizedDescriptionKey: "did not start"]) }
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }

        /// The passwords asked about, one "user password" per line.
        var asked: [String] { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
    }

    func serve(_ sandbox: Sandbox, imap: CountingIMAP, _ extra: [String] = []) throws -> WebServeTests.Server {
        let server = try WebServeTests.Server(sandbox, ["--auth", "imap://127.0.0.1:\(imap.port)", "--state", sandbox.dir.path + "/web-sessions.sqlite",
                                                        "--library-map", sandbox.dir.path + "/%{local}@%{domain}.sqlite"] + extra, common: false)
        try server.started()
        return server
    }

    func login(_ base: String, _ user: String, _ password: String, _ extra: [String] = []) throws -> WebServeTests.Reply {
        try Self.login(base, user, password, extra)
    }

    static func login(_ base: String, _ user: String, _ password: String, _ extra: [String] = []) throws -> WebServeTests.Reply {
        try WebServeTests.curl(base + "/login", extra + ["--data-urlencode", "user=\(user)", "--data-urlencode", "password=\(password)"])
    }

    /// Runs `body` for 0..<n on as many threads at once (not a pool's few: every request in flight together).
    func parallel<T: Sendable>(_ n: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [Result<T, any Error>] {
        let results = Results<T>(n)
        let group = DispatchGroup()
        for i in 0..<n {
            group.enter()
            Thread.detachNewThread {
                results.set(i, Result { try body(i) })
                group.leave()
            }
        }
        group.wait()
        return results.all
    }

    final class Results<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Result<T, any Error>?]
        init(_ n: Int) { values = Array(repeating: nil, count: n) }
        func set(_ i: Int, _ value: Result<T, any Error>) { lock.withLock { values[i] = value } }
        var all: [Result<T, any Error>] { lock.withLock { values.map { $0! } } }
    }

    /// Defect 3: 40 wrong guesses at once for one account from one client: the attempt is counted
    /// before the mail server is asked, so at most 5 reach it (before the fix all 40 did).
    func testParallelGuessesReachTheMailServerAtMostFiveTimes() throws {
        let sandbox = try Sandbox()
        let imap = try CountingIMAP(sandbox.dir, users: ["gina@example.org": "gina-right-pw"])
        let server = try serve(sandbox, imap: imap)
        let base = server.base
        let statuses = parallel(40) { i in try Self.login(base, "gina@example.org", "guess\(i)").status }.compactMap { try? $0.get() }
        XCTAssertEqual(statuses.count, 40)
        XCTAssertEqual(imap.asked.count, 5, "guesses that reached the mail server: \(imap.asked.count)")
        XCTAssertEqual(statuses.filter { $0 == 401 }.count, 5, "\(statuses)")
        XCTAssertEqual(statuses.filter { $0 == 429 }.count, 35, "\(statuses)")
        XCTAssertTrue(server.text.contains("sign-in throttled: account=gina@example.org client=127.0.0.1 reason=too-many-failures-for-this-account-from-this-client"),
                      server.text)
        XCTAssertFalse(server.text.contains("guess1"), "no password in the log")
    }

    /// Defects 8 and 15: wrong passwords for carol from five other addresses do not keep carol out;
    /// the client that failed five times is refused for carol only.
    func testStrangersWrongPasswordsDoNotLockTheOwnerOut() throws {
        let sandbox = try Sandbox()
        let imap = try CountingIMAP(sandbox.dir, users: ["carol@example.org": "carol-right-pw", "dave@example.org": "dave-right-pw"])
        let server = try serve(sandbox, imap: imap)
        for i in 1...5 {
            XCTAssertEqual(try login(server.base, "carol@example.org", "wrong", ["--interface", "127.0.7.\(i)"]).status, 401)
        }
        let owner = try login(server.base, "carol@example.org", "carol-right-pw", ["--interface", "127.0.7.50"])
        XCTAssertEqual(owner.status, 303, "the owner signs in from her own address: \(owner.text)")
        // One client's five failures at one account: that client waits for that account only.
        let started = Date(), base = server.base
        let all = parallel(6) { _ in try Self.login(base, "carol@example.org", "wrong", ["--interface", "127.0.7.9"]).status }
        XCTAssertEqual(all.compactMap { try? $0.get() }.sorted(), [401, 401, 401, 401, 401, 429])
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the back-off waits run side by side")
        let refused = try login(server.base, "carol@example.org", "carol-right-pw", ["--interface", "127.0.7.9"])
        XCTAssertEqual(refused.status, 429)
        XCTAssertNotNil(refused.header("Retry-After"))
        XCTAssertTrue(refused.text.contains("Too many failed sign-ins for this address from your network."), refused.text)
        XCTAssertEqual(try login(server.base, "dave@example.org", "dave-right-pw", ["--interface", "127.0.7.9"]).status, 303,
                       "another mailbox from that client is not held back")
        XCTAssertTrue(server.text.contains("client=127.0.7.9 reason=too-many-failures-for-this-account-from-this-client"), server.text)
    }

    /// Operator D1: behind the shipped nginx (a Unix socket: no peer address) every client looked the
    /// same, so five failures from anyone locked every mailbox. With `--trusted-proxy unix` the
    /// proxy's X-Forwarded-For is the client; `library throttles` lists and clears the counters.
    func testBehindTheSocketProxyTheForwardedClientIsCountedAndTheAdminCommandClears() throws {
        let sandbox = try Sandbox()
        let imap = try CountingIMAP(sandbox.dir, users: ["alice@example.org": "alice-right-pw"])
        let socket = sandbox.dir.path + "/web.sock"
        let state = sandbox.dir.path + "/web-sessions.sqlite"
        let map = sandbox.dir.path + "/%{local}@%{domain}.sqlite"
        let server = try serve(sandbox, imap: imap, ["--listen", "unix:" + socket, "--trusted-proxy", "unix"])
        let base = "http://wallet.example.org"
        let stranger = ["--unix-socket", socket, "-H", "X-Forwarded-For: 203.0.113.5"]
        let all = parallel(6) { _ in try Self.login(base, "alice@example.org", "wrong", stranger).status }
        XCTAssertEqual(all.compactMap { try? $0.get() }.sorted(), [401, 401, 401, 401, 401, 429])
        // Alice from her own address, through the same proxy.
        let alice = try login(base, "alice@example.org", "alice-right-pw", ["--unix-socket", socket, "-H", "X-Forwarded-For: 198.51.100.7"])
        XCTAssertEqual(alice.status, 303, alice.text)
        // A client that writes its own X-Forwarded-For gets the proxy's last hop, not its own words.
        XCTAssertEqual(try login(base, "alice@example.org", "wrong", ["--unix-socket", socket, "-H", "X-Forwarded-For: 198.51.100.7, 203.0.113.5"]).status, 429)
        XCTAssertTrue(server.text.contains("sign-in throttled: account=alice@example.org client=203.0.113.5 reason=too-many-failures-for-this-account-from-this-client"),
                      server.text)
        XCTAssertTrue(server.text.contains("POST /login 303") && server.text.contains("client=198.51.100.7"), server.text)

        let listed = try sandbox.run("library", ["throttles", "--library-map", map, "--state", state], common: false)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("alice@example.org\t203.0.113.5\t5 attempts\t"), listed.stdout)
        XCTAssertTrue(listed.stdout.split(separator: "\n").contains { $0.hasPrefix("alice@example.org\t203.0.113.5\t") && $0.hasSuffix("\tthrottled") },
                      listed.stdout)
        let cleared = try sandbox.run("library", ["throttles", "--clear", "alice@example.org", "--library-map", map, "--state", state], common: false)
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertTrue(cleared.stdout.hasPrefix("Cleared ") && cleared.stdout.hasSuffix(" of alice@example.org.\n"), cleared.stdout)
        XCTAssertEqual(try login(base, "alice@example.org", "wrong", stranger).status, 401, "cleared: the client is counted from zero")
        let none = try sandbox.run("library", ["throttles", "--all", "--library-map", map, "--state", state], common: false)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(try sandbox.run("library", ["throttles", "--library-map", map, "--state", state], common: false).stdout, "")
    }

    /// Defect 9 and operator D7: with the mail server down the page says so without naming it; the
    /// log names it and why, with the account and client.
    func testAMailServerThatIsDownIsNamedInTheLogOnly() throws {
        let sandbox = try Sandbox()
        let probe = try HandOn.run("/usr/bin/python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
        let port = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "imap://127.0.0.1:\(port)",
                                                        "--library-map", sandbox.dir.path + "/%{local}@%{domain}.sqlite"], common: false)
        try server.started()
        let down = try login(server.base, "alice@example.org", "hunter2-secret")
        XCTAssertEqual(down.status, 503, down.text)
        XCTAssertTrue(down.text.contains("The mail server that checks passwords cannot be reached now."), down.text)
        XCTAssertFalse(down.text.contains("127.0.0.1") || down.text.contains(port) || down.text.contains("imap://"), down.text)
        XCTAssertTrue(server.text.contains("sign-in impossible: the mail server cannot be reached: account=alice@example.org client=127.0.0.1 reason="),
                      server.text)
        XCTAssertTrue(server.text.contains(port), "the log names the server: \(server.text)")
        XCTAssertFalse(server.text.contains("hunter2"), server.text)
        // The outage judged no password: it does not count toward the limit.
        for _ in 0..<6 { XCTAssertEqual(try login(server.base, "alice@example.org", "hunter2-secret").status, 503) }
    }

    /// Defect 11: a request without a session is logged by its route pattern and client address,
    /// never with the hash, token id or text of its path.
    func testRequestsWithoutASessionAreLoggedByRoutePattern() throws {
        let sandbox = try Sandbox()
        let imap = try CountingIMAP(sandbox.dir, users: [:])
        let server = try serve(sandbox, imap: imap)
        let hash = String(repeating: "eb9e1ccb", count: 8)
        for path in ["/passes/\(hash)", "/passes/\(hash).pkpass", "/settings/tokens/b61e20aa6da92219/revoke", "/FAKE_LOG_LINE_GET_/settings_200_0.1ms"] {
            XCTAssertEqual(try WebServeTests.curl(server.base + path).status, 303, path)
        }
        let text = server.text
        for secret in [hash, "b61e20aa6da92219", "FAKE_LOG_LINE"] { XCTAssertFalse(text.contains(secret), text) }
        XCTAssertTrue(text.contains("GET /passes/{hash} 303 "), text)
        XCTAssertTrue(text.contains("GET /passes/{hash}.pkpass 303 "), text)
        XCTAssertTrue(text.contains("GET /settings/tokens/{id}/revoke 303 "), text)
        XCTAssertTrue(text.contains("GET - 303 "), text)
        XCTAssertTrue(text.split(separator: "\n").filter { $0.hasPrefix("GET ") }.allSatisfy { $0.hasSuffix(" client=127.0.0.1") }, text)
    }

    /// Defect 13: a desktop sign-out ends on a page that says so (200), not on "Sign in first".
    func testTheDesktopSignedOutPageIsShown() throws {
        let sandbox = try Sandbox()
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        let home = try WebServeTests.curl(server.base + "/", jar: jar)
        let csrf = try XCTUnwrap(WebServeTests.csrf(home.text), home.text)
        let out = try WebServeTests.curl(server.base + "/logout", jar: jar, ["-d", "csrf=\(csrf)"])
        XCTAssertEqual(out.status, 303)
        XCTAssertEqual(out.header("Location"), "/signed-out")
        let page = try WebServeTests.curl(server.base + "/signed-out", jar: jar)
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertTrue(page.text.contains("You are signed out."), page.text)
        XCTAssertFalse(page.text.contains("Sign in first"), page.text)
    }
}
