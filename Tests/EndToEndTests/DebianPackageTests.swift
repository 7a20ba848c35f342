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

    func build(version: String? = nil) throws -> String {
        let run = try MilterKit.run(Run.root.appendingPathComponent("script/build-deb").path,
                                    ["--binary", Binary.url.path, "--out", scratch.path] + (version.map { ["--version", $0] } ?? []))
        XCTAssertEqual(run.status, 0, run.output)
        return try XCTUnwrap(run.output.split(separator: "\n").last.map(String.init), run.output)
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
                     "./usr/share/applications/passconduit.desktop", "./usr/share/mime/packages/passconduit.xml"] {
            XCTAssertTrue(contents.contains(" \(path)"), "\(path) missing from the package:\n\(contents)")
        }
        XCTAssertEqual(try MilterKit.run("/usr/bin/dpkg-deb", ["--field", deb, "Version"]).output, "0.1.0\n")
        XCTAssertEqual(try MilterKit.run("/usr/bin/dpkg-deb", ["--info", deb, "conffiles"]).output, "/etc/passconduit/config.toml\n")
        // The installed unit runs the installed binary.
        let unit = try MilterKit.run("/bin/sh", ["-c", "dpkg-deb --fsys-tarfile '\(deb)' | tar -xO ./lib/systemd/system/passconduit-milter.service"]).output
        XCTAssertTrue(unit.contains("ExecStart=/usr/bin/passconduit milter"), unit)
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
        XCTAssertEqual(installed, ["passconduit-milter.service", "passconduit-web.service"])
        let verify = try MilterKit.run("/usr/bin/systemd-analyze", ["verify", "--root=\(root.path)"] + installed.map { root.appendingPathComponent("lib/systemd/system/" + $0).path },
                                       environment: ["MANPATH": root.appendingPathComponent("usr/share/man").path, "PATH": "/usr/bin:/bin",
                                                     "SYSTEMD_LOG_LEVEL": "notice"])
        XCTAssertEqual(verify.status, 0, verify.output)
        XCTAssertEqual(verify.output.trimmingCharacters(in: .whitespacesAndNewlines), "", "systemd-analyze verify: \(verify.output)")
        let passwd = try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8)
        XCTAssertTrue(passwd.contains("passconduit:"), "no system user: \(passwd)")
        XCTAssertTrue(exists("var/lib/passconduit"), "no state folder")
        // Configuring twice changes nothing (idempotent maintainer scripts).
        let again = try MilterKit.run("/bin/sh", [root.appendingPathComponent("var/lib/dpkg/info/passconduit.postinst").path, "configure", "0.1.0"],
                                      environment: ["DPKG_ROOT": root.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("etc/passwd"), encoding: .utf8), passwd)

        // A local edit of the conffile survives an upgrade that ships the same file.
        let config = root.appendingPathComponent("etc/passconduit/config.toml")
        let edited = try String(contentsOf: config, encoding: .utf8) + "\n# edited on this host\n"
        try edited.write(to: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("var/lib/passconduit/alice@example.org"), withIntermediateDirectories: true)
        _ = try dpkg(["--install", try build(version: "0.1.1")])
        XCTAssertEqual(try String(contentsOf: config, encoding: .utf8), edited)
        XCTAssertTrue(try MilterKit.run("/usr/bin/dpkg-query", ["--admindir=\(root.path)/var/lib/dpkg", "-W", "-f=${Version}", "passconduit"]).output == "0.1.1")

        // remove: program gone, configuration and libraries kept.
        _ = try dpkg(["--remove", "passconduit"])
        XCTAssertFalse(exists("usr/bin/passconduit"))
        XCTAssertTrue(exists("etc/passconduit/config.toml"))
        XCTAssertTrue(exists("var/lib/passconduit/alice@example.org"))
        // purge: both gone, nothing asked.
        _ = try dpkg(["--purge", "passconduit"])
        XCTAssertFalse(exists("etc/passconduit"))
        XCTAssertFalse(exists("var/lib/passconduit"))
    }
}
