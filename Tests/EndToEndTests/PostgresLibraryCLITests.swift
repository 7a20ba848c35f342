import Foundation
import PostgresTestKit
import XCTest

/// The built `passconduit` on a library kept by the tests' own PostgreSQL server: the same
/// commands as on a file, `--user` picking whose library, and a server that is down answered
/// with 75 (the CLI and the delivery filter) so mail is retried.
final class PostgresLibraryCLITests: XCTestCase {
    var sandbox: Sandbox!
    var server: PostgresTestServer!
    var database: String!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        server = try PostgresTestServer.shared
        database = try server.database()
    }

    func message(_ name: String) -> String { Run.sample("messages/" + name) }

    func run(_ command: String, _ arguments: [String], user: String = "alice", location: String? = nil, stdin: Data? = nil) throws -> Run {
        try sandbox.run(command, ["--library", location ?? server.location(database: database), "--user", user,
                                  "--trust", Run.sample("ca/trust")] + arguments, stdin: stdin, common: false)
    }

    func testAddListShowRemoveAndLogThroughTheCLIPerUser() throws {
        let add = try run("add", ["--yes", message("type.eml")])
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        let listed = try run("list", ["--json"]).objects
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(listed.first?["serialNumber"] as? String, "EVT-2026-0001")
        let type = try XCTUnwrap(listed.first?["passTypeIdentifier"] as? String)
        let sha256 = try XCTUnwrap(listed.first?["sha256"] as? String)
        let show = try run("show", ["--no-barcode", String(sha256.prefix(8))])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("EVT-2026-0001"), show.stdout)
        // Another user of the same database has a library of their own: none yet, which a
        // read-only command says (66, as for a file library that does not exist).
        let bob = try run("list", ["--json"], user: "bob")
        XCTAssertEqual(bob.status, 66, bob.stderr)
        XCTAssertTrue(bob.stderr.contains("no library for user bob"), bob.stderr)
        let again = try run("add", ["--yes", message("type.eml")])
        XCTAssertEqual(again.status, 0, again.stderr)
        let remove = try run("remove", ["--yes", "\(type)/EVT-2026-0001"])
        XCTAssertEqual(remove.status, 0, remove.stdout + remove.stderr)
        XCTAssertEqual(try run("list", ["--json"]).objects.count, 0)
        XCTAssertEqual(try run("log", ["--json"]).objects.map { $0["kind"] as? String }, ["add", "remove"])
        let gone = try run("show", ["\(type)/EVT-2026-0001"])
        XCTAssertEqual(gone.status, 66, gone.stderr)
        // What the CLI wrote is a sound library in the database (replayed log = rows).
        let rows = try server.psql(database, "SELECT count(*) FROM passconduit.change_log WHERE \"user\" = 'alice'")
        XCTAssertEqual(rows.trimmingCharacters(in: .whitespacesAndNewlines), "2")
    }

    /// Issue 42 item 3 on a server library: `offer` stages with the chat provenance, `offers`
    /// lists it, and accepting keeps it; another user's library has no such offer.
    func testOfferWithChatProvenanceOnAServerLibrary() throws {
        let staged = try run("offer", ["--json", "--from-network", "matrix", "--room", "!r:example.org", "--event-id", "$e",
                                       "--sender", "@alice:example.org", Run.sample("passes/coupon.pkpass")])
        XCTAssertEqual(staged.status, 0, staged.stdout + staged.stderr)
        XCTAssertEqual(staged.objects.map { $0["result"] as? String }, ["offered"])
        let source = try run("offers", ["--json"]).objects.first?["source"] as? [String: Any]
        XCTAssertEqual(source?["sender"] as? String, "@alice:example.org")
        XCTAssertEqual(source?["room"] as? String, "!r:example.org")
        let bob = try run("offers", ["--json"], user: "bob")
        XCTAssertTrue(bob.objects.isEmpty, bob.stdout)
        XCTAssertEqual(try run("add", ["--yes", "--offer", "1"]).status, 0)
        let listed = try run("list", ["--json"]).objects.first?["source"] as? [String: Any]
        XCTAssertEqual(listed?["network"] as? String, "matrix")
        XCTAssertEqual(listed?["eventId"] as? String, "$e")
    }

    func testAServerThatIsDownIsATemporaryFailureNamingItWithoutThePassword() throws {
        let location = "postgresql://postgres:hunter2-secret@/\(database!)?host=/nonexistent-pc-pg"
        let list = try run("list", [], location: location)
        XCTAssertEqual(list.status, 75, list.stderr)
        XCTAssertTrue(list.stderr.contains("/nonexistent-pc-pg"), list.stderr)
        XCTAssertFalse(list.stderr.contains("hunter2-secret"), list.stderr)
        let wrong = try run("list", [], location: server.location(database: database, role: "secret", password: "not-it"))
        XCTAssertEqual(wrong.status, 75, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("refused the login"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("not-it"), wrong.stderr)
    }

    func testTheFilterStagesOffersOnTheServerAndExits75WhileItIsDown() throws {
        let mail = try Data(contentsOf: URL(fileURLWithPath: message("type.eml")))
        let up = server.location(database: database, extra: "library_user=carol")
        let delivered = try sandbox.run("filter", ["--log", "none", "--library", up, "--trust", Run.sample("ca/trust")],
                                        stdin: mail, common: false)
        XCTAssertEqual(delivered.status, 0, delivered.stderr)
        XCTAssertFalse(delivered.stdout.isEmpty)
        XCTAssertEqual(try run("offers", ["--json"], user: "carol").objects.count, 1)
        let down = "postgresql://postgres@/\(database!)?host=/nonexistent-pc-pg&library_user=carol"
        let held = try sandbox.run("filter", ["--log", "none", "--library", down, "--trust", Run.sample("ca/trust"),
                                              "--on-library-error", "tempfail"], stdin: mail, common: false)
        XCTAssertEqual(held.status, 75, held.stderr)
        XCTAssertTrue(held.stdout.isEmpty, "nothing is written when the mail must wait")
    }

    func testLibraryCopyMovesAFileLibraryToTheServerAndBackIdempotently() throws {
        // A file library with a replaced pass (a kept version), a pending offer and its log.
        XCTAssertEqual(try sandbox.run("add", ["--yes", message("type.eml")]).status, 0)
        let update = try sandbox.run("add", ["--yes", message("update.eml")])
        XCTAssertEqual(update.status, 0, update.stderr)
        let mail = try Data(contentsOf: URL(fileURLWithPath: message("two-passes.eml")))
        XCTAssertEqual(try sandbox.run("filter", ["--log", "none"], stdin: mail).status, 0)
        let fileList = try sandbox.run("list", ["--json"]).stdout
        let fileLog = try sandbox.run("log", ["--json"]).stdout
        let fileOffers = try sandbox.run("offers", ["--json"]).stdout
        XCTAssertFalse(fileOffers.isEmpty)
        let server = self.server.location(database: database)
        let copy = try sandbox.run("library", ["copy", "--user", "dave", sandbox.library, server], common: false)
        XCTAssertEqual(copy.status, 0, copy.stdout + copy.stderr)
        XCTAssertTrue(copy.stdout.hasPrefix("Copied "), copy.stdout)
        XCTAssertEqual(try run("list", ["--json"], user: "dave").stdout, fileList)
        XCTAssertEqual(try run("log", ["--json"], user: "dave").stdout, fileLog)
        XCTAssertEqual(try run("offers", ["--json"], user: "dave").stdout, fileOffers)
        // Again: nothing to do, and it says so.
        let again = try sandbox.run("library", ["copy", "--user", "dave", sandbox.library, server], common: false)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasPrefix("Already copied"), again.stdout)
        // The log continues where the file's ended: the next number is new, never reused.
        let lastSequence = try XCTUnwrap(try run("log", ["--json"], user: "dave").objects.last?["sequence"] as? Int)
        let remove = try run("remove", ["--yes", String(try XCTUnwrap(try run("list", ["--json"], user: "dave").objects.first?["sha256"] as? String).prefix(10))], user: "dave")
        XCTAssertEqual(remove.status, 0, remove.stderr)
        XCTAssertEqual(try run("log", ["--json"], user: "dave").objects.last?["sequence"] as? Int, lastSequence + 1)
        // And back to a new file.
        let back = sandbox.dir.appendingPathComponent("back.sqlite").path
        let home = try sandbox.run("library", ["copy", "--user", "dave", server, back], common: false)
        XCTAssertEqual(home.status, 0, home.stdout + home.stderr)
        XCTAssertEqual(try sandbox.run("log", ["--json", "--library", back], common: false).stdout,
                       try run("log", ["--json"], user: "dave").stdout)
        // A target holding something else is refused and left as it was.
        let refused = try sandbox.run("library", ["copy", "--user", "dave", server, sandbox.library], common: false)
        XCTAssertEqual(refused.status, 74, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("different library"), refused.stderr)
        XCTAssertEqual(try sandbox.run("log", ["--json"]).stdout, fileLog)
    }
}
