import Foundation
import XCTest

/// Issue 37 defect 7 through the built `serve`: uploads over the limits are answered at once,
/// before their bytes are read (429 for a person with two going, 503 for a full server, each with
/// Retry-After and a sentence), nothing changes, and the places come back when the uploads end.
final class WebUploadLimitTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    typealias Server = WebServeTests.Server

    /// A curl that sends a 300 KB upload at 2 KB/s: it holds its place for minutes.
    func slowUpload(_ server: Server, user: String, jar: URL, token: String, file: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "--limit-rate", "2k", "-H", "Expect:", "-H", "X-Forwarded-User: \(user)",
                             "-b", jar.path, "-F", "csrf=" + token, "-F", "file=@" + file.path, server.base + "/add"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func testUploadsOverTheLimitsAreToldToComeBackAndThePlacesReturn() throws {
        let sandbox = try Sandbox()
        let template = sandbox.dir.path + "/libraries/%{local}@%{domain}.sqlite"
        let trust = ["--trust", Run.sample("ca/trust")]
        for user in ["alice", "bob"] {
            XCTAssertEqual(try sandbox.run("library", ["create", "\(user)@example.org", "--library-map", template], common: false).status, 0)
        }
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-Forwarded-User", "--trusted-proxy", "127.0.0.1",
                                          "--library-map", template, "--uploads-at-once", "3"], common: false)
        try server.started()
        var jars: [String: (jar: URL, token: String)] = [:]
        for user in ["alice", "bob"] {
            let jar = sandbox.dir.appendingPathComponent("\(user)-jar")
            let home = try WebServeTests.curl(server.base + "/add", jar: jar, ["-H", "X-Forwarded-User: \(user)@example.org"])
            XCTAssertEqual(home.status, 200, home.text)
            jars[user] = (jar, try XCTUnwrap(WebServeTests.csrf(home.text)))
        }
        func upload(_ user: String, _ file: String) throws -> WebServeTests.Reply {
            try WebServeTests.curl(server.base + "/add", jar: jars[user]!.jar,
                                   ["-H", "X-Forwarded-User: \(user)@example.org", "-F", "csrf=" + jars[user]!.token, "-F", "file=@" + file])
        }
        let big = sandbox.dir.appendingPathComponent("big.eml")
        try Data(("From: a@example.org\r\nSubject: slow\r\n\r\n" + String(repeating: "a line of text to upload slowly\r\n", count: 10_000)).utf8).write(to: big)

        // Alice starts two slow uploads, Bob one: the server's three places are taken.
        var slow: [Process] = []
        defer { for p in slow where p.isRunning { p.terminate(); p.waitUntilExit() } }
        for user in ["alice", "alice", "bob"] {
            slow.append(try slowUpload(server, user: "\(user)@example.org", jar: jars[user]!.jar, token: jars[user]!.token, file: big))
        }
        // Each has sent its head within a moment (the place is taken then) and goes on sending its body.
        usleep(1_500_000)
        XCTAssertFalse(server.text.contains("POST"), "none is answered yet: \(server.text)")
        let third = try upload("alice", big.path)
        XCTAssertEqual(third.status, 429, third.text)
        XCTAssertEqual(third.header("Retry-After"), "10")
        XCTAssertTrue(third.text.contains("Your other upload is still being checked. Nothing was changed"), third.text)

        // Bob has one going, but the server is full: 503, and his pass is not read, not added.
        let full = try upload("bob", Run.sample("passes/store-card.pkpass"))
        XCTAssertEqual(full.status, 503, full.text)
        XCTAssertEqual(full.header("Retry-After"), "30")
        XCTAssertTrue(full.text.contains("checking many uploads right now"), full.text)
        XCTAssertEqual(try sandbox.run("list", ["--library", sandbox.dir.path + "/libraries/bob@example.org.sqlite", "--json"] + trust,
                                       common: false).objects.count, 0)

        // The slow clients give up: their places come back, and Bob's pass is taken.
        for p in slow { p.terminate(); p.waitUntilExit() }
        var added = try upload("bob", Run.sample("passes/store-card.pkpass"))
        let again = Date().addingTimeInterval(15)
        while added.status != 200 && Date() < again {
            usleep(200_000)
            added = try upload("bob", Run.sample("passes/store-card.pkpass"))
        }
        XCTAssertEqual(added.status, 200, added.text)
        XCTAssertTrue(added.text.contains("added to your library"), added.text)
        XCTAssertEqual(server.exitStatus(within: 0.2), nil, "still serving")
    }

    func testUploadLimitsOutOfRangeAreAUsageError() throws {
        let sandbox = try Sandbox()
        for (flag, value, sentence) in [("--uploads-at-once", "0", "--uploads-at-once takes a count of 1 or more, not 0"),
                                        ("--upload-seconds", "0", "--upload-seconds takes 1 to 3600 seconds, not 0")] {
            let server = try Server(sandbox, ["--listen", "127.0.0.1:0", flag, value])
            XCTAssertEqual(server.exitStatus(within: 10), 64, server.text)
            XCTAssertTrue(server.text.contains(sentence), server.text)
        }
    }

    /// Issue 41 item 4: a refused upload's page gave the command line's advice ("Use
    /// --allow-untrusted to add it anyway."); it keeps the reason and speaks as the wallet.
    func testARefusedUploadSaysWhyInTheWalletsWordsWithoutAFlag() throws {
        let sandbox = try Sandbox()
        let server = try Server(sandbox, ["--listen", "127.0.0.1:0", "--library", sandbox.library], common: false, trust: false)
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        let token = try XCTUnwrap(WebServeTests.csrf(try WebServeTests.curl(server.base + "/add", jar: jar).text))
        let refused = try WebServeTests.curl(server.base + "/add", jar: jar, ["-F", "csrf=" + token, "-F", "file=@" + Run.sample("passes/store-card.pkpass")])
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertTrue(refused.text.contains("This wallet adds only passes from issuers it trusts."), refused.text)
        XCTAssertFalse(refused.text.contains("--"), refused.text)
    }
}
