import Foundation
import PostgresTestKit
import XCTest

/// Issue 27 defect 7: a mailbox's library from creation to erasure, on both kinds of library map
/// (one SQLite file per mailbox, one PostgreSQL server), through the built binary: `library
/// create` makes a library the milter (as the daemon's own user) stages offers in, `list` names
/// it, `purge` declines only old offers, `drop` erases one mailbox and nothing of another.
final class LibraryLifeTests: XCTestCase {
    var home: URL!
    var milter: MilterProcess?

    override func setUpWithError() throws {
        home = FilterRun.directory("library-life")
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    override class func tearDown() {
        FilterRun.cleanUp()
        Unprivileged.cleanUp()
    }

    var trust: String { Run.sample("ca/trust") }

    /// `passconduit library …` without a terminal (setsid: no /dev/tty to ask on).
    func library(_ arguments: [String]) throws -> Run {
        try Sandbox().run("library", arguments, common: false)
    }

    func message(_ names: [String]) throws -> [UInt8] {
        FilterMail.message(passes: try names.map { (name: $0, bytes: try FilterMail.samplePass($0)) }, crlf: true)
    }

    func mode(_ path: String) -> (mode: mode_t, uid: uid_t, gid: gid_t)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (st.st_mode & 0o7777, st.st_uid, st.st_gid)
    }

    /// The milter as the daemon's user: as root the tests' binary runs as nobody (setpriv), so a
    /// library only root could write would lose the offer; otherwise as the tests' own user.
    func startMilter(_ arguments: [String]) throws -> MilterProcess {
        guard Unprivileged.dropsPrivileges else { return try MilterProcess(home: home, arguments: arguments) }
        let wrapper = home.appendingPathComponent("as-nobody")
        try "#!/bin/sh\nexec /usr/bin/setpriv --reuid=nobody --regid=nogroup --clear-groups \(try Unprivileged.binary()) \"$@\"\n"
            .write(to: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper.path, 0o755)
        for folder in ["state", "data", "config"] {
            let url = home.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            _ = try MilterKit.run("/bin/chown", ["-R", "nobody:nogroup", url.path])
        }
        chmod(home.path, 0o755)
        return try MilterProcess(home: home, arguments: arguments, executable: wrapper, trust: try Unprivileged.sampleTrust())
    }

    func offers(_ library: String, user: String? = nil) throws -> Int {
        let r = try Sandbox().run("offers", ["--library", library, "--trust", trust, "--json"] + (user.map { ["--user", $0] } ?? []), common: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.objects.count
    }

    // MARK: - One SQLite file per mailbox

    func testFileMapLibraryLife() throws {
        let template = home.path + "/libraries/%{local}@%{domain}/library.sqlite"
        let alice = home.path + "/libraries/alice@example.org/library.sqlite"
        let bob = home.path + "/libraries/bob@example.org/library.sqlite"
        let owner = Unprivileged.dropsPrivileges ? ["--owner", "nobody:nogroup"] : []

        // create: the file, its folders, lock, modes and owner the daemon's user needs.
        let made = try library(["create", "Alice@Example.org", "--library-map", template] + owner)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.stdout, "Created \(alice).\n")
        XCTAssertEqual(try library(["create", "bob@example.org", "--library-map", template] + owner).status, 0)
        let again = try library(["create", "alice@example.org", "--library-map", template] + owner)
        XCTAssertEqual(again.stdout, "Already there: \(alice).\n", again.stderr)
        for (path, expected) in [(alice, mode_t(0o660)), (alice + ".lock", 0o660), ((alice as NSString).deletingLastPathComponent, 0o2770),
                                 (home.path + "/libraries", 0o2770)] {
            let m = mode(path)
            XCTAssertEqual(m?.mode, expected, path)
            if Unprivileged.dropsPrivileges { XCTAssertEqual(m?.uid, getpwnam("nobody").pointee.pw_uid, path) }
        }
        let bad = try library(["create", "no-at-sign", "--library-map", template])
        XCTAssertEqual(bad.status, 64, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("is not a mailbox address"), bad.stderr)
        let relative = try library(["create", "alice@example.org", "--library-map", "libraries/%{local}@%{domain}.sqlite"])
        XCTAssertEqual(relative.status, 64, relative.stderr)
        XCTAssertTrue(relative.stderr.contains("give an absolute path"), relative.stderr)
        XCTAssertEqual(try library(["list"]).status, 64, "no map given and none configured")

        // list
        let listed = try library(["list", "--library-map", template])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, "alice@example.org\t\(alice)\nbob@example.org\t\(bob)\n")

