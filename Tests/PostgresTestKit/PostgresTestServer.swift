import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of the tests' own: `initdb` and `pg_ctl` from Debian's postgresql package
/// (/usr/lib/postgresql/<n>/bin) on a Unix socket in a temporary folder, no TCP, stopped when the
/// test process ends. Nothing depends on a system service. Run as root, the server runs as the
/// `postgres` account (PostgreSQL refuses root), and the folder is that account's.
///
/// Roles: `postgres` (superuser, trusted on the socket) and `secret` (password `s3cret-pw`,
/// SCRAM), so a test can be refused a login. Every test takes its own database (`database()`)
/// or its own library user in a shared one.
package final class PostgresTestServer: @unchecked Sendable {
    package let folder: String
    package let port = 5432
    package static let password = "s3cret-pw"
    private let bin: String
    private let runAs: String?
    private var running = false
    private let lock = NSLock()

    /// The server of this test process, started on first use.
    package static var shared: PostgresTestServer {
        get throws {
            sharedLock.lock(); defer { sharedLock.unlock() }
            if let server = _shared { return server }
            let server = try PostgresTestServer()
            try server.start()
            _shared = server
            atexit { PostgresTestServer._shared?.stopQuietly() }
            return server
        }
    }
    nonisolated(unsafe) private static var _shared: PostgresTestServer?
    private static let sharedLock = NSLock()

    /// The folder of PostgreSQL's programs, or nil when the package is not installed.
    package static var binFolder: String? {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        return versions.map { "\(base)/\($0)/bin" }.first { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") }
    }

    /// A new, stopped server in a new folder: `initdb` has run.
    package init() throws {
        guard let bin = Self.binFolder else {
            throw Failure("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install postgresql (script/packages/postgresql.txt)")
        }
        self.bin = bin
        runAs = geteuid() == 0 ? "postgres" : nil
        folder = "/tmp/pc-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        if let runAs {
            try Self.run("/bin/chown", [runAs, folder])
        }
        let pwfile = folder + "/superuser-password"
        _ = FileManager.default.createFile(atPath: pwfile, contents: Data("unused\n".utf8))
        if let runAs { try Self.run("/bin/chown", [runAs, pwfile]) }
        try command("initdb", ["-D", dataFolder, "-U", "postgres", "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync",
                               "--pwfile", pwfile])
        let hba = """
            local all postgres trust
            local all all scram-sha-256

            """
        try hba.write(toFile: dataFolder + "/pg_hba.conf", atomically: false, encoding: .utf8)
    }

    package var dataFolder: String { folder + "/data" }
    /// What `host=` names: the folder the socket is in.
    package var socketFolder: String { folder }

    /// A location for `--library`: database `database`, role `postgres` unless given.
    package func location(database: String, role: String = "postgres", password: String? = nil, extra: String = "") -> String {
        let auth = password.map { "\(role):\($0)" } ?? role
        return "postgresql://\(auth)@/\(database)?host=\(socketFolder)" + (extra.isEmpty ? "" : "&" + extra)
    }

    package func start() throws {
        lock.lock(); defer { lock.unlock() }
        guard !running else { return }
        try command("pg_ctl", ["-D", dataFolder, "-l", folder + "/server.log", "-w", "-t", "60", "-o",
                               "-k \(socketFolder) -c listen_addresses='' -p \(port) -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                               "start"])
        running = true
        try psql("postgres", """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'secret') THEN
                CREATE ROLE secret LOGIN PASSWORD '\(Self.password)';
              END IF;
            END $$;
            """)
    }

    /// Stops the server (fast shutdown: sessions are ended, nothing is lost).
    package func stop() throws {
        lock.lock(); defer { lock.unlock() }
        guard running else { return }
        try command("pg_ctl", ["-D", dataFolder, "-m", "fast", "-w", "stop"])
        running = false
    }

    func stopQuietly() {
        try? stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A new empty database owned by `owner`; its name.
    package func database(owner: String = "postgres") throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        try psql("postgres", "CREATE DATABASE \(name) OWNER \(owner)")
        return name
    }

    /// Runs SQL as the superuser in `database`; the output (unaligned, tuples only).
    @discardableResult
    package func psql(_ database: String, _ sql: String) throws -> String {
        try command("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", socketFolder, "-p", "\(port)", "-U", "postgres",
                             "-d", database, "-c", sql])
    }

    /// Runs SQL in `database` as `role` (with its password; the server asks every role but the
    /// superuser for one), its connection scoped to the library user `scope` (the start-up
    /// parameter `passconduit.user`, as the library's own connections set it) when given; the
    /// output. A refused statement throws, with psql's message.
    @discardableResult
    package func psql(_ database: String, _ sql: String, role: String, password: String, scope: String? = nil) throws -> String {
        var environment = ["PGPASSWORD=\(password)"]
        if let scope { environment.append("PGOPTIONS=-c passconduit.user=\(scope)") }
        return try command("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-h", socketFolder, "-p", "\(port)", "-U", role,
                                    "-d", database, "-c", sql], environment: environment)
    }

    /// Ends every session of `database` but the caller's (the test's `pg_terminate_backend`).
    @discardableResult
    package func terminateSessions(of database: String) throws -> Int {
        let out = try psql("postgres", """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE datname = '\(database)' AND pid <> pg_backend_pid()
            """)
        return Int(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    @discardableResult
    private func command(_ name: String, _ arguments: [String], environment: [String] = []) throws -> String {
        let path = bin + "/" + name
        let program = environment.isEmpty ? [path] : ["/usr/bin/env"] + environment + [path]
        if let runAs {
            return try Self.run("/usr/sbin/runuser", ["-u", runAs, "--"] + program + arguments, cwd: folder)
        }
        return try Self.run(program[0], Array(program.dropFirst()) + arguments, cwd: folder)
    }

    /// Runs a program to its end with posix_spawn and waitpid. Not Foundation's `Process`: it
    /// learns of a child's end through a descriptor the child inherits, and `pg_ctl start` leaves
    /// the server holding it, so `waitUntilExit` never returned. Outputs go to files for the same
    /// reason (a pipe would never reach end-of-file).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], cwd: String? = nil) throws -> String {
        let base = NSTemporaryDirectory() + "pc-pg-\(getpid())-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err"
        defer { unlink(outPath); unlink(errPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // The working folder through the shell: `cd` then exec, so no C helper is needed.
        let argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd ?? "/", executable] + arguments
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
        cArgs.append(nil)
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, cArgs, environ)
        guard rc == 0 else { throw Failure("cannot start \(executable): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let errText = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Failure("\(executable) \(arguments.joined(separator: " ")) failed (\(exited ? "exit \(code)" : "signal \(status & 0x7f)")): \(errText)\(text)")
        }
        return text
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ text: String) { description = text }
    }
}
