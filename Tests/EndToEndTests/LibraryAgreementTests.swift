import Foundation
import PostgresTestKit
import XCTest

/// Issue 26 items 3 and 4: what the library answers is the same on a file (SQLite) and on the
/// tests' own PostgreSQL server, through the built binary: scan compares with the library
/// `--library` names, read-only commands create nothing and say when there is no library,
/// `library copy` never prints a password nor creates a user on its source, `--user` is never
/// silently ignored, and eight adds of one pass at once add it once.
final class LibraryAgreementTests: XCTestCase {
    var sandbox: Sandbox!
    var server: PostgresTestServer!
    var database: String!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        server = try PostgresTestServer.shared
        database = try server.database()
    }

    static let event = "pass.org.passconduit.event/EVT-2026-0001"

    /// The two backends as `--library` (and `--user`) arguments: a file, and user `alice`'s
    /// library in this test's database.
    var backends: [(name: String, arguments: [String])] {
        [("sqlite", ["--library", sandbox.library]),
         ("postgresql", ["--library", server.location(database: database), "--user", "alice"])]
    }

    func run(_ command: String, _ backend: [String], _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        try sandbox.run(command, backend + ["--trust", Run.sample("ca/trust")] + arguments, common: false, environment: environment)
    }

    func libraryUsers() throws -> [String] {
        let rows = try server.psql(database, "SELECT name FROM passconduit.library_user ORDER BY name")
        return rows.split(separator: "\n").map(String.init)
    }

    // MARK: - scan

    /// `scan --library postgresql://…` compared with the file path that URL is not: every stored
    /// pass read "new". Now it reads the server's library, as a file library is read.
    func testScanComparesWithTheLibraryOnEitherBackend() throws {
        for (name, backend) in backends {
            XCTAssertEqual(try run("add", backend, ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0, name)
            let scan = try run("scan", backend, ["--json", Run.sample("passes/event-ticket.pkpass"), Run.sample("passes/boarding-pass.pkpass")])
            XCTAssertEqual(scan.status, 0, "\(name): \(scan.stderr)")
            XCTAssertEqual(scan.objects.map { $0["library"] as? String }, ["contained", "new"], "\(name): \(scan.stdout)")
            XCTAssertEqual(scan.stderr, "", name)
        }
        // A user with no library on the server: every pass is new, and no library is made for them.
        let other = ["--library", server.location(database: database), "--user", "erin"]
        let scan = try run("scan", other, ["--json", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(scan.objects.first?["library"] as? String, "new", scan.stdout + scan.stderr)
        XCTAssertEqual(try libraryUsers(), ["alice"], "scan made a library for erin")
    }

    /// A server that is down or refuses the login: the scan still reports the passes, and says
    /// why their library state is not shown (without the password).
    func testScanSaysWhenTheServerIsDownOrRefusesTheLogin() throws {
        let down = ["--library", "postgresql://postgres:hunter2-secret@/\(database!)?host=/nonexistent-pc-pg", "--user", "alice"]
        let scan = try run("scan", down, ["--json", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        XCTAssertEqual(scan.objects.count, 1)
        XCTAssertTrue(scan.stderr.contains("cannot reach the PostgreSQL server"), scan.stderr)
        XCTAssertTrue(scan.stderr.contains("(library states are not shown)"), scan.stderr)
        XCTAssertFalse(scan.stderr.contains("hunter2-secret"), scan.stderr)
        let refused = ["--library", server.location(database: database, role: "secret", password: "not-it"), "--user", "alice"]
        let wrong = try run("scan", refused, ["--json", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertTrue(wrong.stderr.contains("refused the login"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("not-it"), wrong.stderr)
    }

    // MARK: - read-only commands on a library that does not exist

    /// A mistyped `--library` (or a user with no library on the server): each read-only
    /// command says there is no library (66) and creates none.
    func testReadOnlyCommandsOnALibraryThatDoesNotExistSaySoAndCreateNothing() throws {
        let typo = sandbox.dir.appendingPathComponent("typo/librray.sqlite").path
        let missing: [(name: String, arguments: [String])] = [
            ("sqlite", ["--library", typo]),
            ("postgresql", ["--library", server.location(database: database), "--user", "nobody-yet"]),
        ]
        for (name, backend) in missing {
            for arguments in [["list"], ["list", "--json"], ["show", Self.event], ["export", Self.event], ["calendar"],
                              ["log"], ["render", Self.event, "--format", "svg", "-o", "-"], ["icon", Self.event]] {
                let r = try run(arguments[0], backend, Array(arguments.dropFirst()))
                XCTAssertEqual(r.status, 66, "\(name) \(arguments): \(r.stdout) \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(name == "sqlite" ? "there is no library here" : "no library for user nobody-yet"),
                              "\(name) \(arguments): \(r.stderr)")
                XCTAssertEqual(r.stdout, "", "\(name) \(arguments)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.dir.appendingPathComponent("typo").path), "a folder was created")
        let schema = try server.psql(database, "SELECT count(*) FROM pg_namespace WHERE nspname = 'passconduit'")
        XCTAssertEqual(schema.trimmingCharacters(in: .whitespacesAndNewlines), "0", "reading created the schema")
    }

    /// A database that does not exist is the same answer (73) whichever command meets it.
    func testAMissingDatabaseIsTheSameExitOnEveryCommand() throws {
        let gone = ["--library", server.location(database: "no_such_db_pc"), "--user", "alice"]
        for arguments in [["list"], ["show", Self.event], ["add", "--yes", Run.sample("passes/event-ticket.pkpass")],
                          ["remove", "--yes", Self.event], ["export", Self.event], ["log"], ["offers"]] {
            let r = try run(arguments[0], gone, Array(arguments.dropFirst()))
            XCTAssertEqual(r.status, 73, "\(arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("no_such_db_pc"), "\(arguments): \(r.stderr)")
        }
        let copy = try sandbox.run("library", ["copy", "--user", "alice", server.location(database: "no_such_db_pc"),
                                               sandbox.dir.appendingPathComponent("to.sqlite").path], common: false)
        XCTAssertEqual(copy.status, 73, copy.stderr)
    }

    // MARK: - --user

    /// On a file, `--user` named someone else's library and was ignored: `remove --user
    /// nobody-here --yes` removed from the only library. Now it is refused (64) unless it names
    /// the login whose file it is.
    func testUserOnAFileLibraryIsRefusedUnlessItIsTheLogin() throws {
        let file = ["--library", sandbox.library]
        XCTAssertEqual(try run("add", file, ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let remove = try run("remove", file + ["--user", "nobody-here"], ["--yes", Self.event])
        XCTAssertEqual(remove.status, 64, remove.stdout + remove.stderr)
        XCTAssertTrue(remove.stderr.contains("--user nobody-here: the library \(sandbox.library) is a file"), remove.stderr)
        XCTAssertEqual(try run("list", file, ["--json"]).objects.count, 1, "nothing was removed")
        let login = String(cString: getpwuid(getuid())!.pointee.pw_name)
        let own = try run("list", file + ["--user", login], ["--json"])
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertEqual(own.objects.count, 1)
    }

    // MARK: - library copy

    /// `library copy` into a target holding another library named the target with its password;
    /// now no line of it, success or refusal, carries the password.
    func testLibraryCopyNeverPrintsThePassword() throws {
        let owned = try server.database(owner: "secret")
        let target = server.location(database: owned, role: "secret", password: PostgresTestServer.password)
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let copy = try sandbox.run("library", ["copy", "--user", "frank", sandbox.library, target], common: false)
        XCTAssertEqual(copy.status, 0, copy.stdout + copy.stderr)
        // Another library into the same target: refused, naming it without the password.
        let other = try Sandbox()
        XCTAssertEqual(try other.run("add", ["--yes", Run.sample("passes/boarding-pass.pkpass")]).status, 0)
        let refused = try other.run("library", ["copy", "--user", "frank", other.library, target], common: false)
        XCTAssertEqual(refused.status, 74, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("different library"), refused.stderr)
        for output in [copy.stdout, copy.stderr, refused.stdout, refused.stderr] {
            XCTAssertFalse(output.contains(PostgresTestServer.password), output)
        }
        XCTAssertTrue(refused.stderr.contains("postgresql://secret@/\(owned)"), refused.stderr)
    }

    /// From a user the server holds no library for: "no library to copy from" (66), and that
    /// user is not created on the source (it "copied 0 passes" and made one).
    func testLibraryCopyFromAUserWithoutALibrarySaysSoAndCreatesNothing() throws {
        XCTAssertEqual(try run("add", backends[1].arguments, ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let target = sandbox.dir.appendingPathComponent("ghost.sqlite").path
        let copy = try sandbox.run("library", ["copy", "--user", "ghost", server.location(database: database), target], common: false)
        XCTAssertEqual(copy.status, 66, copy.stdout + copy.stderr)
        XCTAssertTrue(copy.stderr.contains("there is no library to copy from"), copy.stderr)
        XCTAssertEqual(try libraryUsers(), ["alice"], "the source gained a user")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "the target was created")
    }

    // MARK: - adds at once

    /// Eight `add --yes` of one pass at the same moment: one adds it, seven say it is already
    /// there (each of them had found it new when it scanned). On both backends.
    func testEightConcurrentAddsOfOnePassAddItOnce() throws {
        for (name, backend) in backends {
            var script = "set -u\n"
            let arguments = (backend + ["--trust", Run.sample("ca/trust"), "--yes", Run.sample("passes/event-ticket.pkpass")])
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            for i in 1...8 {
                script += "\"$BIN\" add \(arguments) > \"$OUT/\(name)-\(i).out\" 2>&1 &\n"
            }
            script += "wait\n"
            var environment = sandbox.environment
            environment["BIN"] = Binary.url.path
            environment["OUT"] = sandbox.dir.path
            let shell = try HandOn.run("/bin/bash", ["-c", script], environment: environment)
            XCTAssertEqual(shell.status, 0, shell.stderr)
            var added = 0, already = 0
            for i in 1...8 {
                let text = try String(contentsOf: sandbox.dir.appendingPathComponent("\(name)-\(i).out"), encoding: .utf8)
                if text.contains("Added to your library.") { added += 1 }
                if text.contains("Already in your library.") { already += 1 }
            }
            XCTAssertEqual(added, 1, name)
            XCTAssertEqual(already, 7, name)
            XCTAssertEqual(try run("log", backend, ["--json"]).objects.count, 1, "\(name): one add in the log")
        }
    }
}

/// Issue 26 item 4: a library in a folder its reader may not write (a backup mount, a library
/// shared read-only) is read by `list`, `show`, `export`, `calendar`, `render ID` and `log`:
/// they exited 73 "cannot open the library for writing" (SQLite's WAL wants its `-shm` file in
/// the folder). Run as `nobody` when the tests run as root (root may write anywhere).
final class ReadOnlyLibraryTests: XCTestCase {
    override class func tearDown() { Unprivileged.cleanUp() }

    func testALibraryInAFolderThatCannotBeWrittenIsRead() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.dir.appendingPathComponent("shared")
        let library = folder.appendingPathComponent("library.sqlite").path
        let add = try sandbox.run("add", ["--library", library, "--trust", Run.sample("ca/trust"), "--yes",
                                          Run.sample("passes/event-ticket.pkpass")], common: false)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: library + "-shm"), "the last connection removes -shm")
        chmod(sandbox.dir.path, 0o755)
        chmod(folder.path, 0o555)
        chmod(library, 0o444)
        defer { chmod(folder.path, 0o755) }
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()

        let binary = try Unprivileged.binary()
        let trust = try Unprivileged.sampleTrust()
        func read(_ arguments: [String]) throws -> HandOn.Result {
            let argv = [binary, arguments[0], "--library", library, "--trust", trust] + Array(arguments.dropFirst())
            var environment = sandbox.environment
            environment["HOME"] = "/nonexistent"
            if Unprivileged.dropsPrivileges {
                return try HandOn.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + argv, environment: environment)
            }
            return try HandOn.run(argv[0], Array(argv.dropFirst()), environment: environment)
        }
        let event = "pass.org.passconduit.event/EVT-2026-0001"
        let list = try read(["list", "--json"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("EVT-2026-0001"), list.stdout)
        let show = try read(["show", "--no-barcode", event])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("EVT-2026-0001"), show.stdout)
        let export = try read(["export", event])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stdout.hasPrefix("PK"), "the pass's bytes")
        let calendar = try read(["calendar"])
        XCTAssertEqual(calendar.status, 0, calendar.stderr)
        XCTAssertTrue(calendar.stdout.contains("BEGIN:VEVENT"), calendar.stdout)
        let log = try read(["log", "--json"])
        XCTAssertEqual(log.status, 0, log.stderr)
        XCTAssertTrue(log.stdout.contains("\"add\""), log.stdout)
        let render = try read(["render", event, "--format", "svg", "-o", "-"])
        XCTAssertEqual(render.status, 0, render.stderr)
        XCTAssertTrue(render.stdout.contains("<svg"), String(render.stdout.prefix(200)))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), before, "reading wrote into the folder")
        // Writing is what fails there, and it says so.
        let remove = try read(["remove", "--yes", event])
        XCTAssertNotEqual(remove.status, 0, remove.stdout)
    }
}

/// Issue 26 item 3: the server stops while a person adds five passes. Each remaining pass
/// waited out the whole retry deadline (~15 s each, 69 s for five) and the error lines named
/// no pass and showed Swift's error names. Now the first failure marks the server down, the
/// others are reported at once, and every line names its pass and the cause in words. Its own
/// server: this test stops it.
final class PostgresOutageTests: XCTestCase {
    /// `log --follow` gave up when the server restarted, where on SQLite it keeps following:
    /// it now says once that it waits, and prints the change made after the server is back.
    func testLogFollowKeepsFollowingThroughARestart() throws {
        let server = try PostgresTestServer()
        try server.start()
        defer { try? server.stop() }
        let database = try server.database()
        let sandbox = try Sandbox()
        let library = ["--library", server.location(database: database), "--user", "alice", "--trust", Run.sample("ca/trust")]
        XCTAssertEqual(try sandbox.run("add", library + ["--yes", Run.sample("passes/event-ticket.pkpass")], common: false).status, 0)
        let follower = Process()
        follower.executableURL = Binary.url
        follower.arguments = ["log", "--follow", "--json"] + library
        follower.environment = sandbox.environment
        let output = sandbox.dir.appendingPathComponent("follow.out"), errors = sandbox.dir.appendingPathComponent("follow.err")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        follower.standardOutput = try FileHandle(forWritingTo: output)
        follower.standardError = try FileHandle(forWritingTo: errors)
        try follower.run()
        defer { if follower.isRunning { follower.terminate(); follower.waitUntilExit() } }
        func lines() -> [String] {
            ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        var deadline = Date().addingTimeInterval(20)
        while lines().count < 1 && Date() < deadline { usleep(100_000) }
        XCTAssertEqual(lines().count, 1, "the backlog")
        try server.stop()
        // Longer than a read's retry deadline (15 s): the follower meets the failure itself.
        sleep(18)
        XCTAssertTrue(follower.isRunning, "it gave up (\(follower.isRunning ? 0 : follower.terminationStatus)): \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
        try server.start()
        XCTAssertEqual(try sandbox.run("add", library + ["--yes", Run.sample("passes/boarding-pass.pkpass")], common: false).status, 0)
        deadline = Date().addingTimeInterval(30)
        while lines().count < 2 && Date() < deadline { usleep(100_000) }
        XCTAssertEqual(lines().count, 2, "the change after the restart: \(lines())")
        let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        XCTAssertTrue(said.contains("still following"), said)
    }

    func testAddAfterTheServerStopsFailsFastNamingEachPass() throws {
        let server = try PostgresTestServer()
        try server.start()
        defer { try? server.stop() }
        let database = try server.database()
        let sandbox = try Sandbox()
        let passes = try HandOn.forgeMany(edits: (1...5).map { ["serialNumber": "OUT-\($0)"] }, in: sandbox.dir)
        let ready = sandbox.dir.appendingPathComponent("ready"), go = sandbox.dir.appendingPathComponent("go")
        let script = #"""
        import os, pty, sys, json, time
        argv = json.loads(sys.argv[1]); env = json.loads(sys.argv[2]); ready = sys.argv[3]; go = sys.argv[4]
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(argv[0], argv, env)
        out = b""; pending = b""; first = True; start = None
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data; pending += data
            if b"[y/N]" in pending:
                pending = b""
                if first:
                    first = False
                    open(ready, "w").close()
                    while not os.path.exists(go):
                        time.sleep(0.05)
                    start = time.monotonic()
                os.write(fd, b"y\n")
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(out.decode("utf-8", "replace"))
        sys.stdout.write("\nELAPSED %.1f\n" % (time.monotonic() - (start or time.monotonic())))
        sys.exit(os.waitstatus_to_exitcode(status))
        """#
        let argv = [Binary.url.path, "add", "--library", server.location(database: database), "--user", "alice",
                    "--trust", Run.sample("ca/trust")] + passes.map(\.path)
        var environment = sandbox.environment
        environment["TERM"] = "xterm"
        environment["NO_COLOR"] = "1"
        func json(_ value: Any) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, try json(argv), try json(environment), ready.path, go.path]
        let output = sandbox.dir.appendingPathComponent("driver.out")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: ready.path) && process.isRunning && Date() < deadline { usleep(50_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: ready.path), "no question was asked")
        try server.stop()
        FileManager.default.createFile(atPath: go.path, contents: nil)
        process.waitUntilExit()
        let text = try String(contentsOf: output, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 75, text)
        let elapsed = Double(text.split(whereSeparator: \.isNewline).last { $0.hasPrefix("ELAPSED ") }?.dropFirst(8) ?? "") ?? 999
        XCTAssertLessThan(elapsed, 35, "one retry deadline (15 s), not one per pass: \(text)")
        let errors = text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("passconduit: ") }
        XCTAssertEqual(errors.count, 5, text)
        for n in 1...5 {
            XCTAssertEqual(errors.filter { $0.contains("(pass.org.passconduit.event/OUT-\(n))") }.count, 1, "OUT-\(n): \(text)")
        }
        for line in errors {
            for name in ["PSQLError", "NIOCore", "ChannelError", "IOError", "connectionError", "(errno"] {
                XCTAssertFalse(line.contains(name), "\(name) in: \(line)")
            }
        }
        XCTAssertFalse(text.contains("Added to your library."), text)
    }
}
