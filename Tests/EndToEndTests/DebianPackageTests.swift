import Foundation
import XCTest

/// The Debian package, built by `script/build-deb` from this test run's debug build (the same
/// script and layout `make deb` uses on the release build), then checked as an operator meets it:
/// its contents, lintian, and dpkg installing, upgrading (a local edit of the conffile kept),
/// removing (configuration and state kept) and purging it in a scratch root.
final class DebianPackageTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pc-deb-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Packages built in this run, by version: each test only reads them, and compressing the
    /// debug binary takes about a minute, so the class builds each version once.
    nonisolated(unsafe) private static var built: [String: String] = [:]
    private static let shared = FileManager.default.temporaryDirectory.appendingPathComponent("pc-deb-shared-\(getpid())")
    override class func tearDown() {
        try? FileManager.default.removeItem(at: shared)
        super.tearDown()
    }

    func build(version: String? = nil) throws -> String {
        let key = version ?? "default"
        if let deb = Self.built[key], FileManager.default.fileExists(atPath: deb) { return deb }
        let out = Self.shared.appendingPathComponent(key)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let run = try MilterKit.run(Run.root.appendingPathComponent("script/build-deb").path,
                                    ["--binary", Binary.url.path, "--out", out.path, "--fast"] + (version.map { ["--version", $0] } ?? []))
        XCTAssertEqual(run.status, 0, run.output)
        let deb = try XCTUnwrap(run.output.split(separator: "\n").last.map(String.init), run.output)
        Self.built[key] = deb
        return deb
    }

    func testThePackageHoldsWhatAMailHostNeedsAndLintianFindsNoError() throws {
        let deb = try build()
        XCTAssertTrue(deb.hasSuffix("/passconduit_0.1.0_\(try MilterKit.run("/usr/bin/dpkg", ["--print-architecture"]).output.trimmingCharacters(in: .whitespacesAndNewlines)).deb"), deb)
        let contents = try MilterKit.run("/usr/bin/dpkg-deb", ["--contents", deb]).output
        for path in ["./usr/bin/passconduit", "./usr/share/passconduit/trust/", "./usr/share/passconduit/passconduit.magic",
                     "./etc/passconduit/config.toml", "./usr/lib/sysusers.d/passconduit.conf", "./usr/lib/tmpfiles.d/passconduit.conf",
                     "./lib/systemd/system/passconduit-milter.service", "./usr/lib/systemd/user/passconduit-update.timer",
                     "./usr/share/bash-completion/completions/passconduit", "./usr/share/zsh/vendor-completions/_passconduit",
                     "./usr/share/fish/vendor_completions.d/passconduit.fish", "./usr/share/man/man1/passconduit.1.gz",
                     "./usr/share/man/man1/passconduit-filter.1.gz", "./usr/share/doc/passconduit/copyright",
                     "./usr/share/doc/passconduit/examples/integrations/postfix/main.cf.milter",
                     "./usr/share/applications/passconduit.desktop", "./usr/share/mime/packages/passconduit.xml",
                     "./usr/bin/passconduit-matrix", "./etc/passconduit/matrix.toml", "./usr/share/man/man8/passconduit-matrix.8.gz",
                     "./lib/systemd/system/passconduit-matrix.service"] {
            XCTAssertTrue(contents.contains(" \(path)"), "\(path) missing from the package:\n\(contents)")
        }
        XCTAssertEqual(try MilterKit.run("/usr/bin/dpkg-deb", ["--field", deb, "Version"]).output, "0.1.0\n")
        XCTAssertEqual(try MilterKit.run("/usr/bin/dpkg-deb", ["--info", deb, "conffiles"]).output, "/etc/passconduit/config.toml\n/etc/passconduit/matrix.toml\n")
        // The Matrix bot the package installs is the one MatrixBotTests runs against Synapse, byte for byte.
        let bot = try MilterKit.run("/bin/sh", ["-c", "dpkg-deb --fsys-tarfile '\(deb)' | tar -xO ./usr/bin/passconduit-matrix"]).output
        XCTAssertEqual(bot, try String(contentsOf: Run.root.appendingPathComponent("Bots/matrix/passconduit-matrix"), encoding: .utf8))
        // The installed unit runs the installed binary.
        let unit = try MilterKit.run("/bin/sh", ["-c", "dpkg-deb --fsys-tarfile '\(deb)' | tar -xO ./lib/systemd/system/passconduit-milter.service"]).output
        XCTAssertTrue(unit.contains("ExecStart=/usr/bin/passconduit milter"), unit)
        // So do the example units an operator copies (operator trial D13: they named /usr/local/bin).
        let examples = try MilterKit.run("/bin/sh", ["-c", "dpkg-deb --fsys-tarfile '\(deb)' | tar -xO --wildcards './usr/share/doc/passconduit/examples/integrations/systemd/*.service'"]).output
        XCTAssertTrue(examples.contains("/usr/bin/passconduit"), examples)
        XCTAssertFalse(examples.contains("/usr/local/bin"), examples)
        let lintian = try MilterKit.run("/usr/bin/lintian", ["--no-tag-display-limit", deb])
        let errors = lintian.output.split(separator: "\n").filter { $0.hasPrefix("E: ") }
        XCTAssertEqual(errors, [], lintian.output)
        // Every warning kept is listed, with its reason, in packaging/debian/lintian-kept.txt.
        let kept = try String(contentsOf: Run.root.appendingPathComponent("packaging/debian/lintian-kept.txt"), encoding: .utf8)
        for warning in lintian.output.split(separator: "\n") where warning.hasPrefix("W: ") {
            let tag = warning.split(separator: " ").dropFirst(2).first.map(String.init) ?? String(warning)
            XCTAssertTrue(kept.contains(tag), "lintian warning without a reason in lintian-kept.txt: \(warning)")
        }
    }

    func testInstallUpgradeRemoveAndPurgeLeaveWhatPolicySays() throws {
        try XCTSkipIf(geteuid() != 0, "dpkg --root needs root")
        let deb = try build()
        let root = scratch.appendingPathComponent("root")
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "etc", "usr/sbin"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for file in ["var/lib/dpkg/status", "var/lib/dpkg/available", "etc/passwd", "etc/group", "etc/shadow", "etc/gshadow"] {
            FileManager.default.createFile(atPath: root.appendingPathComponent(file).path, contents: Data())
        }
        func dpkg(_ arguments: [String]) throws -> String {
            let run = try MilterKit.run("/usr/bin/dpkg", ["--root=\(root.path)", "--force-script-chrootless", "--force-depends",
                                                          "--force-not-root", "--log=/dev/null"] + arguments)
            XCTAssertEqual(run.status, 0, run.output)
            return run.output
        }
        func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path) }
        // An enable link points at /lib/... of the root, which the host may not have: the link
        // itself is what counts.
        func linked(_ path: String) -> Bool { (try? FileManager.default.destinationOfSymbolicLink(atPath: root.appendingPathComponent(path).path)) != nil }

        _ = try dpkg(["--install", deb])
        XCTAssertTrue(exists("usr/bin/passconduit"))

        // systemd-analyze verify passes on every system unit installed (the milter's, the web
        // wallet's), in the scratch root: the host's own units copied in for the targets they name,
        // the package's manual pages for their Documentation= lines. (The user timer cannot be
        // verified under --root: systemd 252 has no user search path for another root.)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("usr/lib/systemd/system"), withIntermediateDirectories: true)
        XCTAssertEqual(try MilterKit.run("/bin/sh", ["-c", "cp -R /usr/lib/systemd/system/. \"$1/usr/lib/systemd/system/\"", "sh", root.path]).status, 0)
        let installed = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("lib/systemd/system").path)
            .filter { $0.hasPrefix("passconduit") }.sorted()
        XCTAssertEqual(installed, ["passconduit-matrix.service", "passconduit-milter.service", "passconduit-update-all.service",
                                   "passconduit-update-all.timer", "passconduit-web.service"])
        let verify = try MilterKit.run("/usr/bin/systemd-analyze", ["verify", "--root=\(root.path)"] + installed.map { root.appendingPathComponent("lib/systemd/system/" + $0).path },
                                       environment: ["MANPATH": root.appendingPathComponent("usr/share/man").path, "PATH": "/usr/bin:/bin",
                                                     "SYSTEMD_LOG_LEVEL": "notice"])
        XCTAssertEqual(verify.status, 0, verify.output)
        XCTAssertEqual(verify.output.trimmingCharacters(in: .whitespacesAndNewlines), "", "systemd-analyze verify: \(verify.output)")
        let passwd = try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8)
        XCTAssertTrue(passwd.contains("passconduit:"), "no system user: \(passwd)")
        XCTAssertTrue(exists("var/lib/passconduit"), "no state folder")

        // Hardening (issue 27): every system unit scores 2.0 or less ("OK") in systemd's own review.
        for unit in installed where unit.hasSuffix(".service") {
            let review = try MilterKit.run("/usr/bin/systemd-analyze", ["security", "--offline=true", "--no-pager",
                                                                        root.appendingPathComponent("lib/systemd/system/" + unit).path],
                                           environment: ["PATH": "/usr/bin:/bin", "SYSTEMD_COLORS": "0"])
            let overall = review.output.split(separator: "\n").first { $0.contains("Overall exposure level for \(unit):") }
            // "→ Overall exposure level for passconduit-milter.service: 1.5 OK :-)"
            let score = overall.flatMap { line in line.range(of: unit + ": ").flatMap { Double(line[$0.upperBound...].split(separator: " ").first ?? "") } }
            XCTAssertNotNil(score, review.output)
            XCTAssertLessThanOrEqual(score ?? 10, 2.0, "\(unit): \(overall ?? "")")
        }
        try checkTheInstalledMilterUnderConfinement(root: root, passwd: passwd)
        // Configuring twice changes nothing (idempotent maintainer scripts).
        let again = try MilterKit.run("/bin/sh", [root.appendingPathComponent("var/lib/dpkg/info/passconduit.postinst").path, "configure", "0.1.0"],
                                      environment: ["DPKG_ROOT": root.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8), passwd)

        // The operator enables the milter, as the unit's comment says (systemctl works offline
        // on a root); the upgrade's postinst records the link for deb-systemd-helper.
        let enable = try MilterKit.run("/usr/bin/systemctl", ["--root=\(root.path)", "enable", "passconduit-milter.service"],
                                       environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(enable.status, 0, enable.output)
        let wants = "etc/systemd/system/multi-user.target.wants/passconduit-milter.service"
        XCTAssertTrue(linked(wants), enable.output)

        // A local edit of the conffile survives an upgrade that ships the same file.
        let config = root.appendingPathComponent("etc/passconduit/config.toml")
        let edited = try String(contentsOf: config, encoding: .utf8) + "\n# edited on this host\n"
        try edited.write(to: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("var/lib/passconduit/alice@example.org"), withIntermediateDirectories: true)
        _ = try dpkg(["--install", try build(version: "0.1.1")])
        XCTAssertEqual(try String(contentsOf: config, encoding: .utf8), edited)
        XCTAssertTrue(try MilterKit.run("/usr/bin/dpkg-query", ["--admindir=\(root.path)/var/lib/dpkg", "-W", "-f=${Version}", "passconduit"]).output == "0.1.1")

        XCTAssertTrue(linked(wants), "the upgrade dropped the operator's enable")

        // remove: program gone, configuration and libraries kept; the units masked (as
        // dh_installsystemd does), so a leftover enable cannot start a binary that is gone.
        _ = try dpkg(["--remove", "passconduit"])
        XCTAssertFalse(exists("usr/bin/passconduit"))
        XCTAssertTrue(exists("etc/passconduit/config.toml"))
        XCTAssertTrue(exists("var/lib/passconduit/alice@example.org"))
        for unit in ["passconduit-milter.service", "passconduit-web.service", "passconduit-update-all.timer"] {
            let mask = root.appendingPathComponent("etc/systemd/system/" + unit).path
            XCTAssertEqual(try? FileManager.default.destinationOfSymbolicLink(atPath: mask), "/dev/null", "\(unit) not masked on remove")
        }
        // purge: both gone, nothing asked; the operator's enable link, the masks and
        // deb-systemd-helper's record of them too.
        _ = try dpkg(["--purge", "passconduit"])
        XCTAssertFalse(exists("etc/passconduit"))
        XCTAssertFalse(exists("var/lib/passconduit"))
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: root.appendingPathComponent(wants).path), "enable link left after purge")
        for unit in ["passconduit-milter.service", "passconduit-web.service"] {
            XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: root.appendingPathComponent("etc/systemd/system/" + unit).path),
                         "\(unit) still masked after purge")
        }
        let records = (try? FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent("var/lib/systemd/deb-systemd-helper-enabled").path)) ?? []
        XCTAssertEqual(records.filter { $0.contains("passconduit") }, [], "deb-systemd-helper still records passconduit units")
    }

    /// What the maintainer scripts ask of a running systemd (operator trial D5: after
    /// `apt-get remove` the milter went on scanning mail from the deleted binary): prerm stops
    /// both daemons on remove and not on upgrade; postinst try-restarts them on upgrade and
    /// starts nothing on a first install. systemd is not PID 1 on this machine, so the scripts
    /// run in a private mount namespace whose /run says it is (a tmpfs with run/systemd/system),
    /// with deb-systemd-invoke and systemctl answered by recorders of their arguments.
    func testTheDaemonsStopOnRemoveAndRestartOnUpgrade() throws {
        try XCTSkipIf(geteuid() != 0, "a private mount namespace needs root")
        let deb = try build()
        let control = scratch.appendingPathComponent("control")
        XCTAssertEqual(try MilterKit.run("/usr/bin/dpkg-deb", ["--control", deb, control.path]).status, 0)
        let bin = scratch.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let calls = scratch.appendingPathComponent("calls")
        // systemd-sysusers and systemd-tmpfiles answered too, and the host's sysusers.d and
        // tmpfiles.d hidden under tmpfs: configure must not make a user or a folder on this host.
        for tool in ["deb-systemd-invoke", "systemctl", "deb-systemd-helper", "systemd-sysusers", "systemd-tmpfiles"] {
            let recorder = bin.appendingPathComponent(tool)
            try "#!/bin/sh\necho \"\(tool) $*\" >> '\(calls.path)'\n".write(to: recorder, atomically: true, encoding: .utf8)
            XCTAssertEqual(chmod(recorder.path, 0o755), 0)
        }
        func run(_ script: String, _ arguments: [String]) throws -> [String] {
            try? FileManager.default.removeItem(at: calls)
            let shell = "mount -t tmpfs tmpfs /run && mkdir -p /run/systemd/system"
                + " && mount -t tmpfs tmpfs /usr/lib/sysusers.d && mount -t tmpfs tmpfs /usr/lib/tmpfiles.d"
                + " && touch /usr/lib/sysusers.d/passconduit.conf /usr/lib/tmpfiles.d/passconduit.conf && exec /bin/sh \"$@\""
            let result = try MilterKit.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", shell, "sh",
                                                                control.appendingPathComponent(script).path] + arguments,
                                           environment: ["PATH": "\(bin.path):/usr/sbin:/usr/bin:/sbin:/bin"])
            XCTAssertEqual(result.status, 0, "\(script) \(arguments): \(result.output)")
            let text = (try? String(contentsOf: calls, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("deb-systemd-invoke") || $0.hasPrefix("systemctl") }
        }
        let units = "passconduit-milter.service passconduit-web.service passconduit-update-all.timer passconduit-update-all.service"
        XCTAssertEqual(try run("prerm", ["remove"]), ["deb-systemd-invoke stop \(units)"])
        XCTAssertEqual(try run("prerm", ["upgrade", "0.1.1"]), [])
        XCTAssertEqual(try run("postinst", ["configure", "0.1.0"]),
                       ["systemctl --system daemon-reload", "deb-systemd-invoke try-restart \(units)"])
        XCTAssertEqual(try run("postinst", ["configure"]), ["systemctl --system daemon-reload"])
    }

    /// The installed milter unit's ExecStart line, run from the scratch root the way systemd
    /// would run it as far as this machine can (systemd is not PID 1 here, so no systemd-run):
    /// as the package's own passconduit user (its uid and gid from the scratch root's passwd),
    /// with no new privileges, an empty capability bounding set, no inheritable or ambient
    /// capabilities, the unit's UMask and Environment. What is not reproduced: the mount
    /// namespace (ProtectSystem, ProtectHome, PrivateTmp, PrivateDevices, ReadWritePaths), the
    /// seccomp filter (SystemCallFilter, MemoryDenyWriteExecute, RestrictAddressFamilies,
    /// LockPersonality) and the cgroup settings; the debug build also needs the toolchain's
    /// Swift runtime folder (LD_LIBRARY_PATH), which the static release build does not.
    /// It must answer miltertest with our headers, and daemon and worker show the confinement.
    func checkTheInstalledMilterUnderConfinement(root: URL, passwd: String) throws {
        let unitText = try String(contentsOf: root.appendingPathComponent("lib/systemd/system/passconduit-milter.service"), encoding: .utf8)
            .replacingOccurrences(of: "\\\n", with: " ")
        func values(_ key: String) -> [String] {
            unitText.split(separator: "\n").filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        let state = root.appendingPathComponent("var/lib/passconduit").path
        let port = MilterKit.freePort()
        let execStart = try XCTUnwrap(values("ExecStart").first)
        var arguments = execStart.split(separator: " ").map { word -> String in
            word.replacingOccurrences(of: "%%", with: "%").replacingOccurrences(of: "/var/lib/passconduit", with: state)
                .replacingOccurrences(of: "inet:10025@", with: "inet:\(port)@")
        }
        XCTAssertEqual(arguments.first, "/usr/bin/passconduit")
        arguments[0] = root.appendingPathComponent("usr/bin/passconduit").path
        XCTAssertTrue(arguments.contains("inet:\(port)@127.0.0.1"), execStart)
        let user = try XCTUnwrap(passwd.split(separator: "\n").first { $0.hasPrefix("passconduit:") }?.split(separator: ":", omittingEmptySubsequences: false))
        let (uid, gid) = (String(user[2]), String(user[3]))
        XCTAssertNotEqual(uid, "0")
        var environment = ["PATH": "/usr/bin:/bin", "HOME": state, "LANG": "C.UTF-8",
                           "LD_LIBRARY_PATH": "/opt/swift/usr/lib/swift/linux"]
        for assignment in values("Environment") {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { environment[parts[0]] = parts[1].replacingOccurrences(of: "/var/lib/passconduit", with: state) }
        }
        let umask = try XCTUnwrap(values("UMask").first)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid", uid, "--regid", gid, "--clear-groups", "--no-new-privs", "--bounding-set", "-all",
                             "--inh-caps", "-all", "--ambient-caps", "-all", "--",
                             "/bin/sh", "-c", "umask \(umask) && exec \"$@\"", "sh"] + arguments
        process.environment = environment
        let out = scratch.appendingPathComponent("milter.out")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        let handle = try FileHandle(forWritingTo: out)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        XCTAssertTrue(MilterKit.waitUntil(30) { MilterKit.isListening(port) || !process.isRunning } && process.isRunning,
                      (try? String(contentsOf: out, encoding: .utf8)) ?? "")
        let home = scratch.appendingPathComponent("miltertest")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let message = FilterMail.message(passes: [(name: "ticket.pkpass", bytes: try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true)
        let answer = try GatewayMilter.send(message, to: ["alice@example.org"], port: port, scratch: home)
        XCTAssertTrue(answer.contains("reply=continue"), answer)
        // Without the test CA the sample pass is intact but untrusted: scanned, verified, said so.
        XCTAssertTrue(answer.contains("summary 0: 1 pass (1 untrusted)") || answer.contains("summary 0:1 pass (1 untrusted)"), answer)

        // The daemon (setpriv and sh exec'd into it) and its idle scan worker.
        let worker = MilterKit.child(of: process.processIdentifier)
        XCTAssertNotNil(worker, "no scan worker below the daemon")
        for pid in [process.processIdentifier] + (worker.map { [$0] } ?? []) {
            let s = MilterKit.procStatus(pid)
            XCTAssertEqual(s["Uid"], "\(uid) \(uid) \(uid) \(uid)", "pid \(pid)")
            XCTAssertEqual(s["Gid"], "\(gid) \(gid) \(gid) \(gid)", "pid \(pid)")
            XCTAssertEqual(s["Groups"] ?? "", "", "pid \(pid)")
            XCTAssertEqual(s["NoNewPrivs"], "1", "pid \(pid)")
            XCTAssertEqual(s["CapBnd"], "0000000000000000", "pid \(pid)")
            XCTAssertEqual(s["CapEff"], "0000000000000000", "pid \(pid)")
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, (try? String(contentsOf: out, encoding: .utf8)) ?? "")
    }
}
