import Foundation
import PassStore
import PassStoreSQLite
import PostgresTestKit
import XCTest

/// `passconduit update` against django-walletpass 5.0.1, a PassKit web-service server nobody
/// here wrote (shared/research/walletpass-peer.md), started once for the class on 127.0.0.1 and
/// serving passes signed by the sample CA whose webServiceURL points at it.
final class UpdatePeerTests: XCTestCase {
    nonisolated(unsafe) static var peer: UpdateKit.Server?
    nonisolated(unsafe) static var startError: (any Error)?
    static let type = "pass.org.passconduit.boarding"

    override class func setUp() {
        super.setUp()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-walletpass-\(UUID().uuidString.prefix(8))")
        do { peer = try UpdateKit.startWalletpassPeer(dir) } catch { startError = error }
    }

    override class func tearDown() {
        peer?.stop()
        if let dir = peer?.dir { try? FileManager.default.removeItem(at: dir) }
        super.tearDown()
    }

    var peer: UpdateKit.Server {
        get throws {
            if let e = Self.startError { throw e }
            guard let p = Self.peer else { throw NSError(domain: "UpdatePeerTests", code: 1) }
            return p
        }
    }

    var serviceURL: String { get throws { "http://127.0.0.1:\(try peer.port)/api/passes/" } }
    var control: String { get throws { "http://127.0.0.1:\(try peer.port)/control" } }

    /// Stores `file` at the peer as the current version of type/serial.
    @discardableResult
    func serve(_ file: URL, serial: String, token: String = "token-0123456789abcdef", type: String = type) throws -> String {
        let answer = try UpdateKit.curl(["-X", "POST", "--data-binary", "@" + file.path,
                                         "\(try control)/store?type=\(type)&serial=\(serial)&token=\(token)"])
        return (UpdateKit.json(answer) as? [String: String])?["updatedAt"] ?? ""
    }

    func unique(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    func sha256(_ url: URL) throws -> String {
        String(decoding: try UpdateKit.run("/usr/bin/sha256sum", [url.path]), as: UTF8.self).split(separator: " ")[0].lowercased()
    }

    func exportSHA(_ sandbox: Sandbox, _ id: String) throws -> String {
        let out = sandbox.dir.appendingPathComponent("export-\(UUID().uuidString.prefix(6)).pkpass")
        let r = try sandbox.run("export", [id, "--output", out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try sha256(out)
    }

    let now = Date()

    // MARK: -

    func testUnchangedThen304ThenNewerVersionTakenLoggedAndShown() throws {
        let sandbox = try Sandbox()
        let serial = unique("GATE")
        let id = "\(Self.type)/\(serial)"
        let v1 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        try serve(v1, serial: serial)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)

        // First check: no validators yet, the peer sends the same bytes: unchanged.
        var r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "unchanged", r.stdout)
        // Second: If-Modified-Since / If-None-Match from the first answer: 304.
        r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.outcome?["outcome"] as? String, "unchanged", r.stdout)
        XCTAssertEqual(r.outcome?["http"] as? Int, 304, r.stdout)

        // The issuer moves the gate: the newer version is taken.
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try serve(v2, serial: serial)
        r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try XCTUnwrap(r.outcome, r.stdout)
        XCTAssertEqual(o["outcome"] as? String, "updated", r.stdout)
        XCTAssertEqual(o["http"] as? Int, 200)
        XCTAssertTrue(o["error"] is NSNull)
        let changes = try XCTUnwrap(o["changes"] as? [[String: Any]])
        XCTAssertEqual(changes.count, 1, r.stdout)
        XCTAssertEqual(changes.first?["key"] as? String, "gate")
        XCTAssertEqual(changes.first?["old"] as? String, "A26")
        XCTAssertEqual(changes.first?["new"] as? String, "B22")
        XCTAssertEqual(changes.first?["message"] as? String, "Gate changed to B22.")
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(v2))

        // Text output, the change log and show say it.
        let log = try sandbox.run("log")
        XCTAssertTrue(log.stdout.contains("replace") && log.stdout.contains("Gate changed to B22."), log.stdout)
        let logJSON = try sandbox.run("log", ["--json"]).objects.last
        XCTAssertEqual((logJSON?["changes"] as? [[String: Any]])?.first?["message"] as? String, "Gate changed to B22.")
        let show = try sandbox.run("show", [id])
        XCTAssertTrue(show.stdout.contains("Updates: last checked") && show.stdout.contains("updated (HTTP 200)"), show.stdout)
        // The old version is kept for revert, and the library checks clean.
        let library = try PassLibrary(path: sandbox.library)
        XCTAssertEqual(try library.pass(typeIdentifier: Self.type, serial: serial)?.previousVersions, 1)
        XCTAssertEqual(try library.check(), [])
        // And the token never shows.
        XCTAssertFalse((r.stdout + r.stderr + log.stdout + show.stdout).contains("token-0123456789abcdef"))

