import Foundation
import XCTest

/// The desktop channel (issue 43 item 2): a private session bus (`dbus-daemon --session`) with a
/// notification service on it (update-peer/notification_listener.py, which speaks the wire
/// protocol itself) receives the notice once, by the `gdbus call` passconduit spawns.
final class DesktopNoticeTests: XCTestCase {
    func testTheNoticeReachesTheSessionBusNotificationServiceOnce() throws {
        let sandbox = try Sandbox()
        let now = Date()
        let serial = "DESK-\(UUID().uuidString.prefix(8))"
        let v1 = try UpdateKit.pass(serial: serial, webServiceURL: nil, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: nil, gate: "B22", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)
        let folder = sandbox.dir.appendingPathComponent("config/passconduit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "[notices]\nenabled = true\nmail = false\ndesktop = true\n"
            .write(to: folder.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)

        let socket = sandbox.dir.appendingPathComponent("bus").path
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(socket)"]
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { daemon.terminate(); daemon.waitUntilExit() }
        let address = "unix:path=\(socket)"
        let out = sandbox.dir.appendingPathComponent("notifications").path
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        listener.arguments = [UpdateKit.scripts.appendingPathComponent("notification_listener.py").path, address, out]
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(20_000) }
        try listener.run()
        defer { listener.terminate(); listener.waitUntilExit() }
        while !FileManager.default.fileExists(atPath: out + ".ready") && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + ".ready"), "the listener owns the name")

        XCTAssertEqual(try sandbox.run("add", ["--yes", v2.path]).status, 0)
        let bus = ["DBUS_SESSION_BUS_ADDRESS": address]
        var r = try sandbox.run("notices", ["--send"], environment: bus)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 to the desktop"), r.stdout)
        r = try sandbox.run("notices", ["--send"], environment: bus)
        XCTAssertTrue(r.stdout.contains("0 to the desktop"), r.stdout)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1, lines.description)
        let shown = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: String])
        XCTAssertEqual(shown["app"], "passconduit")
        XCTAssertEqual(shown["summary"], "Gate changed to B22.")
        XCTAssertTrue(shown["body"]?.hasPrefix("Gate changed to B22.\n") ?? false, shown.description)
        XCTAssertEqual(shown["actions"], "default|Open the card", "a click on it opens the card")

        // The click: the service broadcasts ActionInvoked(id, "default"); the watcher that
        // notices --send left behind runs `passconduit open` on the pass, whose xdg-open (here a
        // script that notes what it is given) gets the card's page, once.
        let opened = sandbox.dir.appendingPathComponent("opened")
        let bin = sandbox.dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"$1\" >> \(opened.path)\n".write(to: bin.appendingPathComponent("xdg-open"), atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin.appendingPathComponent("xdg-open").path)
        let serial2 = serial + "-2"
        let w1 = try UpdateKit.pass(serial: serial2, webServiceURL: nil, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let w2 = try UpdateKit.pass(serial: serial2, webServiceURL: nil, gate: "C3", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes", w1.path]).status, 0)
        XCTAssertEqual(try sandbox.run("add", ["--yes", w2.path]).status, 0)
        let environment = bus.merging(["PATH": bin.path + ":/usr/bin:/bin", "TMPDIR": sandbox.dir.path]) { _, new in new }
        r = try sandbox.run("notices", ["--send"], environment: environment)
        XCTAssertTrue(r.stdout.contains("1 to the desktop"), r.stdout + r.stderr)
        FileManager.default.createFile(atPath: out + ".click", contents: nil)
        let clickDeadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: opened.path) && Date() < clickDeadline { usleep(50_000) }
        usleep(1_000_000)   // more clicks keep coming: nothing more opens
        try FileManager.default.removeItem(atPath: out + ".click")
        let pages = try String(contentsOf: opened, encoding: .utf8).split(separator: "\n")
        let w2SHA = String(decoding: try UpdateKit.run("/usr/bin/sha256sum", [w2.path]), as: UTF8.self).prefix(64)
        XCTAssertEqual(pages.count, 1, pages.description)
        XCTAssertTrue(pages.first?.hasSuffix("/pass-\(w2SHA.prefix(12)).html") ?? false, pages.description)
        let page = try String(contentsOfFile: String(try XCTUnwrap(pages.first)), encoding: .utf8)
        XCTAssertTrue(page.contains("C3"), "the card of the changed pass")
    }
}
