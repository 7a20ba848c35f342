import Foundation
import PostgresTestKit
import XCTest
@testable import PassStore
@testable import PassStorePostgres

/// What only the PostgreSQL backend has: many users in one database, locations by libpq's URI
/// rules, and a server that can be down, refuse the login, be read-only, run another schema or
/// drop the connection. Each against the tests' own server.
final class PostgresLibraryTests: XCTestCase {
    func options(user: String, retry: TimeInterval = 15) -> LibraryOptions {
        var o = LibraryOptions()
        o.user = user
        o.retryDeadline = retry
        o.busyTimeout = min(5, retry)
        return o
    }

    func testUsersOfOneDatabaseHaveSeparateLibrariesAndLogs() async throws {
        let location = try SharedPostgres.location()
        let alice = try await PostgresLibrary.open(location, options: options(user: "alice-" + UUID().uuidString))
        let bob = try await PostgresLibrary.open(location, options: options(user: "bob-" + UUID().uuidString))
        defer { Task { await alice.close(); await bob.close() } }
        try await alice.add(Synthetic.record("1"))
        try await bob.add(Synthetic.record("1"))
        try await bob.add(Synthetic.record("2"))
        let aliceCount = try await alice.count(), bobCount = try await bob.count()
        XCTAssertEqual(aliceCount, 1)
        XCTAssertEqual(bobCount, 2)
        let aliceLog = try await alice.changes(after: 0).map(\.sequence)
        let bobLog = try await bob.changes(after: 0).map(\.sequence)
        XCTAssertEqual(aliceLog, [1])
        XCTAssertEqual(bobLog, [1, 2])
        try await alice.remove(Synthetic.record("1").id)
        let bobStill = try await bob.pass(Synthetic.record("1").id)
        XCTAssertNotNil(bobStill)
        let aliceProblems = try await alice.check(), bobProblems = try await bob.check()
        XCTAssertEqual(aliceProblems, [])
        XCTAssertEqual(bobProblems, [])
    }

