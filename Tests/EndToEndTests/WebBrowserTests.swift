import Foundation
import XCTest

/// The web wallet in a real browser, once, broadly: Playwright for Python drives Debian's
/// chromium (script/setup.d/50-playwright.sh) at a phone's width. It signs in with the desktop
/// link, lists, searches, accepts an offer the delivery filter staged, opens the pass, and the
/// barcode in a screenshot of the page decodes (zxing-cpp) to the pass's exact message; the
/// `.pkpass` link's bytes are the stored pass; dark mode changes the colours; no page logs a
/// CSP violation or runs a script of its own.
final class WebBrowserTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    static let script = #"""
    import json, sys
    from playwright.sync_api import sync_playwright
    import zxingcpp
    from PIL import Image
    sign_in, workdir = sys.argv[1], sys.argv[2]
    base = sign_in.split("/login")[0]
    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        page = ctx.new_page()
        console = []
        page.on("console", lambda m: console.append(m.type + ": " + m.text))
        page.goto(sign_in)
        out["afterSignIn"] = page.url
        out["listTitle"] = page.title()
        out["listText"] = page.inner_text("main")
        page.screenshot(path=workdir + "/list.png", full_page=True)
        # Search.
        page.fill("input[name=q]", "coffee club")
        page.click("form.search button")
        out["searchText"] = page.inner_text("main")
        # The offer the filter staged: open, accept.
        page.click("nav >> text=Offers")
        page.click("ul.passes a")
        out["offerText"] = page.inner_text("main")
        page.click("form[action$='/accept'] button")
        out["acceptText"] = page.inner_text("main")
        page.click("main a:has-text('Open the pass')")
        out["passURL"] = page.url
        page.screenshot(path=workdir + "/pass.png", full_page=True)
        page.locator("figure svg").first.screenshot(path=workdir + "/barcode.png")
        img = Image.open(workdir + "/barcode.png").convert("L")
        found = zxingcpp.read_barcodes(img)
        out["decoded"] = [r.bytes.hex() for r in found]
        href = page.get_attribute("a:has-text('Add to Apple Wallet')", "href")
        r = ctx.request.get(base + href)
        out["pkpassType"] = r.headers.get("content-type")
        open(workdir + "/got.pkpass", "wb").write(r.body())
        # Dark mode: the same page in the other colour scheme.
        page.emulate_media(color_scheme="light")
        page.goto(base + "/")
        light = page.locator("body").evaluate("b => getComputedStyle(b).backgroundColor")
        page.emulate_media(color_scheme="dark")
        page.goto(base + "/")
        dark = page.locator("body").evaluate("b => getComputedStyle(b).backgroundColor")
        out["colours"] = [light, dark]
        out["scripts"] = page.locator("script").count()
        out["console"] = console
        browser.close()
    print(json.dumps(out))
    """#

    func testSignInListSearchAcceptOpenScanDownloadAndDarkModeInChromium() throws {
        let python = Run.root.appendingPathComponent(".build-peers/playwright/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("Playwright is missing: run script/setup.d/50-playwright.sh")
            return
        }
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/store-card.pkpass")]).status, 0)
        let staged = try sandbox.run("filter", [], stdin: try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/type.eml"))))
        XCTAssertEqual(staged.status, 0, staged.stderr)
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()

        let r = try HandOn.run(python, ["-c", Self.script, server.signIn, sandbox.dir.path],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.dir.path, "LANG": "C.UTF-8", "TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)

        XCTAssertEqual(out["afterSignIn"] as? String, server.base + "/")
        XCTAssertTrue((out["listText"] as? String ?? "").contains("Passconduit Coffee"))
        XCTAssertTrue((out["listText"] as? String ?? "").contains("waiting for you to accept"))
        XCTAssertTrue((out["searchText"] as? String ?? "").contains("Passconduit Coffee"))
        XCTAssertTrue((out["offerText"] as? String ?? "").contains("Accept"))
        XCTAssertTrue((out["acceptText"] as? String ?? "").contains("Added to your library."), "\(out)")
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 2)
        // The QR code of event-ticket.pkpass, read off the screen: its exact message bytes.
        XCTAssertEqual(out["decoded"] as? [String], [Data("EVT-2026-0001|SEAT".utf8).map { String(format: "%02x", $0) }.joined()])
        XCTAssertEqual(out["pkpassType"] as? String, "application/vnd.apple.pkpass")
        XCTAssertEqual(try Data(contentsOf: sandbox.dir.appendingPathComponent("got.pkpass")),
                       try Data(contentsOf: URL(fileURLWithPath: Run.sample("passes/event-ticket.pkpass"))))
        let colours = out["colours"] as? [String] ?? []
        XCTAssertEqual(colours.count, 2)
        XCTAssertNotEqual(colours.first, colours.last, "dark mode changes the page: \(colours)")
        XCTAssertEqual(out["scripts"] as? Int, 0)
        XCTAssertEqual(out["console"] as? [String], [], "no CSP violation or error on any page")
    }
}
