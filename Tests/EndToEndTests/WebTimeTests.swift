import Foundation
import XCTest

/// Issue 41 item 2 (operator trial D6: a 20:00 (+02:00) concert read "18:00", the list "17:00
/// UTC"): dates in the viewer's zone, always named. A concert at 20:00 (+02:00) reads 20:00 in a
/// browser in Berlin and 14:00 EDT in one in New York, on the list's card, in its date and on
/// the pass's card; the history is in the same zone. Without a zone known (no script ran yet) a
/// date is written at the pass's own offset, named; a zone chosen on Settings wins over the
/// browser's. `list` and `show` on the command line, in the same zones (TZ=), agree.
final class WebTimeTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    func concert(_ sandbox: Sandbox) throws {
        let bytes = try FilterPassForge.pass(edits: [
            "serialNumber": "BERLIN-2027", "description": "Berlin concert",
            "relevantDate": "2027-06-12T20:00+02:00", "expirationDate": "2027-06-13T02:00+02:00",
            "eventTicket": ["headerFields": [["key": "date", "label": "DATE", "value": "2027-06-12T20:00+02:00",
                                              "dateStyle": "PKDateStyleMedium", "timeStyle": "PKDateStyleShort"]],
                            "primaryFields": [["key": "event", "label": "EVENT", "value": "The Linux Philharmonic"]],
                            "auxiliaryFields": [["key": "doors", "label": "DOORS", "value": "2027-06-12T19:00+02:00",
                                                 "timeStyle": "PKDateStyleShort", "ignoresTimeZone": true]]],
        ])
        let file = sandbox.dir.appendingPathComponent("concert.pkpass")
        try Data(bytes).write(to: file)
        let added = try sandbox.run("add", ["--yes", file.path])
        XCTAssertEqual(added.status, 0, added.stderr)
    }

    func testWithoutAZoneTheServerWritesThePasssOwnOffsetAndAChosenZoneWins() throws {
        let sandbox = try Sandbox()
        try concert(sandbox)
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        // No zone known: the pass's own +02:00, named; never an unnamed time.
        let list = try WebServeTests.curl(server.base + "/", jar: jar).text
        XCTAssertTrue(list.contains("<span class=\"value\" dir=\"auto\">12 Jun 2027, 20:00 GMT+2</span>"), list)
        XCTAssertTrue(list.contains("<span class=\"date\">Sat 12 Jun 2027, 20:00 GMT+2</span>"), list)
        // The browser's zone from app.js's cookie.
        let york = try WebServeTests.curl(server.base + "/", jar: jar, ["-b", "pcbzone=America/New_York"]).text
        XCTAssertTrue(york.contains(">12 Jun 2027, 14:00 EDT</span>"), york)
        // A zone that is not one is ignored.
        let bad = try WebServeTests.curl(server.base + "/", jar: jar, ["-b", "pcbzone=../../etc\"<x>"]).text
        XCTAssertTrue(bad.contains(">12 Jun 2027, 20:00 GMT+2</span>"), bad)
        // Settings: a zone chosen there wins over the browser's.
        let settings = try WebServeTests.curl(server.base + "/settings", jar: jar).text
        XCTAssertTrue(settings.contains("<option>Asia/Tokyo</option>"), settings)
        let csrf = try XCTUnwrap(settings.range(of: "name=\"csrf\" value=\"").map { String(settings[$0.upperBound...].prefix(while: { $0 != "\"" })) })
        let chose = try WebServeTests.curl(server.base + "/settings/zone", jar: jar, ["--data-urlencode", "csrf=\(csrf)", "--data-urlencode", "zone=Asia/Tokyo"])
        XCTAssertEqual(chose.status, 303)
        XCTAssertTrue(chose.header("Set-Cookie")?.hasPrefix("pczone=Asia/Tokyo; Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict") == true, chose.headers)
        let tokyo = try WebServeTests.curl(server.base + "/", jar: jar, ["-b", "pcbzone=America/New_York"]).text
        XCTAssertTrue(tokyo.contains(">13 Jun 2027, 03:00 GMT+9</span>"), tokyo)
        XCTAssertTrue(try WebServeTests.curl(server.base + "/settings", jar: jar).text.contains("<option selected>Asia/Tokyo</option>"))
        // Settings' own dates too: a token made now says when it stops working, and the list
        // when it was made, in the chosen zone.
        let token = try WebServeTests.curl(server.base + "/settings/tokens", jar: jar,
                                           ["--data-urlencode", "csrf=\(csrf)", "--data-urlencode", "name=script", "--data-urlencode", "expires=1"])
        XCTAssertEqual(token.status, 200, token.text)
        XCTAssertTrue(token.text.contains(" GMT+9):</p>"), token.text)
        XCTAssertTrue(token.text.contains(" GMT+9</td><td>never</td><td>"), token.text)
        let refused = try WebServeTests.curl(server.base + "/settings/zone", jar: jar, ["--data-urlencode", "csrf=\(csrf)", "--data-urlencode", "zone=Mars/Olympus"])
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(try WebServeTests.curl(server.base + "/settings/zone", jar: jar, ["--data-urlencode", "csrf=\(csrf)", "--data-urlencode", "zone="]).status, 303)
        XCTAssertTrue(try WebServeTests.curl(server.base + "/", jar: jar).text.contains(">12 Jun 2027, 20:00 GMT+2</span>"))

        // The command line, in the same zones: the same hours.
        for (zone, hour) in [("Europe/Berlin", "20:00"), ("America/New_York", "14:00")] {
            let show = try sandbox.run("show", ["pass.org.passconduit.event/BERLIN-2027"], environment: ["TZ": zone])
            XCTAssertEqual(show.status, 0, show.stderr)
            XCTAssertTrue(show.stdout.contains("12 Jun 2027, \(hour)"), "\(zone): \(show.stdout)")
            let listed = try sandbox.run("list", [], environment: ["TZ": zone])
            XCTAssertTrue(listed.stdout.contains("12 Jun 2027, \(hour)"), "\(zone): \(listed.stdout)")
        }
    }

    static let script = #"""
    import json, sys
    from playwright.sync_api import sync_playwright
    sign_in = sys.argv[1]
    base = sign_in.split("/login")[0]
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        state = None
        for zone, locale in (("Europe/Berlin", "de-DE"), ("America/New_York", "en-US")):
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, timezone_id=zone, locale=locale, storage_state=state)
            page = ctx.new_page()
            # The first page tells the wallet the browser's zone (app.js); the next is drawn in it.
            page.goto(sign_in if state is None else base + "/")
            page.wait_for_function("() => document.cookie.indexOf('pcbzone=') >= 0")
            page.goto(base + "/")
            got = {"list": page.inner_text("main ul.stack")}
            page.click("a:has-text('Berlin concert')")
            got["card"] = page.inner_text(".cardbox")
            got["history"] = page.inner_text("ol.history")
            out[zone] = got
            if state is None:
                # The same session in the New York browser, without Berlin's zone cookie.
                kept = ctx.storage_state()
                state = {"cookies": [c for c in kept["cookies"] if c["name"] != "pcbzone"], "origins": []}
            ctx.close()
        browser.close()
    print(json.dumps(out))
    """#

    func testInChromiumTheBerlinConcertIsAt2000InBerlinAnd1400EDTInNewYork() throws {
        let python = Run.root.appendingPathComponent(".build-peers/playwright/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("Playwright is missing: run script/setup.d/50-playwright.sh")
            return
        }
        let sandbox = try Sandbox()
        try concert(sandbox)
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let r = try HandOn.run(python, ["-c", Self.script, server.signIn],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.dir.path, "LANG": "C.UTF-8", "TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let berlin = try XCTUnwrap(out["Europe/Berlin"] as? [String: String], "\(out)")
        let york = try XCTUnwrap(out["America/New_York"] as? [String: String], "\(out)")
        // The list's card (its DATE field) and its date line.
        XCTAssertTrue(berlin["list"]?.contains("12 Jun 2027, 20:00 CEST") == true, berlin["list"] ?? "")
        XCTAssertTrue(berlin["list"]?.contains("Sat 12 Jun 2027, 20:00 CEST") == true, berlin["list"] ?? "")
        XCTAssertTrue(york["list"]?.contains("12 Jun 2027, 14:00 EDT") == true, york["list"] ?? "")
        XCTAssertTrue(york["list"]?.contains("Sat 12 Jun 2027, 14:00 EDT") == true, york["list"] ?? "")
        // The pass's card: DATE in the viewer's zone; DOORS (ignoresTimeZone) as the pass wrote it.
        XCTAssertTrue(berlin["card"]?.contains("12 Jun 2027, 20:00 CEST") == true, berlin["card"] ?? "")
        XCTAssertTrue(york["card"]?.contains("12 Jun 2027, 14:00 EDT") == true, york["card"] ?? "")
        XCTAssertTrue(york["card"]?.contains("19:00") == true, "ignoresTimeZone: \(york["card"] ?? "")")
        // The history (when the pass was added, this winter): in the viewer's zone, named.
        XCTAssertTrue(berlin["history"]?.contains(" CET") == true || berlin["history"]?.contains(" CEST") == true, berlin["history"] ?? "")
        XCTAssertTrue(york["history"]?.contains(" EST") == true || york["history"]?.contains(" EDT") == true, york["history"] ?? "")
        XCTAssertFalse((berlin["list"] ?? "").contains("UTC") || (york["list"] ?? "").contains("UTC"))
    }
}
