import Foundation
import XCTest

/// Issue 37 defect 2: "Check for update" in `serve` sends a request from the server, inside its
/// network, to an address any signed-in person chose (a pass's webServiceURL). Only https to
/// public addresses is contacted; loopback is refused whatever the scheme or name, and the page
/// says why. A listener on loopback records every connection: it must see none.
final class WebUpdateAddressTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    func testCheckForUpdateInServeNeverContactsThisMachine() throws {
        let sandbox = try Sandbox()
        // The listener: accepts, notes, answers 200; writes its port first.
        let log = sandbox.dir.appendingPathComponent("connections")
        let portFile = sandbox.dir.appendingPathComponent("port")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = ["-c", """
            import socket, sys
            s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(16)
            open(sys.argv[2], 'w').write(str(s.getsockname()[1]))
            while True:
                c, a = s.accept()
                with open(sys.argv[1], 'a') as f: f.write('connection from %s\\n' % (a,))
                try: c.recv(4096); c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Length: 8\\r\\n\\r\\ninternal')
                except Exception: pass
                c.close()
            """, log.path, portFile.path]
        try listener.run()
        defer { listener.terminate(); listener.waitUntilExit() }
        var port = 0
        for _ in 0..<100 where port == 0 {
            port = Int((try? String(contentsOf: portFile, encoding: .utf8)) ?? "") ?? 0
            if port == 0 { usleep(50_000) }
        }
        XCTAssertNotEqual(port, 0, "the listener started")

        let now = Date()
        var hashes: [String: String] = [:]
        for (serial, url) in [("PLAIN", "http://127.0.0.1:\(port)/internal-admin"), ("TLS", "https://127.0.0.1:\(port)/x"),
                              ("NAME", "https://localhost:\(port)/x"), ("MAPPED", "https://[::ffff:127.0.0.1]:\(port)/x")] {
            let pass = try UpdateKit.pass(serial: "SSRF-\(serial)", webServiceURL: url, signed: now.addingTimeInterval(-3600), in: sandbox.dir)
            XCTAssertEqual(try sandbox.run("add", ["--yes", pass.path]).status, 0)
            hashes[serial] = try String(decoding: UpdateKit.run("/usr/bin/sha256sum", [pass.path]), as: UTF8.self).split(separator: " ")[0].lowercased()
        }

        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        for (serial, hash) in hashes.sorted(by: { $0.key < $1.key }) {
            let page = try WebServeTests.passPage(server.base, hash, jar: jar)
            let csrf = try XCTUnwrap(WebServeTests.csrf(page.text), page.text)
            let checked = try WebServeTests.curl(server.base + "/passes/\(hash)/update", jar: jar, ["-d", "csrf=\(csrf)"])
            XCTAssertEqual(checked.status, 200, checked.text)
            let expected = serial == "PLAIN" ? "is not secure (http://), so the server does not contact it"
                                             : "leads into the server&#39;s own network, which the server never contacts"
            XCTAssertTrue(checked.text.contains(expected), "\(serial): \(checked.text)")
        }
        let contacted = try String(contentsOf: log, encoding: .utf8)
        XCTAssertEqual(contacted, "", "the loopback listener was contacted: \(contacted)")
    }

    /// The operator's own test server stays reachable when named: `--update-allow-host`.
    func testAnAllowedTestHostIsContacted() throws {
        let sandbox = try Sandbox()
        let portFile = sandbox.dir.appendingPathComponent("port")
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let log = sandbox.dir.appendingPathComponent("connections")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        listener.arguments = ["-c", """
            import socket, sys
            s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(4)
            open(sys.argv[2], 'w').write(str(s.getsockname()[1]))
            while True:
                c, a = s.accept()
                with open(sys.argv[1], 'a') as f: f.write('connection\\n')
                try: c.recv(4096); c.sendall(b'HTTP/1.1 404 Not Found\\r\\nContent-Length: 0\\r\\n\\r\\n')
                except Exception: pass
                c.close()
            """, log.path, portFile.path]
        try listener.run()
        defer { listener.terminate(); listener.waitUntilExit() }
        var port = 0
        for _ in 0..<100 where port == 0 {
            port = Int((try? String(contentsOf: portFile, encoding: .utf8)) ?? "") ?? 0
            if port == 0 { usleep(50_000) }
        }
        let pass = try UpdateKit.pass(serial: "ALLOWED", webServiceURL: "http://127.0.0.1:\(port)/p", signed: Date().addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes", pass.path]).status, 0)
        let hash = try String(decoding: UpdateKit.run("/usr/bin/sha256sum", [pass.path]), as: UTF8.self).split(separator: " ")[0].lowercased()
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0", "--update-allow-host", "127.0.0.1"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        let page = try WebServeTests.passPage(server.base, hash, jar: jar)
        let csrf = try XCTUnwrap(WebServeTests.csrf(page.text), page.text)
        let checked = try WebServeTests.curl(server.base + "/passes/\(hash)/update", jar: jar, ["-d", "csrf=\(csrf)"])
        XCTAssertTrue(checked.text.contains("no longer knows this pass"), checked.text)
        XCTAssertEqual(try String(contentsOf: log, encoding: .utf8), "connection\n")
    }
}
