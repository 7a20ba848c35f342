import Foundation
import XCTest

/// Issue 27's operability, through the built daemon: the Unix socket's mode and group, an inet
/// listener that serves loopback and `--allow`ed networks only, `--domains` leaving outbound mail
/// untouched, the queue id on the log line, and a log that cannot be written refused at start.
final class GatewayOperabilityTests: XCTestCase {
    var home: URL!
    var milter: MilterProcess?

    override func setUpWithError() throws {
        home = FilterRun.directory("gateway-ops")
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    override class func tearDown() {
        FilterRun.cleanUp()
        Unprivileged.cleanUp()
    }

    func ticket(forged: Bool = true) throws -> [UInt8] {
        FilterMail.message(passes: [(name: "ticket.pkpass", bytes: try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true,
                           extraHeaders: forged ? GatewayTrustTests.forged : [])
    }

    func testTheUnixSocketTakesItsModeAndGroup() throws {
        let socket = home.appendingPathComponent("milter.sock").path
        milter = try MilterProcess(home: home, arguments: [], listen: "unix:\(socket)")
        var st = stat()
        XCTAssertEqual(lstat(socket, &st), 0)
        XCTAssertEqual(st.st_mode & 0o7777, 0o660, "the default mode")
        milter?.stop()
        guard let nogroup = getgrnam("nogroup")?.pointee.gr_gid ?? getgrnam("nobody")?.pointee.gr_gid else { return XCTFail("no group nogroup") }
        let name = getgrnam("nogroup") != nil ? "nogroup" : "nobody"
        milter = try MilterProcess(home: home, arguments: ["--socket-mode", "0620", "--socket-group", name], listen: "unix:\(socket)")
        XCTAssertEqual(lstat(socket, &st), 0)
        XCTAssertEqual(st.st_mode & 0o7777, 0o620)
        XCTAssertEqual(st.st_gid, nogroup)
        milter?.stop()
        milter = nil
        let bad = try MilterKit.run("/usr/bin/timeout", ["-s", "KILL", "20", Binary.url.path, "milter", "--listen", "unix:\(socket)", "--socket-mode", "rw-rw----"],
                                    environment: FilterRun.environment(home))
        XCTAssertEqual(bad.status, 64, bad.output)
        XCTAssertTrue(bad.output.contains("--socket-mode wants an octal mode"), bad.output)
    }

    /// This host's first IPv4 address that is not loopback, if it has one.
    static func outwardAddress() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let e = entry {
            defer { entry = e.pointee.ifa_next }
            guard let address = e.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var buffer = [CChar](repeating: 0, count: 64)
            inet_ntop(AF_INET, &ip, &buffer, 64)
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.hasPrefix("127.") { return text }
        }
        return nil
    }

    /// Connects to `ip`:`port`, negotiates; true when the daemon answered (false: it closed).
    static func negotiates(_ ip: String, port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(ip)
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { return false }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let optneg: [UInt8] = [0, 0, 0, 13, 0x4F, 0, 0, 0, 6, 0, 0, 0, 0x11, 0, 0, 0, 0]
        _ = optneg.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var reply = [UInt8](repeating: 0, count: 64)
        let n = reply.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n >= 5 && reply[4] == 0x4F
    }

    func testAnInetListenerServesLoopbackAndAllowedNetworksOnly() throws {
        let port = MilterKit.freePort()
        milter = try MilterProcess(home: home, arguments: [], port: port, listen: "inet:\(port)@0.0.0.0")
        XCTAssertTrue(Self.negotiates("127.0.0.1", port: port), "loopback is served")
        guard let outward = Self.outwardAddress() else {
            // The rule itself is MilterAccessTests'; this host has no other address to come from.
            print("GatewayOperabilityTests: no non-loopback IPv4 address here; only loopback checked end to end")
            return
        }
        XCTAssertFalse(Self.negotiates(outward, port: port), "\(outward) is not loopback and not allowed")
        XCTAssertTrue(MilterKit.waitUntil(10) { self.milter!.logLines.contains { $0.contains("refused a connection from \(outward)") } },
                      milter!.logLines.joined(separator: "\n"))
        milter?.stop()
        milter = try MilterProcess(home: home, arguments: ["--allow", "\(outward)/32"], port: port, listen: "inet:\(port)@0.0.0.0")
        XCTAssertTrue(Self.negotiates(outward, port: port), "--allow \(outward)/32")
    }

    func testDomainsLeaveOutboundMailUntouched() throws {
        let library = home.appendingPathComponent("library.sqlite").path
        let list = home.appendingPathComponent("domains")
        try "# our domains\nExample.org\n\nexample.com # and this one\n".write(to: list, atomically: true, encoding: .utf8)
        for domains in ["example.org,example.com", list.path] {
            milter?.stop()
            milter = try MilterProcess(home: home, arguments: ["--library", library, "--domains", domains])
            let outbound = try GatewayMilter.send(try ticket(), to: ["bob@example.net", "carol@other.example"], port: milter!.port, scratch: home)
            XCTAssertTrue(outbound.contains("reply=continue"), outbound)
            XCTAssertFalse(outbound.contains("summary") || outbound.contains("removed"), "outbound mail is left as it came: \(outbound)")
            XCTAssertTrue(milter!.messageLines.last?.contains("scan=skipped-not-local") ?? false, milter!.logLines.joined(separator: "\n"))
            let inbound = try GatewayMilter.send(try ticket(), to: ["bob@example.net", "Alice@EXAMPLE.org"], port: milter!.port, scratch: home)
            XCTAssertTrue(inbound.contains("summary 0:"), inbound)
            XCTAssertTrue(inbound.contains("removed X-Passconduit"), inbound)
        }
        let bad = try MilterKit.run("/usr/bin/timeout", ["-s", "KILL", "20", Binary.url.path, "milter", "--listen", "inet:\(MilterKit.freePort())@127.0.0.1",
                                                         "--domains", home.appendingPathComponent("missing").path], environment: FilterRun.environment(home))
        XCTAssertEqual(bad.status, 78, bad.output)
        XCTAssertTrue(bad.output.contains("cannot be read"), bad.output)
    }

    /// SIGTERM the moment the socket appears (systemd stopping a unit it has just started, an
    /// operator's quick restart): the daemon stops as it always does, exit 0 and "stopped" in its
    /// log, and is never killed by the signal itself. The old daemon set its signal handling up
    /// after binding the listeners, and a SIGTERM in between ended it by the default action.
    func testSIGTERMTheMomentTheSocketAppearsStopsTheDaemonCleanly() throws {
        for round in 0..<12 {
            let dir = home.appendingPathComponent("round\(round)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let socket = dir.appendingPathComponent("milter.sock").path
            let process = Process()
            process.executableURL = Binary.url
            process.arguments = ["milter", "--listen", "unix:" + socket, "--trust", Run.sample("ca/trust"),
                                 "--metrics", "127.0.0.1:\(MilterKit.freePort())"]
            process.environment = FilterRun.environment(dir)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var st = stat()
            let end = Date().addingTimeInterval(30)
            while lstat(socket, &st) != 0 && process.isRunning && Date() < end { usleep(200) }
            let appeared = lstat(socket, &st) == 0
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            XCTAssertTrue(appeared, "round \(round): no socket")
            XCTAssertEqual(process.terminationReason, .exit, "round \(round): ended by signal \(process.terminationStatus)")
            XCTAssertEqual(process.terminationStatus, 0, "round \(round)")
            let log = (try? String(contentsOf: dir.appendingPathComponent("state/passconduit/milter.log"), encoding: .utf8)) ?? ""
            XCTAssertTrue(log.hasSuffix(" stopped\n"), "round \(round): \(log)")
        }
    }

    func testTheQueueIDIsOnTheLogLine() throws {
        milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path])
        let out = try GatewayMilter.send(try ticket(forged: false), to: ["alice@example.org"], port: milter!.port, scratch: home, queueID: "4Fz9Kq1XyZ")
        XCTAssertTrue(out.contains("reply=continue"), out)
        let line = milter!.messageLines.last ?? ""
        XCTAssertTrue(line.contains(" queue=4Fz9Kq1XyZ "), line)
        XCTAssertTrue(line.contains("outcome=new/offered"), line)
    }

    /// `--user`/`--group`: started as root, the daemon binds its Unix socket and the metrics
    /// listener, gives the socket to the user, and becomes nobody:nogroup before any mail: the
    /// daemon and its scan worker show it in /proc, with no capability left. A library nobody
    /// owns gets its offer; one only root can reach is named in the log with its error. Root,
    /// an unknown user and a daemon not started as root are refused with a sentence.
    func testUserAndGroupDropRootAfterBindingAndBeforeAnyMail() throws {
        XCTAssertTrue(Unprivileged.dropsPrivileges, "run the end-to-end tests as root (as CI does)")
        guard Unprivileged.dropsPrivileges else { return }
        guard let nobody = getpwnam("nobody")?.pointee.pw_uid, let nogroup = getgrnam("nogroup")?.pointee.gr_gid else {
            return XCTFail("no user nobody or group nogroup")
        }
        let binary = URL(fileURLWithPath: try Unprivileged.binary())
        let trust = try Unprivileged.sampleTrust()
        let root = Unprivileged.root.appendingPathComponent("milter-user-\(UUID().uuidString.prefix(8))")
        let libraries = root.appendingPathComponent("libraries")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        chmod(root.path, 0o755)
        chmod(libraries.path, 0o755)
        defer { try? FileManager.default.removeItem(at: root) }
        let template = libraries.path + "/%{local}@%{domain}/library.sqlite"
        // alice's library is nobody's; bob's is root's alone.
        for (address, owner) in [("alice@example.org", ["--owner", "nobody:nogroup"]), ("bob@example.org", [])] {
            let made = try Sandbox().run("library", ["create", address, "--library-map", template] + owner, common: false)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        chmod(libraries.appendingPathComponent("bob@example.org").path, 0o700)
        let socket = root.appendingPathComponent("milter.sock").path
        let metricsPort = MilterKit.freePort()
        milter = try MilterProcess(home: root, arguments: ["--user", "nobody", "--group", "nogroup", "--library-map", template,
                                                           "--metrics", "127.0.0.1:\(metricsPort)"],
                                   executable: binary, trust: trust, listen: "unix:\(socket)")
        var st = stat()
        XCTAssertEqual(lstat(socket, &st), 0)
        XCTAssertEqual([st.st_uid, st.st_gid, st.st_mode & 0o7777], [nobody, nogroup, 0o660], "the socket is the user's")
        let out = try GatewayMilter.send(try ticket(forged: false), to: ["alice@example.org", "bob@example.org"], port: 0, scratch: root, socket: socket)
        XCTAssertTrue(out.contains("reply=continue"), out)
        XCTAssertTrue(MilterKit.isListening(metricsPort), "the metrics listener bound before the drop still serves")

        let daemon = milter!.process.processIdentifier
        let worker = MilterKit.child(of: daemon)
        XCTAssertNotNil(worker, "no scan worker below the daemon")
        for pid in [daemon] + (worker.map { [$0] } ?? []) {
            let s = MilterKit.procStatus(pid)
            XCTAssertEqual(s["Uid"], "\(nobody) \(nobody) \(nobody) \(nobody)", "pid \(pid)")
            XCTAssertEqual(s["Gid"], "\(nogroup) \(nogroup) \(nogroup) \(nogroup)", "pid \(pid)")
            XCTAssertEqual(s["CapEff"], "0000000000000000", "pid \(pid)")
            XCTAssertEqual(s["CapPrm"], "0000000000000000", "pid \(pid)")
        }
        let log = milter!.logLines.joined(separator: "\n")
        XCTAssertTrue(log.contains("running as user nobody (uid \(nobody)), group nogroup (gid \(nogroup))"), log)
        let line = try XCTUnwrap(milter!.messageLines.last, log)
        XCTAssertTrue(line.contains("library=\"\(libraries.path)/alice@example.org/library.sqlite\" outcome=new/offered"), line)
        XCTAssertTrue(line.contains("library=\"\(libraries.path)/bob@example.org/library.sqlite\" library-error="), line)
        let offers = try Sandbox().run("offers", ["--library", libraries.path + "/alice@example.org/library.sqlite",
                                                  "--trust", Run.sample("ca/trust"), "--json"], common: false)
        XCTAssertEqual(offers.objects.count, 1, offers.stdout + offers.stderr)
        milter?.stop()
        milter = nil

        // Refused, each with a sentence: root, a user that does not exist, and a daemon that is not root.
        let port = "inet:\(MilterKit.freePort())@127.0.0.1"
        let base = [binary.path, "milter", "--listen", port, "--log", "none"]
        for (extra, status, sentence) in [(["--user", "root"], Int32(64), "does not run as root"),
                                          (["--user", "pc-no-such-user"], 64, "there is no user pc-no-such-user"),
                                          (["--user", "nobody", "--group", "pc-no-such-group"], 64, "there is no group pc-no-such-group")] {
            let r = try MilterKit.run("/usr/bin/timeout", ["-s", "KILL", "20"] + base + extra, environment: FilterRun.environment(root))
            XCTAssertEqual(r.status, status, r.output)
            XCTAssertTrue(r.output.contains(sentence), r.output)
        }
        let notRoot = try MilterKit.run("/usr/bin/setpriv", ["--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "--",
                                                             "/usr/bin/timeout", "-s", "KILL", "20"] + base + ["--user", "nobody"],
                                        environment: FilterRun.environment(root))
        XCTAssertEqual(notRoot.status, 77, notRoot.output)
        XCTAssertTrue(notRoot.output.contains("only a daemon started as root can become another user"), notRoot.output)
    }

    func testALogThatCannotBeWrittenStopsTheStart() throws {
        let blocker = home.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        var env = FilterRun.environment(home)
        env["XDG_STATE_HOME"] = blocker.path
        let r = try MilterKit.run("/usr/bin/timeout", ["-s", "KILL", "20", Binary.url.path, "milter", "--listen", "inet:\(MilterKit.freePort())@127.0.0.1"],
                                  environment: env)
        XCTAssertEqual(r.status, 73, r.output)
        XCTAssertTrue(r.output.contains("cannot write the log file \(blocker.path)/passconduit/milter.log: Not a directory"), r.output)
        let syslog = try MilterKit.run("/usr/bin/timeout", ["-s", "KILL", "20", Binary.url.path, "milter", "--listen", "inet:\(MilterKit.freePort())@127.0.0.1",
                                                            "--log", "none", "--check"], environment: env)
        XCTAssertEqual(syslog.status, 0, syslog.output)
    }
}
