import Foundation
import XCTest

/// Issue 38 item 5 (operator trial D3): the Debian package's /etc/passconduit/config.toml was never
/// read — the units pass no --config and the program looked only in ~/.config — so a trust folder
/// added there changed nothing. Without --config the search is `$XDG_CONFIG_HOME/passconduit/config.toml`,
/// then `/etc/passconduit/config.toml`; here the system file is in the sandbox (PASSCONDUIT_SYSTEM_CONFIG,
/// which only tests set, stands for /etc/passconduit/config.toml).
final class SystemConfigTests: XCTestCase {
    var sandbox: Sandbox!
    var systemConfig: URL!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        systemConfig = URL(fileURLWithPath: try XCTUnwrap(sandbox.environment["PASSCONDUIT_SYSTEM_CONFIG"]))
        try FileManager.default.createDirectory(at: systemConfig.deletingLastPathComponent(), withIntermediateDirectories: true)
    }

    override func tearDown() { sandbox = nil }

    func writeSystemConfig(_ text: String) throws {
        try text.write(to: systemConfig, atomically: true, encoding: .utf8)
    }

    /// With no user config, the system file's trust folder makes the sample valid (not untrusted),
    /// and both checks name the file they read; a user config, when there is one, wins.
    func testTheSystemConfigIsReadWhenNoUserConfigExists() throws {
        try writeSystemConfig("[trust]\ndirectories = [\"\(Run.sample("ca/trust"))\"]\n")
        let library = ["--library", sandbox.library]
        let scan = try sandbox.run("scan", library + ["--json", Run.sample("passes/event-ticket.pkpass")], common: false)
        XCTAssertEqual(scan.objects.first?["status"] as? String, "valid", scan.stdout + scan.stderr)

        let filter = try sandbox.run("filter", ["--check"], common: false)
        XCTAssertEqual(filter.status, 0, filter.stderr)
        XCTAssertTrue(filter.stdout.contains(systemConfig.path), filter.stdout)
        XCTAssertTrue(filter.stdout.contains(Run.sample("ca/trust")), filter.stdout)

        let milter = try sandbox.run("milter", ["--listen", "inet:1@127.0.0.1", "--check"], common: false)
        XCTAssertEqual(milter.status, 0, milter.stdout + milter.stderr)
        XCTAssertTrue(milter.stdout.contains("  config       \(systemConfig.path)\n"), milter.stdout)
        XCTAssertTrue(milter.stdout.contains(Run.sample("ca/trust")), milter.stdout)

        // The user's own file is read instead of the system's.
        let user = sandbox.dir.appendingPathComponent("config/passconduit/config.toml")
        try FileManager.default.createDirectory(at: user.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[filter]\nadd-headers = true\n".write(to: user, atomically: true, encoding: .utf8)
        let mine = try sandbox.run("scan", library + ["--json", Run.sample("passes/event-ticket.pkpass")], common: false)
        XCTAssertEqual(mine.objects.first?["status"] as? String, "untrusted", mine.stdout + mine.stderr)
    }

    /// `serve` takes its address and trust from the system file's [serve] and [trust] sections
    /// when its command line does not say; a flag wins over the setting.
    func testServeTakesItsSettingsFromTheServeSection() throws {
        let socket = sandbox.dir.appendingPathComponent("web.sock")
        try writeSystemConfig("""
            [trust]
            directories = ["\(Run.sample("ca/trust"))"]

            [serve]
            listen = "unix:\(socket.path)"
            """)
        let server = try WebServeTests.Server(sandbox, ["--library", sandbox.library], common: false)
        XCTAssertTrue(MilterKit.waitUntil(30) { server.text.contains("Sign in: ") || server.text.contains("Listening on ") || !server.process.isRunning },
                      server.text)
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket.path), server.text)
        server.process.terminate()
        server.process.waitUntilExit()

        // The flag wins.
        let flagged = try WebServeTests.Server(sandbox, ["--library", sandbox.library, "--listen", "127.0.0.1:0"], common: false)
        try flagged.started()
        XCTAssertTrue(flagged.base.hasPrefix("http://127.0.0.1:"), flagged.text)

        // A mistake in the section is named with its file and line.
        try writeSystemConfig("[serve]\nlisten = 8080\n")
        let broken = try sandbox.run("serve", ["--library", sandbox.library], common: false)
        XCTAssertEqual(broken.status, 78, broken.stderr)
        XCTAssertTrue(broken.stderr.contains("\(systemConfig.path):2: serve.listen: expected a string"), broken.stderr)
    }
}