        // The milter, as the daemon's user, stages offers in the libraries create made; carol has none.
        milter = try startMilter(["--library-map", template])
        let out = try GatewayMilter.send(try message(["event-ticket.pkpass", "coupon.pkpass"]),
                                         to: ["alice@example.org", "bob@example.org", "carol@example.org"], port: milter!.port, scratch: home)
        XCTAssertTrue(out.contains("reply=continue"), out)
        let line = milter!.messageLines.last ?? ""
        XCTAssertTrue(line.contains("alice@example.org/library.sqlite\" outcome=new/offered"), milter!.logLines.joined(separator: "\n"))
        XCTAssertFalse(line.contains("library-error"), line)
        XCTAssertEqual(try offers(alice), 2)
        XCTAssertEqual(try offers(bob), 2)
        milter?.stop()
        milter = nil

        // purge: only offers older than the age go (one of bob's is made 40 days old).
        try python(bob, "UPDATE offer SET createdAt = createdAt - 40*86400 WHERE serialNumber = (SELECT min(serialNumber) FROM offer)")
        let purged = try library(["purge", "--offers-older-than", "30d", "--library-map", template])
        XCTAssertEqual(purged.status, 0, purged.stderr)
        XCTAssertEqual(purged.stdout, "bob@example.org: declined 1 offer\nDeclined 1 offer older than 30d in 2 libraries.\n")
        XCTAssertEqual(try offers(bob), 1)
        XCTAssertEqual(try offers(alice), 2)
        XCTAssertEqual(try library(["purge", "--offers-older-than", "thirty", "--library-map", template]).status, 64)

        // drop: refused without a terminal and --yes; then alice's folder is gone, bob's library intact.
        let refused = try library(["drop", "alice@example.org", "--library-map", template])
        XCTAssertEqual(refused.status, 64, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--yes"), refused.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: alice))
        let dropped = try library(["drop", "alice@example.org", "--yes", "--library-map", template])
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertEqual(dropped.stdout, "Erased \(alice): 0 passes, 2 offers.\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: (alice as NSString).deletingLastPathComponent))
        XCTAssertEqual(try offers(bob), 1)
        XCTAssertEqual(try library(["list", "--library-map", template]).stdout, "bob@example.org\t\(bob)\n")
        let gone = try library(["drop", "alice@example.org", "--yes", "--library-map", template])
        XCTAssertEqual(gone.status, 66, gone.stderr)

        // A file that is not a pass library is never deleted.
        let foreign = home.path + "/libraries/eve@example.org/library.sqlite"
        try FileManager.default.createDirectory(atPath: (foreign as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: foreign))
        let kept = try library(["drop", "eve@example.org", "--yes", "--library-map", template])
        XCTAssertNotEqual(kept.status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: foreign), kept.stderr)
    }

    /// `drop` on a file map erases the mailbox's web sign-ins too, in serve's state file (`--state`),
    /// and nobody else's (the state is opened through LibraryRoot, as serve opens it).
    func testFileMapDropErasesThatMailboxsWebSignIns() throws {
        let template = home.path + "/%{local}@%{domain}.sqlite"
        let alice = home.path + "/alice@example.org.sqlite"
        let state = home.path + "/web-sessions.sqlite"
        for user in ["alice@example.org", "carol@example.net"] {
            XCTAssertEqual(try library(["create", user, "--library-map", template]).status, 0)
        }
        let sandbox = try Sandbox()
        let web = try WebServeTests.Server(sandbox, ["--library-map", template, "--state", state, "--trust", trust, "--listen", "127.0.0.1:0",
                                                     "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"], common: false)
        try web.started()
        for user in ["alice@example.org", "Alice@example.org", "carol@example.net"] {
            XCTAssertEqual(try WebServeTests.curl(web.base + "/", ["-H", "X-User: \(user)"]).status, 200, user + web.text)
        }
        web.process.terminate()
        web.process.waitUntilExit()
        func signIns(_ user: String) throws -> String {
            let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/python3"),
                                      arguments: ["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM web_session WHERE user = ?', (sys.argv[2],)).fetchone()[0])",
                                                  state, user],
                                      input: [], environment: ["PATH": "/usr/bin:/bin"])
            XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
            return String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Both spellings are one user, and a cookie-less request takes the session that user
        // already has (issue 37 item 10): one row, not one per request.
        XCTAssertEqual(try signIns("alice@example.org"), "1")
        XCTAssertEqual(try signIns("carol@example.net"), "1")

        let dropped = try library(["drop", "alice@example.org", "--yes", "--library-map", template, "--state", state])
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertEqual(dropped.stdout, "Erased \(alice): 0 passes, 0 offers, 1 web sign-in or token.\n")
        XCTAssertEqual(try signIns("alice@example.org"), "0", "an erasure takes the web wallet's sign-ins too")
        XCTAssertEqual(try signIns("carol@example.net"), "1")
        XCTAssertFalse(FileManager.default.fileExists(atPath: alice))
    }

