import Foundation
import XCTest

/// Issue 40: the HTML cards of the new layouts and the section below them, read by axe-core
/// (axe-playwright-python, as WebBrowserTests reads the web wallet) in Debian's Chromium, light
/// and dark: no serious or critical violation. The pages are `render --format html` files opened
/// from disk: their Content-Security-Policy forbids every script of the page's own; axe is
/// injected by the browser's devtools protocol.
final class CardAccessibilityTests: XCTestCase {
    static let script = #"""
    import json, sys
    from playwright.sync_api import sync_playwright
    from axe_playwright_python.sync_playwright import Axe
    pages = json.loads(sys.argv[1])
    axe = Axe()
    out = {"checked": [], "violations": {}, "below": {}}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for scheme in ("light", "dark"):
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
            page = ctx.new_page()
            for path in pages:
                page.goto("file://" + path)
                name = path.rsplit("/", 1)[1] + " " + scheme
                out["checked"].append(name)
                out["below"][name] = page.locator("section.below").count()
                found = axe.run(page).response["violations"]
                bad = [v["id"] + " " + json.dumps([n["target"] for n in v["nodes"][:3]])
                       for v in found if v.get("impact") in ("serious", "critical")]
                if bad:
                    out["violations"][name] = bad
            ctx.close()
        browser.close()
    print(json.dumps(out))
    """#

    func testNewLayoutCardsAndTheSectionBelowThemHaveNoSeriousViolations() throws {
        let python = Run.root.appendingPathComponent(".build-peers/playwright/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("Playwright is missing: run script/setup.d/50-playwright.sh")
            return
        }
        let sandbox = try Sandbox()
        // Every new layout, the section below with each of its parts (featured actions, links,
        // upcoming events, the venue map, Additional Info, markup in every text), and a classic
        // card for comparison.
        let samples = ["layout-passes/poster-event-guide.pkpass", "layout-passes/poster-sports.pkpass",
                       "layout-passes/poster-live.pkpass", "layout-passes/semantic-boarding.pkpass",
                       "layout-passes/poster-generic.pkpass", "layout-passes/poster-generic-only.pkpass",
                       "layout-passes/hostile-below.pkpass", "passes/event-ticket.pkpass"]
        var pages: [String] = []
        for sample in samples {
            let out = sandbox.dir.appendingPathComponent(sample.replacingOccurrences(of: "/", with: "-") + ".html").path
            let run = try sandbox.run("render", ["--format", "html", "--side", "both", "-o", out, Run.sample(sample)])
            XCTAssertEqual(run.status, 0, "\(sample): \(run.stderr)")
            pages.append(out)
        }
        let united = Run.root.appendingPathComponent(
            "Tests/WalletPassTests/Fixtures/pkpass-real/kpkpass__apple-store-UA-sample-unsigned-scrubbed.pkpass").path
        let unitedPage = sandbox.dir.appendingPathComponent("united.html").path
        XCTAssertEqual(try sandbox.run("render", ["--format", "html", "--side", "both", "-o", unitedPage, united]).status, 0)
        pages.append(unitedPage)

        let json = String(decoding: try JSONSerialization.data(withJSONObject: pages), as: UTF8.self)
        let r = try HandOn.run(python, ["-c", Self.script, json],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": sandbox.dir.path, "LANG": "C.UTF-8", "TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual((result["checked"] as? [String])?.count, pages.count * 2, r.stdout)
        XCTAssertEqual((result["violations"] as? [String: Any])?.count, 0, "axe-core: \(result["violations"] ?? "")")
        let below = try XCTUnwrap(result["below"] as? [String: Int])
        for name in ["layout-passes-poster-event-guide.pkpass.html", "layout-passes-hostile-below.pkpass.html",
                     "layout-passes-poster-generic.pkpass.html", "united.html"] {
            XCTAssertEqual(below[name + " light"], 1, "\(name) has its section below the card: \(below)")
        }
    }
}
