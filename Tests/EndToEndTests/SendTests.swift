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

    /// A TCP socket listening on 127.0.0.1 at a free port: (descriptor, port). Close it after.
    func occupiedPort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        XCTAssertTrue(bound)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Every way of naming a place `send` cannot listen on ends in one sentence and 64 (not an
    /// address) or 69 (no such address here, the port taken), never a crash: the debug build
    /// (the one tests run) traps on a NIO promise left unfulfilled, as it did on each of these.
    func testBindFailuresAreOneSentenceAndAnExitStatusNeverACrash() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let (fd, busy) = try occupiedPort()
        defer { close(fd) }
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["--bind", "foo"], 64, "--bind: “foo” is not an address"),
            (["--bind", "127.0.0.1:http"], 64, "the port “http” is not a number"),
            (["--bind", "[::1"], 64, "lacks its “]”"),
            (["--bind", "127.0.0.1:80", "--port", "81"], 64, "give the port once"),
            (["--bind", "192.0.2.55"], 69, "cannot listen on 192.0.2.55 (any free port): no network interface of this computer has that address"),
            (["--bind", "127.0.0.1", "--port", String(busy)], 69, "cannot listen on 127.0.0.1 port \(busy): another program already uses that port"),
            (["--bind", "127.0.0.1:\(busy)"], 69, "cannot listen on 127.0.0.1 port \(busy): another program already uses that port"),
        ]
        for c in cases {
            let run = try sandbox.run("send", [id, "--timeout", "5"] + c.arguments)
            XCTAssertEqual(run.status, c.status, "\(c.arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(c.says), "\(c.arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("Fatal error"), "\(c.arguments): \(run.stderr)")
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, "one sentence: \(run.stderr)")
            XCTAssertEqual(run.stdout, "", "nothing served: \(run.stdout)")
        }
    }

    /// An address in brackets (as in a URL) is an IPv6 address to listen on, and the link
    /// carries it in brackets.
    func testBracketedIPv6AddressIsServedThere() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let server = try Server(sandbox, [id, "--bind", "[::1]", "--timeout", "30"])
        let url = try server.url()
        XCTAssertTrue(url.hasPrefix("http://[::1]:"), url)
        let file = sandbox.dir.appendingPathComponent("v6.pkpass")
        XCTAssertEqual(try curl(["-g", "-o", file.path, "-w", "%{http_code}", url]).stdout, "200")
        XCTAssertEqual(try Data(contentsOf: file), try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/event-ticket.pkpass"))))
        XCTAssertEqual(server.exitStatus(within: 15), 0, server.text)
    }

    /// 0.0.0.0 listens on every address, but no phone can open http://0.0.0.0: the link (and the
    /// QR code) carry the default route's address, which serves the pass.
    func testEveryAddressPutsTheDefaultRoutesAddressInTheLink() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let server = try Server(sandbox, [id, "--bind", "0.0.0.0", "--timeout", "30"])
        guard let url = try? server.url() else {
            // Only a computer without a default route may refuse, and then with its sentence.
            XCTAssertEqual(server.exitStatus(within: 15), 69, server.text)
            XCTAssertTrue(server.text.contains("no default route with an IPv4 address"), server.text)
            XCTAssertFalse(FileManager.default.contents(atPath: "/proc/net/route").map { String(decoding: $0, as: UTF8.self) }?
                .contains("\t00000000\t") ?? false, "there is a default route: \(server.text)")
            return
        }
        XCTAssertFalse(url.contains("0.0.0.0"), url)
        XCTAssertFalse(server.text.contains("0.0.0.0"), server.text)
        XCTAssertEqual(try curl(["-o", "/dev/null", "-w", "%{http_code}", url]).stdout, "200")
        XCTAssertEqual(server.exitStatus(within: 15), 0, server.text)
    }

    /// Twenty connections that send nothing hold every place the server has; the phone's
    /// download still gets the pass at once, not after the 30 s a connection may live.
    func testIdleConnectionsDoNotStarveTheDownload() throws {
        let sandbox = try Sandbox()
        let id = try library(sandbox)
        let server = try Server(sandbox, [id, "--bind", "127.0.0.1", "--timeout", "60"])
        let url = try server.url()
        let script = #"""
        import socket, subprocess, sys, time, urllib.parse
        u = urllib.parse.urlparse(sys.argv[1])
        idle = [socket.create_connection((u.hostname, u.port), timeout=5) for _ in range(20)]
        time.sleep(0.5)
        start = time.monotonic()
        code = subprocess.run(["/usr/bin/curl", "-s", "--max-time", "20", "-o", sys.argv[2], "-w", "%{http_code}", sys.argv[1]],
                              capture_output=True, text=True).stdout
        print(code, round(time.monotonic() - start, 2))
        for s in idle:
            s.close()
        """#
        let file = sandbox.dir.appendingPathComponent("crowded.pkpass")
        let result = try HandOn.run("/usr/bin/python3", ["-c", script, url, file.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let words = result.stdout.split(separator: " ")
        XCTAssertEqual(words.first, "200", result.stdout + server.text)
        XCTAssertLessThan(Double(words.last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "") ?? 99, 4, result.stdout)
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