    /// Issue 39 item 4: a process keeps one pool per server, whatever the number of libraries it
    /// opens (`serve` opens one per signed-in person): 40 people's libraries used at once hold no
    /// more than `PostgresPools.maximumConnections` connections, each lease is scoped to its own
    /// library user (`passconduit.user`, what row-level security compares) even right after
    /// another user's work ran on the same connection, and each library reads only its own rows.
    func testManyLibrariesOfOneProcessShareOnePoolEachLeaseScopedToItsUser() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let location = server.location(database: database)
        let first = try await PostgresLibrary.open(location, options: options(user: "person-0"))
        var libraries = [first]
        for i in 1..<40 { libraries.append(try await PostgresLibrary.open(location, options: options(user: "person-\(i)"))) }
        XCTAssertTrue(libraries.allSatisfy { $0.pool === first.pool }, "one pool for the server")
        let all = libraries
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, library) in all.enumerated() {
                group.addTask {
                    _ = try await library.add(Synthetic.record("own-\(i)"))
                    for _ in 0..<5 {
                        let scope = try await library.read("scope") { tx in
                            try await tx.rows("SELECT current_setting('passconduit.user', true)").first?.decode(String.self)
                        }
                        XCTAssertEqual(scope, "person-\(i)")
                        let passes = try await library.passes().map(\.id.serialNumber)
                        XCTAssertEqual(passes, ["own-\(i)"])
                    }
                }
            }
            try await group.waitForAll()
        }
        let connections = Int(try server.psql("postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)'")
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        XCTAssertGreaterThan(connections, 0)
        XCTAssertLessThanOrEqual(connections, PostgresPools.maximumConnections, "connections do not grow with the number of libraries")
        for library in all { await library.close() }
        // The last library of the server closes the pool's connections.
        var left = -1
        for _ in 0..<50 {
            left = Int(try server.psql("postgres", "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)'")
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            if left == 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(left, 0, "the pool's connections closed with its last library")
    }

    func testLocationsFollowLibpqAndNeverShowThePassword() throws {
        let env = ["HOME": "/nonexistent", "USER": "u"]
        let socket = try PostgresLocation("postgresql:///mail?host=/run/postgresql", environment: env)
        XCTAssertEqual(socket.endpoint, .socket(folder: "/run/postgresql"))
        XCTAssertEqual(socket.database, "mail")
        XCTAssertEqual(socket.socketPath, "/run/postgresql/.s.PGSQL.5432")
        let encoded = try PostgresLocation("postgresql://app@%2Fvar%2Frun%2Fpg:6543/db", environment: env)
        XCTAssertEqual(encoded.endpoint, .socket(folder: "/var/run/pg"))
        XCTAssertEqual(encoded.port, 6543)
        XCTAssertEqual(encoded.role, "app")
        let tcp = try PostgresLocation("postgres://app:p%40ss@db.example.org:5433/lib?sslmode=verify-full&library_user=alice",
                                       environment: env)
        XCTAssertEqual(tcp.endpoint, .tcp(host: "db.example.org"))
        XCTAssertEqual(tcp.password, "p@ss")
        XCTAssertEqual(tcp.sslMode, .verifyFull)
        XCTAssertEqual(tcp.libraryUser, "alice")
        XCTAssertFalse(tcp.display.contains("p@ss") || tcp.display.contains("p%40ss"), tcp.display)
        XCTAssertEqual(tcp.display, "postgresql://app@db.example.org:5433/lib")
        let v6 = try PostgresLocation("postgresql://[::1]/db", environment: env)
        XCTAssertEqual(v6.endpoint, .tcp(host: "::1"))
        XCTAssertEqual(v6.sslMode, .prefer)
        for bad in ["postgresql://h/db?sslmode=sometimes", "postgresql://h:99999/db", "postgresql://h/db?frobnicate=1"] {
            XCTAssertThrowsError(try PostgresLocation(bad, environment: env), bad) { error in
                XCTAssertEqual((error as? LibraryError)?.kind, .cannotCreate)
            }
        }
        XCTAssertThrowsError(try PostgresLocation("postgresql://app:hunter2@h/db?sslmode=bogus", environment: env)) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
        }
        XCTAssertEqual(LibraryLocation.withoutPassword("postgresql://a:b@h/d?password=c&x=1"), "postgresql://a@h/d?password=…&x=1")
    }

    func testThePasswordComesFromThePassfileAsLibpqReadsIt() throws {
        let dir = TempDir()
        let file = dir.path + "/pgpass"
        try """
            # comment
            other:*:*:*:nope
            localhost:5432:lib:app:from\\:file
            *:*:*:*:fallback
            """.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let location = try PostgresLocation("postgresql://app@/lib?host=/tmp/sock", environment: ["PGPASSFILE": file])
        XCTAssertEqual(location.password, "from:file")
        let other = try PostgresLocation("postgresql://app@db.example.org/lib", environment: ["PGPASSFILE": file])
        XCTAssertEqual(other.password, "fallback")
        chmod(file, 0o644)
        let open = try PostgresLocation("postgresql://app@/lib?host=/tmp/sock", environment: ["PGPASSFILE": file])
        XCTAssertNil(open.password, "a passfile others may read is ignored, as libpq does")
    }

    func testAPasswordLoginWorksAndAWrongPasswordIsRefusedWithoutShowingIt() async throws {
        let server = try SharedPostgres.server
        let database = try server.database(owner: "secret")
        let right = server.location(database: database, role: "secret", password: PostgresTestServer.password)
        let library = try await PostgresLibrary.open(right, options: options(user: "alice"))
        try await library.add(Synthetic.record("1"))
        await library.close()
        do {
            _ = try await PostgresLibrary.open(server.location(database: database, role: "secret", password: "wrong-horse"),
                                               options: options(user: "alice", retry: 3))
            XCTFail("a wrong password must be refused")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .unavailable, "\(error)")
            XCTAssertTrue(error.description.contains("refused the login"), error.description)
            XCTAssertTrue(error.description.contains(server.socketFolder), error.description)
            XCTAssertFalse(error.description.contains("wrong-horse"), error.description)
        }
        // With the password in a passfile instead of the location.
        let dir = TempDir()
        let passfile = dir.path + "/pgpass"
        try "*:*:\(database):secret:\(PostgresTestServer.password)\n".write(toFile: passfile, atomically: true, encoding: .utf8)
        chmod(passfile, 0o600)
        let viaFile = try await PostgresLibrary.open(server.location(database: database, role: "secret"), options: options(user: "alice"),
                                                     environment: ["PGPASSFILE": passfile])
        let count = try await viaFile.count()
        XCTAssertEqual(count, 1)
        await viaFile.close()
    }

    func testAServerThatIsNotThereIsUnavailableAtOnceNamingIt() async throws {
        let started = Date()
        do {
            _ = try await PostgresLibrary.open("postgresql://postgres:pw-not-shown@/db?host=/nonexistent-pc-socket",
                                               options: options(user: "alice", retry: 5))
            XCTFail("no server, no library")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .unavailable, "\(error)")
            XCTAssertTrue(error.description.contains("/nonexistent-pc-socket"), error.description)
            XCTAssertFalse(error.description.contains("pw-not-shown"), error.description)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "a refused connection is not worth waiting out")
    }

    func testAReadOnlyDatabaseReadsButRefusesWritesAndWritesNothing() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let location = server.location(database: database)
        let library = try await PostgresLibrary.open(location, options: options(user: "alice", retry: 2))
        try await library.add(Synthetic.record("1"))
        await library.close()
        try server.psql("postgres", "ALTER DATABASE \(database) SET default_transaction_read_only = on")
        let reader = try await PostgresLibrary.open(location, options: options(user: "alice", retry: 2))
        let count = try await reader.count()
        XCTAssertEqual(count, 1)
        do {
            try await reader.add(Synthetic.record("2"))
            XCTFail("a read-only server takes no write")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .unavailable, "\(error)")
            XCTAssertTrue(error.description.contains("read-only"), error.description)
        }
        await reader.close()
        do {
            _ = try await PostgresLibrary.open(location, options: options(user: "newcomer", retry: 2))
            XCTFail("a new library cannot be made on a read-only server")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .unavailable, "\(error)")
        }
        try server.psql("postgres", "ALTER DATABASE \(database) SET default_transaction_read_only = off")
        let after = try await PostgresLibrary.open(location, options: options(user: "alice"))
        let log = try await after.changes(after: 0).map(\.sequence)
        XCTAssertEqual(log, [1])
        await after.close()
    }

    /// Migrations need not be contiguous nor applied in order (issue 43: v5 and v6 were made on
    /// two lines of history): a database that lacks one this build knows gets it, though a later
    /// one is recorded; one that records a version this build does not know is a newer schema.
    func testAMissingMigrationIsAppliedAfterALaterOneAndAnUnknownOneIsNewer() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let location = server.location(database: database)
        let first = try await PostgresLibrary.open(location, options: options(user: "alice"))
        try await first.add(Synthetic.record("1"))
        await first.close()
        // As if v4 had been made after v6: its table gone and unrecorded, v6 still recorded.
        try server.psql(database, """
            DROP TABLE passconduit.share_link; ALTER TABLE passconduit.library_user DROP COLUMN last_share_link;
            DELETE FROM passconduit.migration WHERE version = 4
            """)
        let library = try await PostgresLibrary.open(location, options: options(user: "alice"))
        let versions = try server.psql(database, "SELECT string_agg(version::text, ',' ORDER BY version) FROM passconduit.migration")
        XCTAssertEqual(versions.trimmingCharacters(in: .whitespacesAndNewlines), "1,2,3,4,5,6,7")
        let link = try await library.createShareLink(Synthetic.record("1").id, secretHash: String(repeating: "a", count: 64),
                                                     expires: Date().addingTimeInterval(60), oneDownload: false)
        XCTAssertEqual(link.id, 1)
        await library.close()
        // A version this build does not know (made by a newer passconduit): refused, untouched.
        try server.psql(database, "INSERT INTO passconduit.migration (version, name, application) VALUES (8, 'v8-from-elsewhere', 'passconduit pass library')")
        do {
            _ = try await PostgresLibrary.open(location, options: options(user: "alice"))
            XCTFail("opened a library with an unknown migration")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .newerSchema, "\(error)")
        }
    }

    /// A library made before v2 (a pass's status only valid or untrusted) keeps its passes when this
    /// build opens it, and then takes an unsigned pass (issue 26 item 15).
    func testAVersion1LibraryIsMigratedWithItsPassesAndTakesUnsignedPasses() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let location = server.location(database: database)
        let first = try await PostgresLibrary.open(location, options: options(user: "alice"))
        try await first.add(Synthetic.record("1"))
        await first.close()
        // Back to v1's shape: its CHECK, no row-level security (v3), no share links (v4), no chat
        // provenance (v5), no notices (v6) nor notice settings (v7), and no record of v2 to v7.
        try server.psql(database, """
            ALTER TABLE passconduit.library_user DROP COLUMN notices_enabled, DROP COLUMN notice_boarding_pass_minutes,
                DROP COLUMN notice_event_ticket_minutes, DROP COLUMN notice_other_minutes
            """)
        try server.psql(database, "DROP TABLE passconduit.notice_sent; DROP TABLE passconduit.notice; ALTER TABLE passconduit.library_user DROP COLUMN last_notice")
        try server.psql(database, "DROP TABLE passconduit.share_link; ALTER TABLE passconduit.library_user DROP COLUMN last_share_link")
        for table in ["offer", "pass", "pass_version"] {
            try server.psql(database, """
                ALTER TABLE passconduit.\(table) DROP COLUMN source_network, DROP COLUMN source_room,
                    DROP COLUMN source_event_id, DROP COLUMN source_sender
                """)
        }
        for table in ["library_user", "pass_blob", "pass", "pass_version", "offer", "change_log", "change_field",
                      "web_service_state", "web_service_registration", "web_service_tag"] {
            try server.psql(database, "DROP POLICY library_scope ON passconduit.\(table); ALTER TABLE passconduit.\(table) DISABLE ROW LEVEL SECURITY")
        }
        try server.psql(database, """
            ALTER TABLE passconduit.pass DROP CONSTRAINT pass_status_check;
            ALTER TABLE passconduit.pass ADD CONSTRAINT pass_status_check CHECK (status IN ('valid', 'untrusted'));
            ALTER TABLE passconduit.pass_version DROP CONSTRAINT pass_version_status_check;
            ALTER TABLE passconduit.pass_version ADD CONSTRAINT pass_version_status_check CHECK (status IN ('valid', 'untrusted'));
            DELETE FROM passconduit.migration WHERE version > 1
            """)
        let library = try await PostgresLibrary.open(location, options: options(user: "alice"))
        try await library.add(Synthetic.record("2", status: .unsigned), allowUntrusted: true)
        let statuses = try await library.passes().map(\.status.rawValue)
        XCTAssertEqual(statuses.sorted(), ["unsigned", "valid"])
        let versions = try server.psql(database, "SELECT max(version) FROM passconduit.migration")
        XCTAssertEqual(versions.trimmingCharacters(in: .whitespacesAndNewlines), "\(PostgresSchema.newest)")
        let secured = try server.psql(database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'passconduit' AND rowsecurity")
        XCTAssertEqual(secured.trimmingCharacters(in: .whitespacesAndNewlines), "13", "every library table but the migration record (share_link since v4, notice and notice_sent since v6)")
        await library.close()
    }

    func testANewerSchemaIsRefusedAndAnotherProgramsSchemaIsLeftAlone() async throws {
        let server = try SharedPostgres.server
        let newer = try server.database()
        let library = try await PostgresLibrary.open(server.location(database: newer), options: options(user: "alice"))
        await library.close()
        try server.psql(newer, "INSERT INTO passconduit.migration (version, name, application) VALUES (99, 'v99-future', 'passconduit pass library')")
        do {
            _ = try await PostgresLibrary.open(server.location(database: newer), options: options(user: "alice"))
            XCTFail("a newer schema must be refused")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .newerSchema, "\(error)")
            XCTAssertTrue(error.description.contains("schema 99"), error.description)
        }
        let foreign = try server.database()
        try server.psql(foreign, "CREATE SCHEMA passconduit; CREATE TABLE passconduit.things (id int)")
        do {
            _ = try await PostgresLibrary.open(server.location(database: foreign), options: options(user: "alice"))
            XCTFail("another program's schema must be refused")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .notALibrary, "\(error)")
        }
        let tables = try server.psql(foreign, "SELECT count(*) FROM pg_tables WHERE schemaname = 'passconduit'")
        XCTAssertEqual(tables.trimmingCharacters(in: .whitespacesAndNewlines), "1")
    }

    func testAConnectionTerminatedMidTransactionIsRetriedAndWritesOnce() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let location = server.location(database: database)
        let library = try await PostgresLibrary.open(location, options: options(user: "alice"))
        try await library.add(Synthetic.record("0"))
        // Another session holds alice's lock; the library's add waits inside its transaction.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["psql", "-X", "-q", "-h", server.socketFolder, "-U", "postgres", "-d", database, "-c",
                            "BEGIN; SELECT 1 FROM passconduit.library_user WHERE name = 'alice' FOR UPDATE; SELECT pg_sleep(3); COMMIT;"]
        holder.environment = ["PATH": (PostgresTestServer.binFolder ?? "/usr/bin") + ":/usr/bin:/bin"]
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        try await Task.sleep(for: .milliseconds(700))
        async let added = library.add(Synthetic.record("1"))
        try await Task.sleep(for: .milliseconds(700))
        let killed = try server.psql("postgres", """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = '\(database)' AND application_name = 'passconduit'
            """)
        XCTAssertGreaterThanOrEqual(Int(killed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 1, "the waiting writer's session")
        let stored = try await added
        holder.waitUntilExit()
        XCTAssertEqual(stored.id.serialNumber, "1")
        let log = try await library.changes(after: 0).map(\.sequence)
        XCTAssertEqual(log, [1, 2])
        let problems = try await library.check()
        XCTAssertEqual(problems, [])
        await library.close()
    }

    /// A copy is one transaction and may take longer than the few seconds after which an ordinary
    /// write is taken to be stuck on a silent connection (busyTimeout + 3 s): a library of 100 000
    /// passes took minutes. The server here is made slow (a trigger sleeps per pass row) so that the
    /// copy of 180 passes takes about 9 s, past the 8 s an ordinary write may take.
    func testACopyThatTakesLongerThanAnOrdinaryWriteCompletesOnce() async throws {
        let server = try SharedPostgres.server
        let database = try server.database()
        let source = try await BackendFactory(.sqlite).open()
        for i in 0..<180 { try await source.add(Synthetic.record("\(i)", size: 600)) }
        let snapshot = try await source.snapshot()
        let target = try await PostgresLibrary.open(server.location(database: database), options: options(user: "alice"))
        _ = try server.psql(database, """
            CREATE FUNCTION slow_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.05); RETURN NEW; END $$;
            CREATE TRIGGER slow BEFORE INSERT ON passconduit.pass FOR EACH ROW EXECUTE FUNCTION slow_insert();
            """)
        let started = ContinuousClock.now
        try await target.restore(snapshot)
        let took = ContinuousClock.now - started
        XCTAssertGreaterThan(took, .seconds(8), "the trigger must make the copy outlast an ordinary write's attempt")
        _ = try server.psql(database, "DROP TRIGGER slow ON passconduit.pass")
        let copied = try await target.snapshot()
        XCTAssertEqual(copied.differences(from: snapshot), [])
        let log = try await target.changes(after: 0).map(\.sequence)
        XCTAssertEqual(log, Array(1...180).map(Int64.init))
        let problems = try await target.check()
        XCTAssertEqual(problems, [])
        await target.close()
    }

    func testAServerThatGoesDownIsUnavailableInTimeAndTheLibraryWorksWhenItIsBack() async throws {
        let server = try PostgresTestServer()
        try server.start()
        defer { try? server.stop(); try? FileManager.default.removeItem(atPath: server.folder) }
        let database = try server.database()
        let library = try await PostgresLibrary.open(server.location(database: database), options: options(user: "alice", retry: 2))
        try await library.add(Synthetic.record("1"))
        try server.stop()
        let started = Date()
        do {
            try await library.add(Synthetic.record("2"))
            XCTFail("a stopped server takes no write")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .unavailable, "\(error)")
            XCTAssertTrue(error.description.contains(server.socketFolder), error.description)
            XCTAssertTrue(error.description.contains("nothing was written"), error.description)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
        try server.start()
        try await library.add(Synthetic.record("2"))
        let log = try await library.changes(after: 0).map(\.sequence)
        XCTAssertEqual(log, [1, 2])
        await library.close()
    }
}
