import Foundation
import PostgresTestKit
import XCTest

/// `passconduit milter --library-map postgresql://…`: one PostgreSQL server (the tests' own)
/// holds every recipient's library, the recipient being the library user. A recipient the server
/// has a library for gets the offers; one it has none for gets headers only, and no library is
/// created for an address someone typed.
final class MilterPostgresTests: XCTestCase {
    var home: URL!
    var sandbox: Sandbox!
    var server: PostgresTestServer!
    var database: String!
    var milter: MilterProcess!

    override func setUpWithError() throws {
        home = FilterRun.directory("milter-postgres")
        sandbox = try Sandbox()
        server = try PostgresTestServer.shared
        database = try server.database()
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    func cli(_ command: String, user: String, _ arguments: [String] = []) throws -> Run {
        try sandbox.run(command, ["--library", server.location(database: database), "--user", user,
                                  "--trust", Run.sample("ca/trust")] + arguments, stdin: nil, common: false)
    }

    func count(_ sql: String) throws -> String {
        try server.psql(database, sql).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testOffersLandOnlyInTheLibraryTheServerHoldsForTheRecipient() throws {
        // alice@example.org has a library on the server (made by the CLI); bob@example.org has none.
        // (`offers` opens for writing, which makes the library; `list` only reads and makes none.)
        let made = try cli("offers", user: "alice@example.org", ["--json"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.objects.count, 0)
        milter = try MilterProcess(home: home, arguments: ["--library-map", server.location(database: database)])

        let body = home.appendingPathComponent("body.txt")
        try Data(try MilterProtocolTests.bodyOf("messages/two-passes.eml")).write(to: body)
        let script = home.appendingPathComponent("two-recipients.lua")
        try """
            conn = mt.connect("inet:\(milter.port)@127.0.0.1", 20, 0.1)
            if conn == nil then error("cannot connect") end
            if mt.negotiate(conn, nil, nil, nil) ~= nil then error("negotiate failed") end
            function fail(what) mt.echo("FAIL " .. what) error(what) end
            function check(r, what) if r ~= nil then fail(what .. ": " .. tostring(r)) end end
            function trim(s) return (string.gsub(s or "", "^%s+", "")) end
            check(mt.rcptto(conn, "<Alice@Example.ORG>"), "rcpt alice")
            check(mt.rcptto(conn, "<bob@example.org>"), "rcpt bob")
            \(try MilterProtocolTests.headerCalls("messages/two-passes.eml"))
            check(mt.eoh(conn), "eoh")
            check(mt.bodyfile(conn, body), "body")
            check(mt.eom(conn), "eom")
            if mt.getreply(conn) ~= SMFIR_CONTINUE then fail("final reply") end
            if trim(mt.getheader(conn, "X-Passconduit", 0)) ~= "2 passes (2 valid)" then fail("summary " .. tostring(mt.getheader(conn, "X-Passconduit", 0))) end
            if mt.eom_check(conn, MT_BODYCHANGE) then fail("the body was changed") end
            mt.echo("ok")
            mt.disconnect(conn)
            """.write(to: script, atomically: true, encoding: .utf8)
        let r = try MilterKit.run("/usr/bin/miltertest", ["-D", "body=\(body.path)", "-s", script.path])
        XCTAssertEqual(r.status, 0, r.output + milter.logLines.joined(separator: "\n"))
        XCTAssertTrue(r.output.contains("ok"), r.output)

        // Both offers are in alice's library on the server, none anywhere else.
        let offers = try cli("offers", user: "alice@example.org", ["--json"])
        XCTAssertEqual(offers.status, 0, offers.stderr)
        XCTAssertEqual(offers.objects.count, 2, offers.stdout + milter.logLines.joined(separator: "\n"))
        XCTAssertEqual(try count(#"SELECT count(*) FROM passconduit.offer WHERE "user" <> 'alice@example.org'"#), "0")
        // bob got headers only, and the milter made no library for him.
        XCTAssertEqual(try count("SELECT count(*) FROM passconduit.library_user WHERE name = 'bob@example.org'"), "0")
        XCTAssertEqual(try count("SELECT string_agg(name, ',') FROM passconduit.library_user"), "alice@example.org")
        XCTAssertEqual(milter.messageLines.count, 1, milter.logLines.joined(separator: "\n"))
        XCTAssertFalse(milter.logLines.joined().contains("error"), milter.logLines.joined(separator: "\n"))
        // Two recipients: the shared header says only the verdicts; each library's outcome is in the log.
        XCTAssertTrue(milter.messageLines[0].contains("(user alice@example.org)\" outcome=new/offered,new/offered"), milter.messageLines[0])
        XCTAssertTrue(milter.messageLines[0].contains("(user bob@example.org)\" outcome=no-library"), milter.messageLines[0])
    }

    func testAMapWithAFixedLibraryUserIsRefusedAtStart() throws {
        let r = try MilterKit.run(Binary.url.path, ["milter", "--listen", "inet:\(MilterKit.freePort())@127.0.0.1",
                                                    "--library-map", server.location(database: database, extra: "library_user=carol")],
                                  environment: FilterRun.environment(home, extra: [:]))
        XCTAssertNotEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("library_user"), r.output)
    }
}