    /// A mailbox's library asked on a terminal: "n" keeps it.
    func testDropAsksOnATerminal() throws {
        let template = home.path + "/%{local}@%{domain}.sqlite"
        XCTAssertEqual(try library(["create", "alice@example.org", "--library-map", template]).status, 0)
        let sandbox = try Sandbox()
        let no = try sandbox.runOnTerminal("library", ["drop", "alice@example.org", "--library-map", template], answers: ["n"], common: false)
        XCTAssertTrue(no.stdout.contains("Nothing was erased."), no.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path + "/alice@example.org.sqlite"))
        let yes = try sandbox.runOnTerminal("library", ["drop", "alice@example.org", "--library-map", template], answers: ["y"], common: false)
        XCTAssertTrue(yes.stdout.contains("Erased"), yes.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: home.path + "/alice@example.org.sqlite"))
        // The folder is shared by every mailbox here (no %{local} in its name): it stays.
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path))
    }

    func python(_ database: String, _ sql: String) throws {
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/python3"),
                                  arguments: ["-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()", database, sql],
                                  input: [], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
    }

    // MARK: - PostgreSQL

    func testServerMapLibraryLife() throws {
        let server = try PostgresTestServer.shared
        let database = try server.database()
        let map = server.location(database: database)

        XCTAssertEqual(try library(["list", "--library-map", map]).stdout, "", "an empty database holds no library")
        let made = try library(["create", "Alice@Example.org", "--library-map", map])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.hasPrefix("Created postgresql://postgres@/\(database)"), made.stdout)
        XCTAssertTrue(made.stdout.contains("(user alice@example.org)"), made.stdout)
        XCTAssertEqual(try library(["create", "carol@example.net", "--library-map", map]).status, 0)
        let owned = try library(["create", "dave@example.net", "--owner", "nobody", "--library-map", map])
        XCTAssertEqual(owned.status, 64, owned.stderr)
        XCTAssertTrue(owned.stderr.contains("--owner is for a file map"), owned.stderr)
        // carol holds a pass as well.
        let added = try Sandbox().run("add", ["--library", map, "--user", "carol@example.net", "--trust", trust, "--yes",
                                              Run.sample("passes/generic.pkpass")], common: false)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(try library(["list", "--library-map", map]).stdout,
                       "alice@example.org\t\(map)\ncarol@example.net\t\(map)\n")

        // The database's own roles decide who may write there: the daemon runs as the tests' user.
        milter = try MilterProcess(home: home, arguments: ["--library-map", map])
        let out = try GatewayMilter.send(try message(["event-ticket.pkpass", "coupon.pkpass"]),
                                         to: ["alice@example.org", "carol@example.net", "bob@example.org"], port: milter!.port, scratch: home)
        XCTAssertTrue(out.contains("reply=continue"), out)
        let line = milter!.messageLines.last ?? ""
        XCTAssertTrue(line.contains("(user alice@example.org)\" outcome=new/offered"), line)
        XCTAssertTrue(line.contains("(user bob@example.org)\" outcome=no-library"), line)
        milter?.stop()
        milter = nil
        XCTAssertEqual(try offers(map, user: "alice@example.org"), 2)

        // purge: one of alice's offers made 40 days old.
        try server.psql(database, #"UPDATE passconduit.offer SET created_at = created_at - 40*86400 WHERE "user" = 'alice@example.org' AND id = (SELECT min(id) FROM passconduit.offer WHERE "user" = 'alice@example.org')"#)
        let purged = try library(["purge", "--offers-older-than", "30d", "--library-map", map, "alice@example.org"])
        XCTAssertEqual(purged.status, 0, purged.stderr)
        XCTAssertEqual(purged.stdout, "alice@example.org: declined 1 offer\nDeclined 1 offer older than 30d in 1 library.\n")
        XCTAssertEqual(try offers(map, user: "alice@example.org"), 1)
        XCTAssertEqual(try offers(map, user: "carol@example.net"), 2)

        func rows(_ user: String) throws -> String {
            let tables = ["library_user", "pass_blob", "pass", "pass_version", "offer", "change_log", "change_field",
                          "web_service_state", "web_service_registration", "web_service_tag"]
            let sql = "SELECT " + tables.map { t in
                "(SELECT count(*) FROM passconduit.\(t) WHERE \(t == "library_user" ? "name" : #""user""#) = '\(user)')"
            }.joined(separator: " || ',' || ")
            return try server.psql(database, sql).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // The web wallet on the same map: alice and carol sign in (their sessions live in the database),
        // and alice accepts in the browser the offer the milter staged for her (issue 29, end to end).
        let sandbox = try Sandbox()
        let web = try WebServeTests.Server(sandbox, ["--library-map", map, "--trust", trust, "--listen", "127.0.0.1:0", "--auth", "header:X-User",
                                                     "--trusted-proxy", "127.0.0.1", "--trusted-proxy", "::1"], common: false)
        try web.started()
        for user in ["Alice@example.org", "carol@example.net"] {
            XCTAssertEqual(try WebServeTests.curl(web.base + "/", ["-H", "X-User: \(user)"]).status, 200, user + web.text)
        }
        let aliceJar = sandbox.dir.appendingPathComponent("alice-jar"), asAlice = ["-H", "X-User: alice@example.org"]
        let offerPage = try WebServeTests.curl(web.base + "/offers/2", jar: aliceJar, asAlice)   // offer 1 was purged
        XCTAssertEqual(offerPage.status, 200, offerPage.text)
        let accepted = try WebServeTests.curl(web.base + "/offers/2/accept", jar: aliceJar,
                                              asAlice + ["-d", "csrf=" + (WebServeTests.csrf(offerPage.text) ?? "")])
        XCTAssertTrue(accepted.text.contains("Added to your library."), accepted.text)
        XCTAssertEqual(try offers(map, user: "alice@example.org"), 0)
        web.process.terminate()
        web.process.waitUntilExit()
        func signIns(_ user: String) throws -> String {
            try server.psql(database, #"SELECT count(*) FROM passconduit_web.session WHERE "user" = '\#(user)'"#)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // Both spellings are one user, and a cookie-less request takes the session that user
        // already has (issue 37 item 10): one row, not one per request.
        XCTAssertEqual(try signIns("alice@example.org"), "1")

        let carolBefore = try rows("carol@example.net")
        XCTAssertEqual(try library(["drop", "alice@example.org", "--library-map", map]).status, 64)
        let dropped = try library(["drop", "alice@example.org", "--yes", "--library-map", map])
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        XCTAssertEqual(dropped.stdout, "Erased \(map) (user alice@example.org): 1 pass, 0 offers, 1 web sign-in or token.\n")
        XCTAssertEqual(try signIns("alice@example.org"), "0", "an erasure takes the web wallet's sign-ins too")
        XCTAssertEqual(try signIns("carol@example.net"), "1")
        XCTAssertEqual(try rows("alice@example.org"), "0,0,0,0,0,0,0,0,0,0")
        XCTAssertEqual(try rows("carol@example.net"), carolBefore)
        XCTAssertTrue(carolBefore.hasPrefix("1,"), carolBefore)
        XCTAssertEqual(try library(["list", "--library-map", map]).stdout, "carol@example.net\t\(map)\n")
        XCTAssertEqual(try library(["drop", "alice@example.org", "--yes", "--library-map", map]).status, 66)
    }
}
