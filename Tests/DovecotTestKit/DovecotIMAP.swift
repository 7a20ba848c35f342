import Foundation
import XCTest

/// A private Dovecot IMAP server (Debian's dovecot-imapd) for the sign-in tests: its own config,
/// passwd-file, certificate and sockets in a temporary folder, listening on loopback only, started
/// with `dovecot -F` and stopped with the test class. A missing Dovecot fails the test.
package final class DovecotIMAP {
    package let root: URL
    package let imapPort: Int
    package let imapsPort: Int
    /// The self-signed certificate the server presents (for `localhost` and 127.0.0.1).
    package var certificate: String { root.appendingPathComponent("cert.pem").path }
    private let process = Process()

    /// `users`: name → password, written as `{PLAIN}` entries (a test fixture, not a secret).
    /// `tls`: whether the server offers STARTTLS and listens for implicit TLS at all.
    package init(users: [String: String], tls: Bool = true) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pc-dovecot-\(UUID().uuidString)")
        let files = FileManager.default
        for folder in ["", "run", "state", "home"] {
            try files.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        // Dovecot's login and auth processes run as its own users: they must reach the folder.
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
        try files.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: root.appendingPathComponent("home").path)
        var passwd = ""
        for (user, password) in users.sorted(by: { $0.key < $1.key }) { passwd += "\(user):{PLAIN}\(password)\n" }
        try passwd.write(to: root.appendingPathComponent("passwd"), atomically: true, encoding: .utf8)
        try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: root.appendingPathComponent("passwd").path)
        imapPort = Self.freePort()
        imapsPort = Self.freePort()
        if tls {
            let made = try Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                                         "-keyout", root.appendingPathComponent("key.pem").path,
                                                         "-out", root.appendingPathComponent("cert.pem").path,
                                                         "-subj", "/CN=localhost",
                                                         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
            XCTAssertEqual(made.status, 0, made.output)
            try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: root.appendingPathComponent("key.pem").path)
        }
        let root = self.root.path
        let owner = geteuid() == 0 ? ("dovecot", "dovenull") : (Self.userName(), Self.userName())
        let unprivileged = geteuid() == 0 ? "uid=nobody gid=nogroup" : "uid=\(getuid()) gid=\(getgid())"
        let config = """
        base_dir = \(root)/run
        state_dir = \(root)/state
        log_path = \(root)/dovecot.log
        protocols = imap
        listen = 127.0.0.1
        ssl = \(tls ? "yes" : "no")
        \(tls ? "ssl_cert = <\(root)/cert.pem\nssl_key = <\(root)/key.pem" : "")
        auth_mechanisms = plain login
        # Each failed sign-in would otherwise cost 2 s; the tests make several.
        auth_failure_delay = 0
        login_trusted_networks = 127.0.0.0/8
        default_internal_user = \(owner.0)
        default_login_user = \(owner.1)
        mail_location = maildir:~/Maildir
        passdb {
          driver = passwd-file
          args = scheme=PLAIN username_format=%u \(root)/passwd
        }
        userdb {
          driver = static
          args = \(unprivileged) home=\(root)/home/%u
        }
        service imap-login {
          \(geteuid() == 0 ? "" : "chroot =")
          inet_listener imap {
            port = \(imapPort)
          }
          inet_listener imaps {
            port = \(tls ? imapsPort : 0)
            ssl = yes
          }
        }
        \(geteuid() == 0 ? "" : "service auth {\n  user = \(owner.0)\n}\nservice anvil {\n  chroot =\n}")
        """
        try config.write(to: self.root.appendingPathComponent("dovecot.conf"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/dovecot")
        process.arguments = ["-F", "-c", self.root.appendingPathComponent("dovecot.conf").path]
        let output = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = output
        process.standardError = output
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/dovecot"),
              FileManager.default.isExecutableFile(atPath: "/usr/lib/dovecot/imap-login") else {
            throw DovecotMissing()
        }
        try process.run()
        let end = Date().addingTimeInterval(10)
        while !Self.isListening(imapPort), Date() < end, process.isRunning { usleep(50_000) }
        guard Self.isListening(imapPort) else {
            let log = (try? String(contentsOf: self.root.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? ""
            stop()
            throw DovecotDidNotStart(log: log)
        }
    }

    /// SIGTERM, then SIGKILL after 3 s: Dovecot's master can wait minutes for an auth process
    /// that ignores its SIGINT. Its children exit by themselves once the master is gone.
    package func stop() {
        if process.isRunning {
            process.terminate()
            let end = Date().addingTimeInterval(3)
            while process.isRunning, Date() < end { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }

    /// Dovecot's log so far (for a failing assertion's message, and to check what it saw).
    package var log: String { (try? String(contentsOf: root.appendingPathComponent("dovecot.log"), encoding: .utf8)) ?? "" }

    package struct DovecotMissing: Error, CustomStringConvertible {
        package init() {}
        package var description: String { "Dovecot IMAP is not installed (script/bootstrap installs dovecot-imapd)" }
    }

    package struct DovecotDidNotStart: Error, CustomStringConvertible {
        let log: String
        package var description: String { "Dovecot did not start listening: \(log)" }
    }

    static func userName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "nobody" }
        return String(cString: name)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A free TCP port on 127.0.0.1 (bound to port 0, then released).
    package static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
