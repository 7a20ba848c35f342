import Foundation
import PostgresTestKit
import XCTest

/// Issue 27, PostgreSQL isolation: one database role per purpose and row-level security, through
/// the built binary on the shared server. The operator's role owns the libraries; `library grant`
/// gives the milter's role the right to read and stage offers and the web wallet's role what a
/// person may do to their own library; each connection of those roles sees only the rows of the
/// mailbox it opened, even to a query that names another mailbox.
final class PostgresRoleTests: XCTestCase {
    func testEachPurposeHasItsOwnRoleAndSeesOnlyTheMailboxItOpened() throws {
        let server = try PostgresTestServer.shared
        let tag = UUID().uuidString.prefix(8).lowercased()
        let (admin, milterRole, webRole) = ("pc_admin_\(tag)", "pc_milter_\(tag)", "pc_web_\(tag)")
        let password = PostgresTestServer.password
        for role in [admin, milterRole, webRole] {
            try server.psql("postgres", "CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
        }
        let database = try server.database(owner: admin)
        let adminMap = server.location(database: database, role: admin, password: password)
        let milterMap = server.location(database: database, role: milterRole, password: password)
        let webMap = server.location(database: database, role: webRole, password: password)
        let trust = Run.sample("ca/trust")
        let sandbox = try Sandbox()
        func run(_ command: String, _ arguments: [String], stdin: [UInt8]? = nil) throws -> Run {
            try sandbox.run(command, arguments, stdin: stdin.map { Data($0) }, common: false)
        }
        func sql(_ text: String, as role: String, scope: String? = nil) throws -> String {
            try server.psql(database, text, role: role, password: password, scope: scope).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (alice, bob) = ("alice@example.org", "bob@example.org")

        // The operator's role makes both libraries and puts a pass in each.
        for (user, pass) in [(alice, "event-ticket.pkpass"), (bob, "generic.pkpass")] {
            let made = try run("library", ["create", user, "--library-map", adminMap])
            XCTAssertEqual(made.status, 0, made.stderr)
            let added = try run("add", ["--library", adminMap, "--user", user, "--trust", trust, "--yes", Run.sample("passes/" + pass)])
            XCTAssertEqual(added.status, 0, added.stderr)
        }

        // Before `grant`, the milter's role may not even read.
        let early = try run("list", ["--library", milterMap, "--user", alice])
        XCTAssertNotEqual(early.status, 0)
        XCTAssertTrue(early.stderr.contains("the role may not do this"), early.stderr)
        XCTAssertFalse(early.stderr.contains(password), early.stderr)

        // `grant` refuses what would defeat it, with a sentence.
        for (arguments, words) in [(["--web", "postgres"], "is a superuser or bypasses row-level security"),
                                   (["--milter", admin], "owns the library's tables"),
                                   (["--milter", "no_such_role_\(tag)"], "there is no role no_such_role_\(tag)")] {
            let refused = try run("library", ["grant"] + arguments + ["--library-map", adminMap])
            XCTAssertNotEqual(refused.status, 0, refused.stdout)
            XCTAssertTrue(refused.stderr.contains(words), refused.stderr)
        }
        let fileMap = try run("library", ["grant", "--milter", milterRole, "--library-map", sandbox.dir.path + "/%{local}/library.sqlite"])
        XCTAssertEqual(fileMap.status, 64, fileMap.stderr)
        XCTAssertTrue(fileMap.stderr.contains("is for a library map on a PostgreSQL server"), fileMap.stderr)
        for _ in 1...2 {   // idempotent: run again after an upgrade
            let granted = try run("library", ["grant", "--milter", milterRole, "--web", webRole, "--library-map", adminMap])
            XCTAssertEqual(granted.status, 0, granted.stderr)
            XCTAssertEqual(granted.stdout, "Granted the milter's rights to \(milterRole).\nGranted the web wallet's rights to \(webRole).\n")
        }
        // Every table of the library's schema was thought of: both roles may at least read each one.
        let tables = try server.psql(database, "SELECT tablename FROM pg_tables WHERE schemaname = 'passconduit' ORDER BY 1")
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(tables.count, 14, tables.description)
        for table in tables {
            for role in [milterRole, webRole] {
                XCTAssertEqual(try server.psql(database, "SELECT has_table_privilege('\(role)', 'passconduit.\(table)', 'SELECT')")
                    .trimmingCharacters(in: .whitespacesAndNewlines), "t", "\(role) on \(table)")
            }
        }

        // The web wallet's role: each mailbox sees its own pass, never the other's.
        var ids: [String: String] = [:]
        for user in [alice, bob] {
            let listed = try run("list", ["--library", webMap, "--user", user, "--json"])
            XCTAssertEqual(listed.status, 0, listed.stderr)
            XCTAssertEqual(listed.objects.count, 1, listed.stdout)
            ids[user] = listed.objects.first.map { "\($0["passTypeIdentifier"] ?? "")/\($0["serialNumber"] ?? "")" }
        }
        XCTAssertNotNil(ids[alice])
        XCTAssertNotEqual(ids[alice], ids[bob])

        // Raw SQL as that role: a query that forgets (or forges) its user still reads only the
        // mailbox the connection is scoped to, unscoped it reads nothing, and it cannot write
        // into another mailbox; the owner sees both.
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.pass", as: webRole, scope: bob), "1")
        XCTAssertEqual(try sql(#"SELECT count(*) FROM passconduit.pass WHERE "user" = 'alice@example.org'"#, as: webRole, scope: bob), "0")
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.change_log", as: webRole), "0")
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.library_user", as: webRole, scope: bob), "1")
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.pass", as: admin), "2")
        XCTAssertEqual(try sql(#"WITH changed AS (UPDATE passconduit.pass SET description = 'x' WHERE "user" = 'alice@example.org' RETURNING 1) SELECT count(*) FROM changed"#,
                               as: webRole, scope: bob), "0")
        XCTAssertThrowsError(try sql(#"INSERT INTO passconduit.change_log ("user", sequence, kind, pass_type_identifier, serial_number, at) VALUES ('alice@example.org', 999, 'add', 't', 's', 0)"#,
                                     as: webRole, scope: bob)) { error in
            XCTAssertTrue("\(error)".contains("row-level security"), "\(error)")
        }

        // The milter's role stages an offer in alice's library (the filter, as the pipe recipe runs it) …
        let mail = FilterMail.message(passes: [(name: "coupon.pkpass", bytes: try FilterMail.samplePass("coupon.pkpass"))])
        let filtered = try run("filter", ["--library", milterMap, "--user", alice, "--trust", trust], stdin: mail)
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        XCTAssertTrue(filtered.stdout.contains("X-Passconduit"), filtered.stdout)
        let offered = try run("offers", ["--library", webMap, "--user", alice, "--trust", trust, "--json"])
        XCTAssertEqual(offered.objects.count, 1, offered.stdout + offered.stderr)
        XCTAssertEqual(try run("offers", ["--library", webMap, "--user", bob, "--trust", trust, "--json"]).objects.count, 0)
        // … and nothing more: it may not remove a pass.
        let removed = try run("remove", ["--library", milterMap, "--user", alice, "--trust", trust, "--yes", ids[alice] ?? "?"])
        XCTAssertNotEqual(removed.status, 0, removed.stdout)
        XCTAssertTrue(removed.stderr.contains("the role may not do this"), removed.stderr)

        // The web wallet's role accepts alice's offer (what her Accept button does) …
        let offerID = offered.objects.first?["offer"].map { "\($0)" } ?? "1"
        let accepted = try run("add", ["--library", webMap, "--user", alice, "--trust", trust, "--yes", "--offer", offerID])
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        XCTAssertEqual(try run("list", ["--library", webMap, "--user", alice, "--json"]).objects.count, 2)
        XCTAssertEqual(try run("list", ["--library", webMap, "--user", bob, "--json"]).objects.count, 1)
        // A newer version taken under the web wallet's role records alice's notice (issue 43) in
        // her rows only: raw SQL scoped to bob reads none.
        let boarding = try UpdateKit.pass(serial: "NOTICE-1", webServiceURL: nil, signed: Date().addingTimeInterval(-7200), in: sandbox.dir)
        let moved = try UpdateKit.pass(serial: "NOTICE-1", webServiceURL: nil, gate: "B22", signed: Date().addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try run("add", ["--library", adminMap, "--user", alice, "--trust", trust, "--yes", boarding.path]).status, 0)
        let replaced = try run("add", ["--library", webMap, "--user", alice, "--trust", trust, "--yes", moved.path])
        XCTAssertEqual(replaced.status, 0, replaced.stderr)
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.notice", as: webRole, scope: alice), "1")
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.notice", as: webRole, scope: bob), "0")
        // The web wallet itself under that role: bob, signed in, sees his pass and nothing of alice's.
        // (With notices on, so its Settings page offers each owner their notice settings.)
        let folder = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[notices]\nenabled = true\n".write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let web = try WebServeTests.Server(sandbox, ["--library-map", webMap, "--trust", trust, "--listen", "127.0.0.1:0",
                                                     "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"],
                                           common: false)
        try web.started()
        let page = try WebServeTests.curl(web.base + "/", ["-H", "X-User: \(bob)"])
        XCTAssertEqual(page.status, 200, page.text + web.text)
        let bobsSerial = String(ids[bob]?.split(separator: "/").last ?? "?")
        let alicesSerial = String(ids[alice]?.split(separator: "/").last ?? "?")
        XCTAssertEqual(try sql(#"SELECT count(*) FROM passconduit_web.session WHERE "user" = 'bob@example.org'"#, as: admin), "1")
        XCTAssertTrue(page.text.contains(try sql("SELECT organization_name FROM passconduit.pass WHERE serial_number = '\(bobsSerial)'", as: admin)), page.text)
        XCTAssertFalse(page.text.contains(alicesSerial), page.text)
        XCTAssertFalse(page.text.contains(try sql("SELECT organization_name FROM passconduit.pass WHERE serial_number = '\(alicesSerial)'", as: admin)), page.text)
        XCTAssertFalse(page.text.contains("What changed") || page.text.contains("Gate changed"), page.text)
        // Alice's page shows her notice, and showing it claims it (the web role writes notice_sent).
        let alicesPage = try WebServeTests.curl(web.base + "/", ["-H", "X-User: \(alice)"])
        XCTAssertTrue(alicesPage.text.contains("What changed") && alicesPage.text.contains("Gate changed to B22."), alicesPage.text + web.text)
        XCTAssertEqual(try sql("SELECT channel FROM passconduit.notice_sent", as: admin), "web")
        // Her notice settings (schema v7), saved by the web role on her own library_user row only.
        let jar = sandbox.dir.appendingPathComponent("alice-settings-jar")
        let settings = try WebServeTests.curl(web.base + "/settings", jar: jar, ["-H", "X-User: \(alice)"])
        let token = try XCTUnwrap(WebServeTests.csrf(settings.text), settings.text)
        let saved = try WebServeTests.curl(web.base + "/settings/notices", jar: jar,
                                           ["-H", "X-User: \(alice)", "-d", "csrf=\(token)&boarding-pass=45"])
        XCTAssertTrue(saved.text.contains("Notice settings saved: notices are off"), saved.text + web.text)
        XCTAssertEqual(try sql("SELECT name || ',' || notices_enabled::text || ',' || notice_boarding_pass_minutes FROM passconduit.library_user WHERE notices_enabled IS NOT NULL",
                               as: admin), "alice@example.org,false,45")
        // One pool serves both people (issue 39 item 4): its connections go from one mailbox to
        // the other, each lease scoped anew. Under this role row-level security hides every row
        // of a connection scoped to the other mailbox, so a lease left on the wrong scope would
        // show an empty wallet here.
        let bobsName = try sql("SELECT organization_name FROM passconduit.pass WHERE serial_number = '\(bobsSerial)'", as: admin)
        let alicesNames = try sql(#"SELECT organization_name FROM passconduit.pass WHERE "user" = 'alice@example.org'"#, as: admin)
            .split(separator: "\n").map(String.init)
        for round in 0..<3 {
            for (user, own, other) in [(alice, alicesNames, [bobsName]), (bob, [bobsName], alicesNames)] {
                let seen = try WebServeTests.curl(web.base + "/", ["-H", "X-User: \(user)"])
                XCTAssertEqual(seen.status, 200, "round \(round), \(user): " + seen.text)
                for name in own { XCTAssertTrue(seen.text.contains(name), "round \(round), \(user) misses \(name): " + seen.text) }
                for name in other where !own.contains(name) {
                    XCTAssertFalse(seen.text.contains(name), "round \(round), \(user) sees \(name)")
                }
            }
        }
        web.process.terminate()
        web.process.waitUntilExit()

        // … but making or erasing a library stays the operator's.
        let dropped = try run("library", ["drop", bob, "--yes", "--library-map", webMap])
        XCTAssertNotEqual(dropped.status, 0, dropped.stdout)
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.pass", as: admin), "4")
        let created = try run("library", ["create", "carol@example.org", "--library-map", webMap])
        XCTAssertNotEqual(created.status, 0, created.stdout)
        XCTAssertEqual(try sql("SELECT count(*) FROM passconduit.library_user", as: admin), "2")
    }
}