        // Text mode: one readable line.
        let v3 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, gate: "C7", signed: now.addingTimeInterval(-1800), in: sandbox.dir)
        try serve(v3, serial: serial)
        let text = try sandbox.run("update", [id])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.stdout.split(separator: "\n").count, 1, text.stdout)
        XCTAssertTrue(text.stdout.contains("\(id): updated — Gate changed to C7."), text.stdout)
    }

    /// The web wallet's "Check for update" runs this same check for the one pass: the newer
    /// version is taken and the page says what changed; a form without the session's token
    /// changes nothing; a pass without a web service has no button.
    func testCheckForUpdateOnThePassPageTakesTheNewerVersion() throws {
        let sandbox = try Sandbox()
        let serial = unique("WEB")
        let id = "\(Self.type)/\(serial)"
        let v1 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        try serve(v1, serial: serial)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path, Run.sample("passes/store-card.pkpass")]).status, 0)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try serve(v2, serial: serial)

        // The peer is on loopback, which serve contacts only when the operator names it.
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0", "--update-allow-host", "127.0.0.1"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        let hash = try sha256(v1)
        // The pass's page lives at its own address (issue 41 item 6), which its form posts to.
        let parts = id.split(separator: "/", maxSplits: 1).map(String.init)
        let address = try WebServeTests.address(parts[0], parts[1])
        let page = try WebServeTests.passPage(server.base, hash, jar: jar)
        XCTAssertTrue(page.text.contains("action=\"/passes/\(address)/update\""), page.text)
        let csrf = try XCTUnwrap(WebServeTests.csrf(page.text))
        XCTAssertEqual(try WebServeTests.curl(server.base + "/passes/\(hash)/update", jar: jar, ["-d", "x=1"]).status, 403)
        XCTAssertEqual(try WebServeTests.curl(server.base + "/passes/\(hash)/update", jar: jar).status, 404, "GET changes nothing")
        XCTAssertEqual(try exportSHA(sandbox, id), hash)

        let checked = try WebServeTests.curl(server.base + "/passes/\(hash)/update", jar: jar, ["-d", "csrf=\(csrf)"])
        XCTAssertEqual(checked.status, 200, checked.text)
        // In the wallet's words (issue 41 item 4): what happened, not update's log line.
        XCTAssertTrue(checked.text.contains("Updated by its issuer: Gate changed to B22."), checked.text)
        XCTAssertFalse(checked.text.contains(id), checked.text)
        let newHash = try sha256(v2)
        XCTAssertEqual(try exportSHA(sandbox, id), newHash)
        XCTAssertTrue(checked.text.contains("href=\"/passes/\(address)\""), checked.text)
        // The page's address before the update leads to the pass as it is now (issue 41 item 6; it
        // answered 404); an address that was never a version of a pass of this library still does.
        let before = try WebServeTests.curl(server.base + "/passes/\(hash)", jar: jar)
        XCTAssertEqual(before.status, 303, before.text)
        XCTAssertEqual(before.header("Location"), "/passes/\(address)")
        XCTAssertEqual(try WebServeTests.curl(server.base + "/passes/" + String(repeating: "ab", count: 32), jar: jar).status, 404)
        let again = try WebServeTests.curl(server.base + "/passes/\(newHash)/update", jar: jar, ["-d", "csrf=\(csrf)"])
        XCTAssertTrue(again.text.contains("This pass is up to date: its issuer has no newer version."), again.text)

        let card = try XCTUnwrap(try sandbox.run("list", ["--json"]).objects.first { ($0["kind"] as? String) == "storeCard" }?["sha256"] as? String)
        let cardPage = try WebServeTests.passPage(server.base, card, jar: jar)
        XCTAssertEqual(cardPage.status, 200)
        XCTAssertFalse(cardPage.text.contains("Check for update"), "a pass without a web service has no button")
        XCTAssertFalse(server.text.contains("token-0123456789abcdef"), server.text)
        XCTAssertTrue(server.text.contains("POST /passes/{hash}/update 200"), server.text)
    }

    func testWrongTokenIsRefusedByTheIssuerAndNothingChanges() throws {
        let sandbox = try Sandbox()
        let serial = unique("TOKEN")
        let id = "\(Self.type)/\(serial)"
        let mine = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, token: "my-token-that-is-wrong-1234", signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let theirs = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, token: "the-real-token-1234567890", gate: "B22",
                                        signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try serve(theirs, serial: serial, token: "the-real-token-1234567890")
        XCTAssertEqual(try sandbox.run("add", ["--yes", mine.path]).status, 0)
        let r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "failed", r.stdout)
        XCTAssertEqual(r.outcome?["http"] as? Int, 401)
        XCTAssertEqual((r.outcome?["error"] as? [String: Any])?["code"] as? String, "token-refused")
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(mine))
        XCTAssertFalse(r.stdout.contains("my-token-that-is-wrong") || r.stderr.contains("my-token-that-is-wrong"))
        let text = try sandbox.run("update", [id])
        XCTAssertTrue(text.stdout.contains("The issuer refused this pass's token."), text.stdout)
    }

    func testDowngradeAndAnotherPassAtThisURLAreRefused() throws {
        let sandbox = try Sandbox()
        let serial = unique("DOWN"), other = unique("OTHER")
        let id = "\(Self.type)/\(serial)"
        let mine = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes", mine.path]).status, 0)

        // An older version (signed before mine).
        let older = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, gate: "Z1", signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        try serve(older, serial: serial)
        var r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 65, r.stdout + r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "refused", r.stdout)
        XCTAssertEqual((r.outcome?["error"] as? [String: Any])?["code"] as? String, "older-version")
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(mine))

        // Another pass served at this pass's URL.
        let stranger = try UpdateKit.pass(serial: other, webServiceURL: try serviceURL, gate: "Q9", signed: now.addingTimeInterval(-60), in: sandbox.dir)
        try serve(stranger, serial: serial)
        r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 65, r.stdout + r.stderr)
        XCTAssertEqual((r.outcome?["error"] as? [String: Any])?["code"] as? String, "different-pass", r.stdout)
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(mine))
        let text = try sandbox.run("update", [id])
        XCTAssertEqual(text.stdout.split(separator: "\n").count, 1, text.stdout)
        XCTAssertTrue(text.stdout.contains("refused — The issuer's server sent a different pass"), text.stdout)
        let log = try sandbox.run("log")
        XCTAssertFalse(log.stdout.contains("replace"), log.stdout)
    }

    func testRegistrationListsSameSecondChangesAndUnregistration() throws {
        let sandbox = try Sandbox()
        let a = unique("REG-A"), b = unique("REG-B")
        let type = "pass.org.passconduit.boarding"
        for serial in [a, b] {
            let v1 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
            try serve(v1, serial: serial)
            XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)
        }
        // Register: one POST per pass, a random device id, kept.
        var r = try sandbox.run("update", ["--json", "--register"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.objects.compactMap { $0["registered"] as? Bool }, [true, true], r.stdout)
        var registrations = UpdateKit.json(try UpdateKit.curl(["\(try control)/registrations"])) as? [[String: Any]] ?? []
        let mine = registrations.filter { [a, b].contains($0["serial"] as? String ?? "") }
        XCTAssertEqual(mine.count, 2, "\(registrations)")
        let device = try XCTUnwrap(mine.first?["device"] as? String)
        XCTAssertEqual(device.count, 32)
        XCTAssertEqual(Set(mine.compactMap { $0["device"] as? String }), [device])

        // Both passes change within the same second; the peer's list names only the newest
        // updated_at, so the per-pass requests must find the other one.
        let a2 = try UpdateKit.pass(serial: a, webServiceURL: try serviceURL, gate: "B1", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        let b2 = try UpdateKit.pass(serial: b, webServiceURL: try serviceURL, gate: "B2", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        var stamps: [String] = []
        for attempt in 0..<5 {
            stamps = [try serve(a2, serial: a), try serve(b2, serial: b)]
            if stamps[0].prefix(19) == stamps[1].prefix(19) { break }
            XCTAssertLessThan(attempt, 4, "could not store two versions within one second: \(stamps)")
        }
        r = try sandbox.run("update", ["--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.objects.map { $0["outcome"] as? String }, ["updated", "updated"], r.stdout)
        let messages = r.objects.flatMap { ($0["changes"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String } }
        XCTAssertEqual(Set(messages), ["Gate changed to B1.", "Gate changed to B2."])

        // The list was asked for with the device and, the second time, with the server's own
        // tag sent back exactly (its "+" as %2B).
        let requests = UpdateKit.json(try UpdateKit.curl(["\(try control)/requests"])) as? [[String: Any]] ?? []
        let lists = requests.compactMap { $0["path"] as? String }.filter { $0.contains("/v1/devices/\(device)/registrations/\(type)") && !$0.contains(a) && !$0.contains(b) }
        XCTAssertGreaterThanOrEqual(lists.count, 1, "\(requests)")
        XCTAssertFalse(lists[0].contains("passesUpdatedSince"), lists[0])
        r = try sandbox.run("update", ["--json"])
        XCTAssertEqual(r.objects.map { $0["outcome"] as? String }, ["unchanged", "unchanged"], r.stdout)
        let later = (UpdateKit.json(try UpdateKit.curl(["\(try control)/requests"])) as? [[String: Any]] ?? [])
            .compactMap { $0["path"] as? String }.filter { $0.contains("/v1/devices/\(device)/registrations/\(type)?") }
        XCTAssertTrue(later.last?.contains("passesUpdatedSince=") == true && later.last?.contains("%2B00%3A00") == true, "\(later)")
        XCTAssertTrue(requests.allSatisfy { ($0["path"] as? String)?.contains("//v1") == false })

        // The user removes a pass: the next run unregisters it, and only it.
        XCTAssertEqual(try sandbox.run("remove", ["--yes", "\(type)/\(a)"]).status, 0)
        r = try sandbox.run("update", ["--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let unregistered = r.objects.filter { $0["unregistered"] as? Bool == true }
        XCTAssertEqual(unregistered.map { $0["id"] as? String }, ["\(type)/\(a)"], r.stdout)
        registrations = UpdateKit.json(try UpdateKit.curl(["\(try control)/registrations"])) as? [[String: Any]] ?? []
        XCTAssertEqual(registrations.filter { [a, b].contains($0["serial"] as? String ?? "") }.compactMap { $0["serial"] as? String }, [b])
        // Told once: the next run has nothing to unregister.
        r = try sandbox.run("update", ["--json"])
        XCTAssertTrue(r.objects.allSatisfy { $0["unregistered"] == nil }, r.stdout)
    }

    /// A gateway's mailbox libraries (issue 43 item 1): `update --library-map` checks every library
    /// of the milter's map in one run; the issuer's gate change reaches alice's library only, each
    /// line names its mailbox, a library that cannot be used is named and the others are still
    /// checked (exit 75), and --metrics-file holds the run's figures.
    func testLibraryMapUpdatesEveryMailboxLibraryAndNamesEach() throws {
        let sandbox = try Sandbox()
        let template = sandbox.dir.appendingPathComponent("mail").path + "/%{local}@%{domain}/library.sqlite"
        let serials = ["alice": unique("MAP-A"), "bob": unique("MAP-B")]
        for user in ["alice", "bob", "carol"] {
            let made = try sandbox.run("library", ["create", "\(user)@example.org", "--library-map", template], common: false)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        func library(_ user: String) -> String { sandbox.dir.appendingPathComponent("mail/\(user)@example.org/library.sqlite").path }
        for (user, serial) in serials {
            let v1 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
            try serve(v1, serial: serial)
            let added = try sandbox.run("add", ["--yes", "--library", library(user), "--trust", Run.sample("ca/trust"), v1.path], common: false)
            XCTAssertEqual(added.status, 0, added.stderr)
        }
        // The issuer moves alice's gate.
        let v2 = try UpdateKit.pass(serial: serials["alice"]!, webServiceURL: try serviceURL, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try serve(v2, serial: serials["alice"]!)

        // The passes of a gateway come from strangers' mail (issue 37 item 2): the issuer here is
        // plain http on loopback, contacted only when the operator names it.
        let refused = try sandbox.run("update", ["--library-map", template, "--trust", Run.sample("ca/trust")], common: false)
        XCTAssertTrue(refused.stdout.contains("is not secure (http://), so the server does not contact it"), refused.stdout + refused.stderr)
        XCTAssertFalse(try sandbox.run("log", ["--library", library("alice")], common: false).stdout.contains("Gate changed"))

        let metrics = sandbox.dir.appendingPathComponent("update.prom").path
        let r = try sandbox.run("update", ["--json", "--library-map", template, "--allow-host", "127.0.0.1", "--trust", Run.sample("ca/trust"), "--metrics-file", metrics],
                                common: false)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let byMailbox = Dictionary(grouping: r.objects) { $0["mailbox"] as? String ?? "" }
        XCTAssertEqual(byMailbox["alice@example.org"]?.map { $0["outcome"] as? String }, ["updated"], r.stdout)
        XCTAssertEqual(((byMailbox["alice@example.org"]?.first?["changes"] as? [[String: Any]])?.first)?["message"] as? String, "Gate changed to B22.")
        XCTAssertEqual(byMailbox["bob@example.org"]?.map { $0["outcome"] as? String }, ["unchanged"], r.stdout)
        XCTAssertNil(byMailbox["carol@example.org"], "carol's library holds no pass to check")
        let log = try sandbox.run("log", ["--library", library("alice")], common: false)
        XCTAssertTrue(log.stdout.contains("Gate changed to B22."), log.stdout)
        XCTAssertFalse(try sandbox.run("log", ["--library", library("bob")], common: false).stdout.contains("Gate changed"))
        let figures = try String(contentsOfFile: metrics, encoding: .utf8)
        XCTAssertTrue(figures.contains("passconduit_update_libraries 3\n"), figures)
        XCTAssertTrue(figures.contains("passconduit_update_passes{outcome=\"updated\"} 1\n"), figures)
        XCTAssertTrue(figures.contains("passconduit_update_passes_checked 2\n"), figures)
        XCTAssertFalse((r.stdout + r.stderr + figures).contains("token-0123456789abcdef"))

        // Text: each line starts with its mailbox, then the run's sum. A library that cannot be
        // used (not a pass library any more) is named; the others are still checked; exit 75.
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: library("bob")))
        let text = try sandbox.run("update", ["--library-map", template, "--allow-host", "127.0.0.1", "--trust", Run.sample("ca/trust")], common: false)
        XCTAssertEqual(text.status, 75, text.stdout + text.stderr)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("alice@example.org: pass.org.passconduit.boarding/\(serials["alice"]!): no newer version") }, text.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("bob@example.org: library not checked — ") }, text.stdout)
        XCTAssertTrue(lines.last?.hasPrefix("3 libraries, 1 pass checked: 0 updated, 1 unchanged, 0 refused, 0 failed; 1 library not checked") ?? false, text.stdout)

        // Names a pass, or a map and --library: a usage error.
        XCTAssertEqual(try sandbox.run("update", ["--library-map", template, "x/y"], common: false).status, 64)
    }

    /// The same on a PostgreSQL library map (both backends are first-class): every user of the
    /// server's library is checked with their own registration and log; alice's gate change
    /// reaches alice only.
    func testLibraryMapOnAPostgreSQLServerUpdatesEachUsersLibrary() throws {
        let sandbox = try Sandbox()
        let server = try PostgresTestServer.shared
        let location = server.location(database: try server.database())
        let trust = ["--trust", Run.sample("ca/trust")]
        let serials = ["alice": unique("PGMAP-A"), "bob": unique("PGMAP-B")]
        for (user, serial) in serials {
            let v1 = try UpdateKit.pass(serial: serial, webServiceURL: try serviceURL, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
            try serve(v1, serial: serial)
            let added = try sandbox.run("add", ["--yes", "--library", location, "--user", "\(user)@example.org", v1.path] + trust, common: false)
            XCTAssertEqual(added.status, 0, added.stderr)
        }
        let v2 = try UpdateKit.pass(serial: serials["alice"]!, webServiceURL: try serviceURL, gate: "C7", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try serve(v2, serial: serials["alice"]!)

        let r = try sandbox.run("update", ["--json", "--library-map", location, "--allow-host", "127.0.0.1"] + trust, common: false)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let byMailbox = Dictionary(grouping: r.objects) { $0["mailbox"] as? String ?? "" }
        XCTAssertEqual(byMailbox["alice@example.org"]?.map { $0["outcome"] as? String }, ["updated"], r.stdout)
        XCTAssertEqual(((byMailbox["alice@example.org"]?.first?["changes"] as? [[String: Any]])?.first)?["message"] as? String, "Gate changed to C7.")
        XCTAssertEqual(byMailbox["bob@example.org"]?.map { $0["outcome"] as? String }, ["unchanged"], r.stdout)
        func log(_ user: String) throws -> String {
            try sandbox.run("log", ["--library", location, "--user", "\(user)@example.org"] + trust, common: false).stdout
        }
        XCTAssertTrue(try log("alice").contains("Gate changed to C7."))
        XCTAssertFalse(try log("bob").contains("Gate changed"))
        XCTAssertFalse((r.stdout + r.stderr).contains("token-0123456789abcdef"))
    }
}
