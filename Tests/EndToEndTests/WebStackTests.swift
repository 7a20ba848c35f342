import Foundation
import XCTest

/// Issue 41 item 1 (operator trial, "the list is not a wallet"): the pass list is Wallet's stack.
/// Each pass is a small card in its own colours with its logo text and the field Wallet shows on
/// the stack (the header field of an event ticket or boarding pass, else the primary field);
/// expired and voided passes are apart, dimmed; passes of one `groupingIdentifier` are stacked in
/// a list of their own. To a screen reader it is a plain list of links (axe-core finds nothing
/// serious), it works with JavaScript off, and a colour in pass.json cannot carry CSS or markup.
final class WebStackTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    /// A library with a store card, an event ticket, a boarding pass, two tickets of one tour
    /// (`groupingIdentifier`), an expired coupon, a voided ticket, and a ticket whose texts and
    /// colour hold markup.
    func library() throws -> (Sandbox, WebServeTests.Server) {
        let sandbox = try Sandbox()
        for name in ["store-card", "event-ticket", "boarding-pass", "coupon"] {
            XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/\(name).pkpass")]).status, 0)
        }
        let forged: [(String, [String: Any])] = [
            ("event-ticket.pkpass", ["serialNumber": "TOUR-A", "groupingIdentifier": "tour-2037", "description": "Tour night one"]),
            ("event-ticket.pkpass", ["serialNumber": "TOUR-B", "groupingIdentifier": "tour-2037", "description": "Tour night two"]),
            ("event-ticket.pkpass", ["serialNumber": "VOIDED-1", "voided": true, "description": "Old concert"]),
            ("event-ticket.pkpass", ["serialNumber": "MARKUP-1", "organizationName": "<b>Bold</b> & Co",
                                     "description": "<script>alert(1)</script>", "logoText": "<img src=x onerror=alert(2)>",
                                     "backgroundColor": "rgb(1,2,3);background:url(http://evil.example/)\"><i>",
                                     "foregroundColor": "#abc"]),
        ]
        for (base, edits) in forged {
            let bytes = try FilterPassForge.pass(from: base, edits: edits)
            let file = sandbox.dir.appendingPathComponent("\(edits["serialNumber"]!).pkpass")
            try Data(bytes).write(to: file)
            let added = try sandbox.run("add", ["--yes", file.path])
            XCTAssertEqual(added.status, 0, added.stderr)
        }
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        return (sandbox, server)
    }

    func testTheListIsAStackOfCardsInEachPasssColoursWithGroupsAndPastPassesApart() throws {
        let (sandbox, server) = try library()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        let list = try WebServeTests.curl(server.base + "/", jar: jar)
        XCTAssertEqual(list.status, 200)
        let html = list.text
        // The store card: its colours (written back as #rrggbb), its logo (organization), its primary field.
        XCTAssertTrue(html.contains("<li class=\"card\" style=\"--pbg:#1e3a8a;--pfg:#f8fafc;--plb:#93c5fd\">"), html)
        XCTAssertTrue(html.contains("<span class=\"logo\" dir=\"auto\">Passconduit Coffee</span> <span class=\"field\"><span class=\"label\" dir=\"auto\">BALANCE</span>"), html)
        // The event ticket and the boarding pass: the header field (DATE, GATE), its logo text.
        XCTAssertTrue(html.contains("--pbg:#3c414c;--pfg:#ffffff;--plb:#c8c8c8"), html)
        XCTAssertTrue(html.contains("<span class=\"logo\" dir=\"auto\">Passconduit Arena</span> <span class=\"field\"><span class=\"label\" dir=\"auto\">DATE</span>"), html)
        XCTAssertTrue(html.contains("<span class=\"label\" dir=\"auto\">GATE</span> <span class=\"value\" dir=\"auto\">A26</span>"), html)
        // The two tickets of one tour, stacked in a list of their own.
        let grouped = try XCTUnwrap(html.range(of: "<ul class=\"stack grouped\" aria-label=\"2 passes of one trip or order\">"), html)
        let groupEnd = try XCTUnwrap(html.range(of: "</ul></li>", range: grouped.upperBound..<html.endIndex))
        let group = String(html[grouped.upperBound..<groupEnd.lowerBound])
        XCTAssertEqual(group.components(separatedBy: "<li class=\"card\"").count - 1, 2, group)
        XCTAssertTrue(group.contains("Tour night one") && group.contains("Tour night two"), group)
        // Past passes apart, in a section drawn dimmed: the expired coupon, the voided card.
        let past = try XCTUnwrap(html.range(of: "<section aria-labelledby=\"expired\" class=\"past\">"), html)
        let pastHTML = String(html[past.upperBound...])
        XCTAssertTrue(pastHTML.contains("20% off one cake") && pastHTML.contains("Old concert"), pastHTML)
        XCTAssertFalse(String(html[..<past.lowerBound]).contains("Old concert"))
        XCTAssertTrue(pastHTML.contains("<span class=\"mark\">voided</span>") && pastHTML.contains("<span class=\"mark\">expired</span>"))
        // Markup in the pass is text; a colour that is not one is dropped, a short one written out.
        XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(2)&gt;"), html)
        XCTAssertTrue(html.contains("&lt;b&gt;Bold&lt;/b&gt; &amp; Co") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertFalse(html.contains("<img src=x") || html.contains("<b>Bold") || html.contains("evil.example") || html.contains("<i>"))
        // Without a background colour the card takes the page's colours (the issuer's text colour
        // was chosen for a background that is not there).
        XCTAssertTrue(html.contains("<li class=\"card plain\" data-expires="), html)
        XCTAssertFalse(html.contains("#aabbcc"), html)
        // The style sheet draws them; the CSP is the one every page has.
        let css = try WebServeTests.curl(server.base + "/style.css").text
        XCTAssertTrue(css.contains("ul.stack li.card { background: var(--pbg, var(--panel)); color: var(--pfg, var(--fg));"), css)
        XCTAssertEqual(list.header("Content-Security-Policy")?.contains("style-src 'self' 'unsafe-inline'"), true)
    }

    static let script = #"""
    import json, sys
    from playwright.sync_api import sync_playwright
    from axe_playwright_python.sync_playwright import Axe
    from PIL import Image
    sign_in, workdir = sys.argv[1], sys.argv[2]
    base = sign_in.split("/login")[0]
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, java_script_enabled=False)
        page = ctx.new_page()
        console = []
        page.on("console", lambda m: console.append(m.type + ": " + m.text))
        page.goto(sign_in)
        out["title"] = page.title()
        page.screenshot(path=workdir + "/stack.png", full_page=True)
        # The store card's pixels: its background colour, away from its text.
        card = page.locator("li.card:has-text('Coffee club card')")
        box = card.bounding_box()
        img = Image.open(workdir + "/stack.png").convert("RGB")
        out["cardPixel"] = list(img.getpixel((int(box["x"] + box["width"] / 2), int(box["y"] + box["height"] - 4))))
        out["cardComputed"] = card.evaluate("e => getComputedStyle(e).backgroundColor")
        # A plain list to a screen reader: the accessibility tree's lists and links.
        out["listItems"] = page.locator("main ul.stack > li").count()
        out["links"] = page.locator("main ul.stack a").count()
        out["scrollWidth"] = page.evaluate("() => document.documentElement.scrollWidth")
        page.close()
        ctx.close()
        ctx = browser.new_context(viewport={"width": 390, "height": 844})
        page = ctx.new_page()
        page.goto(base + "/")
        found = Axe().run(page).response["violations"]
        out["violations"] = [v["id"] + " " + json.dumps([n["target"] for n in v["nodes"][:3]]) for v in found if v.get("impact") in ("serious", "critical")]
        page.emulate_media(color_scheme="dark")
        found = Axe().run(page).response["violations"]
        out["violationsDark"] = [v["id"] for v in found if v.get("impact") in ("serious", "critical")]
        out["console"] = console
        browser.close()
    print(json.dumps(out))
    """#

    /// In Chromium at a phone's width, with JavaScript off: the card's pixels are its pass's
    /// background; every pass is a list item with one link; axe-core finds no serious or critical
    /// problem (light and dark); nothing scrolls sideways. The screenshot is copied to
    /// `$PASSCONDUIT_SHOTS/stack.png` when that is set.
    func testTheStackInChromiumCarriesEachPasssColourAndIsAPlainAccessibleList() throws {
        let python = Run.root.appendingPathComponent(".build-peers/playwright/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("Playwright is missing: run script/setup.d/50-playwright.sh")
            return
        }
        let (sandbox, server) = try library()
        let r = try HandOn.run(python, ["-c", Self.script, server.signIn, sandbox.dir.path],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.dir.path, "LANG": "C.UTF-8", "TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        if let shots = ProcessInfo.processInfo.environment["PASSCONDUIT_SHOTS"] {
            try? FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: shots + "/stack.png")
            try? FileManager.default.copyItem(atPath: sandbox.dir.path + "/stack.png", toPath: shots + "/stack.png")
        }
        XCTAssertEqual(out["title"] as? String, "Your passes · passconduit")
        // #1e3a8a is rgb(30, 58, 138).
        XCTAssertEqual(out["cardComputed"] as? String, "rgb(30, 58, 138)")
        let pixel = out["cardPixel"] as? [Int] ?? []
        XCTAssertEqual(pixel.count, 3)
        XCTAssertTrue(zip(pixel, [30, 58, 138]).allSatisfy { abs($0 - $1) <= 3 }, "the card's pixel is its background colour: \(pixel)")
        // Two sections: five current items (one of them the group of two), two past ones; a link per pass.
        XCTAssertEqual(out["listItems"] as? Int, 9)
        XCTAssertEqual(out["links"] as? Int, 8)
        XCTAssertEqual(out["scrollWidth"] as? Int, 390)
        XCTAssertEqual(out["violations"] as? [String], [])
        XCTAssertEqual(out["violationsDark"] as? [String], [])
        XCTAssertEqual(out["console"] as? [String], [])
    }
}
