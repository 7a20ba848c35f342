import Foundation
import XCTest

/// `passconduit send` on 127.0.0.1 only: real HTTP clients (curl, raw sockets from python3) and a
/// real QR decoder (zxing-cpp) against the running binary.
final class SendTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    /// A running `send`: its process and the file its standard output goes to.
    final class Server {
        let process = Process()
        let output: URL

        init(_ sandbox: Sandbox, _ arguments: [String]) throws {
            output = sandbox.dir.appendingPathComponent("send-\(UUID().uuidString).out")
            FileManager.default.createFile(atPath: output.path, contents: nil)
            process.executableURL = Binary.url
            process.arguments = ["send"] + sandbox.common + arguments
            process.environment = sandbox.environment
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// The URL it prints, once it prints it (within 20 s).
        func url() throws -> String {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let line = text.split(separator: "\n").first(where: { $0.contains("http://") }) {
                    return line.trimmingCharacters(in: .whitespaces)
                }
                if !process.isRunning { break }
                usleep(50_000)
            }
            throw NSError(domain: "SendTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "no URL: \(text)"])
        }

        /// Waits for the exit (at most `seconds`); the exit status, or nil if it still runs.
        func exitStatus(within seconds: Double) -> Int32? {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }
    }

    func curl(_ arguments: [String]) throws -> HandOn.Result {
        try HandOn.require("/usr/bin/curl", package: "curl")
        return try HandOn.run("/usr/bin/curl", ["-s", "--max-time", "10"] + arguments)
    }

    func library(_ sandbox: Sandbox) throws -> String {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        return "pass.org.passconduit.event/EVT-2026-0001"
    }

    func testCurlGetsTheExactBytesOnceThenGoneWrongPathNotFound() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let server = try Server(sandbox, [id, "--bind", "127.0.0.1", "--timeout", "60"])
        let url = try server.url()
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:"), url)
        let token = try XCTUnwrap(url.split(separator: "/").last)
        XCTAssertEqual(token.count, 32, "128 random bits in hex")
        XCTAssertTrue(token.allSatisfy(\.isHexDigit))

        // Other paths, the root, a HEAD: nothing served, nothing listed, the pass still there.
        // (The near miss changes the token's last digit: one token in 16 ends in "0" already.)
        let base = url.replacingOccurrences(of: "/" + token, with: "")
        XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", base + "/"]).stdout, "404")
        XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", base + "/" + token.dropLast() + (token.last == "0" ? "1" : "0")]).stdout, "404")
        XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", url + "/"]).stdout, "404")
        XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", url]).stdout, "405")
        let head = try curl(["-I", url])
        XCTAssertTrue(head.stdout.contains("200"), head.stdout)

        let first = sandbox.dir.appendingPathComponent("first.pkpass"), second = sandbox.dir.appendingPathComponent("second.txt")
        let got = try curl(["-D", "-", "-o", first.path, url, "-o", second.path, "-w", "%{http_code}\n", url])
        XCTAssertTrue(got.stdout.lowercased().contains("content-type: application/vnd.apple.pkpass"), got.stdout)
        XCTAssertTrue(got.stdout.lowercased().contains("content-disposition: attachment; filename=\""), got.stdout)
        XCTAssertTrue(got.stdout.contains("410"), "the second request is gone: \(got.stdout)")
        XCTAssertEqual(try Data(contentsOf: first), try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/event-ticket.pkpass"))))
        XCTAssertEqual(server.exitStatus(within: 15), 0, server.text)
        XCTAssertTrue(server.text.contains("Downloaded by 127.0.0.1 (curl/"), server.text)
    }

    func testTheQRCodeInTheOutputDecodesToTheURL() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let server = try Server(sandbox, [id, "--bind", "127.0.0.1", "--timeout", "3"])
        let url = try server.url()
        XCTAssertEqual(server.exitStatus(within: 20), 75, "nobody fetched it: the timeout ends it")
        XCTAssertTrue(server.text.contains("nobody fetched the pass in 3 seconds"), server.text)
        XCTAssertTrue(server.text.contains("unencrypted"), server.text)
        let script = #"""
        import re, sys
        import numpy, zxingcpp
        text = open(sys.argv[1], encoding="utf-8").read()
        rows = []
        for line in text.split("\n"):
            line = re.sub(r"\x1b\[[0-9;]*m", "", line)
            if not any(c in line for c in "\u2580\u2584\u2588"):
                continue
            top = [c in "\u2580\u2588" for c in line]
            bottom = [c in "\u2584\u2588" for c in line]
            rows += [top, bottom]
        width = max(len(r) for r in rows)
        pixels = numpy.full((len(rows) + 8, width + 8), 255, dtype=numpy.uint8)
        for y, row in enumerate(rows):
            for x, dark in enumerate(row):
                if dark:
                    pixels[y + 4, x + 4] = 0
        big = numpy.kron(pixels, numpy.ones((6, 6), dtype=numpy.uint8))
        results = zxingcpp.read_barcodes(big)
        print("\n".join(r.text for r in results))
        """#
        let decoded = try HandOn.run("/usr/bin/python3", ["-c", script, server.output.path])
        XCTAssertEqual(decoded.status, 0, "python3-zxing-cpp (and python3-numpy) needed: " + decoded.stderr)
        XCTAssertEqual(decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines), url)
    }

    /// Slow, broken, huge and many clients: each is cut off or answered, and the pass stays
    /// available to a proper download afterwards.
    func testHostileClientsAreBoundedAndThePassStaysAvailable() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let server = try Server(sandbox, [id, "--bind", "127.0.0.1", "--timeout", "60"])
        let url = try server.url()
        let script = #"""
        import socket, sys, time, urllib.parse
        u = urllib.parse.urlparse(sys.argv[1])
        addr = (u.hostname, u.port)
        def conn():
            s = socket.create_connection(addr, timeout=5)
            return s
        def status(s):
            data = b""
            try:
                while b"\r\n" not in data:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except (ConnectionResetError, socket.timeout):
                pass
            return data.split(b"\r\n")[0].decode("latin-1")
        out = []
        # A client that asks for the pass, reads 10 bytes and vanishes.
        s = conn(); s.sendall(b"GET " + u.path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"); s.recv(10); s.close()
        # Half a request, then gone.
        s = conn(); s.sendall(b"GET " + u.path.encode()); s.close()
        # A 1 MB path and 200 KB of headers: cut off, not answered with the pass.
        for request in (b"GET /" + b"a" * 1_000_000 + b" HTTP/1.1\r\n\r\n",
                        b"GET " + u.path.encode() + b" HTTP/1.1\r\n" + b"X-Big: " + b"b" * 200_000 + b"\r\n\r\n"):
            s = conn()
            try:
                s.sendall(request)
            except (BrokenPipeError, ConnectionResetError):
                pass
            out.append(status(s))
            s.close()
        # 60 connections at once that say nothing.
        idle = []
        for _ in range(60):
            try:
                idle.append(conn())
            except OSError:
                pass
        time.sleep(0.5)
        for s in idle:
            s.close()
        print("|".join(out))
        """#
        let hostile = try HandOn.run("/usr/bin/python3", ["-c", script, url])
        XCTAssertEqual(hostile.status, 0, hostile.stderr)
        XCTAssertFalse(hostile.stdout.contains("200"), "a huge request never gets the pass: \(hostile.stdout)")
        XCTAssertTrue(server.process.isRunning, "the server is still up: " + server.text)
        XCTAssertTrue(server.text.contains("stopped before the whole pass arrived; it is still available"), server.text)
        XCTAssertFalse(server.text.contains("Downloaded by"), "a client that read 10 bytes did not download it: " + server.text)
        // The pass is still there for a proper download.
        let file = sandbox.dir.appendingPathComponent("after.pkpass")
        var status = ""
        for _ in 0..<20 {  // the idle connections may take a moment to be released
            status = try curl(["-o", file.path, "-w", "%{http_code}", url]).stdout
            if status == "200" { break }
            usleep(200_000)
        }
        XCTAssertEqual(status, "200", server.text)
        XCTAssertEqual(try Data(contentsOf: file), try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/event-ticket.pkpass"))))
        XCTAssertEqual(server.exitStatus(within: 15), 0, server.text)
    }

    func testHelpSaysThePassTravelsUnencrypted() throws {
        let sandbox = try Sandbox()
        let help = try sandbox.run("send", ["--help"], common: false)
        XCTAssertTrue(help.stdout.contains("THE PASS TRAVELS UNENCRYPTED ON THE LOCAL NETWORK"), help.stdout)
        XCTAssertEqual(try sandbox.run("send", ["x", "--timeout", "soon"], common: false).status, 64)
    }
}
