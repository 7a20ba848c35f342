import Foundation
import XCTest

/// The web wallet's "What changed" (issue 43 item 2): a newer version added over an older one
/// (the add path, as the filter and the upload take one) shows its change message on the pass
/// list, escaped, marked new the first time and not the next.
final class WebNoticeTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    func testWhatChangedListsTheChangeEscapedAndNewOnlyUntilShown() throws {
        let sandbox = try Sandbox()
        let now = Date()
        let serial = "WEB-\(UUID().uuidString.prefix(8))"
        let v1 = try UpdateKit.pass(serial: serial, webServiceURL: nil, signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: nil, gate: "<b>B22</b>", signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes", v1.path]).status, 0)
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        var list = try WebServeTests.curl(server.base + "/", jar: jar)
        XCTAssertFalse(list.text.contains("What changed"), "nothing changed yet")

        let added = try sandbox.run("add", ["--yes", v2.path])
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        list = try WebServeTests.curl(server.base + "/", jar: jar)
        XCTAssertEqual(list.status, 200)
        XCTAssertTrue(list.text.contains("<h2 id=\"changed\">What changed</h2>"), list.text)
        XCTAssertTrue(list.text.contains("<strong class=\"mark\">New</strong>"), list.text)
        XCTAssertTrue(list.text.contains("Gate changed to &lt;b&gt;B22&lt;/b&gt;."), list.text)
        XCTAssertFalse(list.text.contains("<b>B22</b>"), list.text)
        let v2SHA = String(decoding: try UpdateKit.run("/usr/bin/sha256sum", [v2.path]), as: UTF8.self).prefix(64)
        XCTAssertFalse(v2SHA.isEmpty)
        // Linked to the pass's own address (issue 41 item 6), which its update kept; and marked
        // on the list as updated since this browser's last look at it, once.
        let listed = try XCTUnwrap(sandbox.run("list", ["--json"]).objects.first)
        let address = try WebServeTests.address(listed["passTypeIdentifier"] as? String ?? "", serial)
        XCTAssertTrue(list.text.contains("<a href=\"/passes/\(address)\">"), list.text)
        XCTAssertTrue(list.text.contains(" <strong class=\"mark changed\">updated</strong></a></li>"), list.text)
        list = try WebServeTests.curl(server.base + "/", jar: jar)
        XCTAssertTrue(list.text.contains("Gate changed to &lt;b&gt;B22&lt;/b&gt;."), list.text)
        XCTAssertFalse(list.text.contains("<strong class=\"mark\">New</strong>"), "seen once: \(list.text)")
        XCTAssertFalse(list.text.contains("mark changed"), "seen once: \(list.text)")
    }
}
