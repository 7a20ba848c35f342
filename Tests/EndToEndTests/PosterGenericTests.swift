import Foundation
import XCTest

/// Issue 40, the first promise: iOS 27's `posterGeneric` is a style key like the others. A pass
/// whose only style is `posterGeneric` opens in Wallet 27, so it is valid here too (it was refused
/// as "none of boardingPass, coupon, eventTicket, generic, storeCard"); one that also carries a
/// classic style, as Apple asks for older devices, keeps that style as its kind; its
/// member name (primary and footer fields) never survives `export --scrub`. And issue 40 item 4:
/// `render --no-barcode` and `scan --render --no-barcode` leave the barcode out of the picture.
final class PosterGenericTests: XCTestCase {
    nonisolated(unsafe) static let poster: [String: Any] = [
        "headerFields": [["key": "tier", "label": "TIER", "value": "Patron"]],
        "primaryFields": [["key": "member", "value": "Ada Lovelace"]],
        "footerFields": [["key": "since", "label": "MEMBER SINCE", "value": "Ada-2019-Gold"]],
    ]

    func testAPosterGenericOnlyPassIsValidDrawnAndScrubbed() throws {
        let sandbox = try Sandbox()
        let pass = sandbox.dir.appendingPathComponent("museum.pkpass")
        try HandOn.forge(set: ["serialNumber": "POSTER-1", "posterGeneric": Self.poster], remove: ["eventTicket"], to: pass)

        let scan = try sandbox.run("scan", ["--json", pass.path])
        XCTAssertEqual(scan.status, 0, scan.stdout + scan.stderr)
        let found = try XCTUnwrap(scan.objects.first, scan.stdout)
        XCTAssertEqual(found["status"] as? String, "valid", scan.stdout)
        let info = try XCTUnwrap(found["pass"] as? [String: Any], scan.stdout)
        XCTAssertEqual(info["kind"] as? String, "posterGeneric")
        XCTAssertFalse(scan.stdout.contains("none of boardingPass"), scan.stdout)

        // The card shows the member and the footer field.
        let html = sandbox.dir.appendingPathComponent("card.html")
        let render = try sandbox.run("render", [pass.path, "-o", html.path])
        XCTAssertEqual(render.status, 0, render.stderr)
        let page = try String(contentsOf: html, encoding: .utf8)
        XCTAssertTrue(page.contains("Ada Lovelace"), "the primary field is drawn")
        XCTAssertTrue(page.contains("Ada-2019-Gold"), "the footer field is drawn")
        XCTAssertFalse(page.contains("NOT VERIFIED"), "a valid pass carries no warning band")

        // The library takes it; the scrubbed copy names nobody.
        XCTAssertEqual(try sandbox.run("add", ["--yes", pass.path]).status, 0)
        let copy = sandbox.dir.appendingPathComponent("report.pkpass")
        let export = try sandbox.run("export", ["pass.org.passconduit.event/POSTER-1", "--scrub", "-o", copy.path])
        XCTAssertEqual(export.status, 0, export.stderr)
        let json = try HandOn.run("/usr/bin/python3", ["-c", "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('pass.json').decode())", copy.path])
        XCTAssertEqual(json.status, 0, json.stderr)
        for secret in ["Lovelace", "2019-Gold"] {
            XCTAssertFalse(json.stdout.contains(secret), "\(secret) survived the scrub: \(json.stdout)")
        }
        XCTAssertTrue(json.stdout.contains("posterGeneric"), "the copy keeps its shape")
    }

    /// With a classic style beside it (Apple's advice for devices before iOS 27) the pass's kind
    /// is that style (what older devices show); it is drawn as Wallet 27 draws it, a poster
    /// generic pass (NewLayoutCardTests).
    func testWithAClassicFallbackTheClassicStyleIsDrawn() throws {
        let sandbox = try Sandbox()
        let pass = sandbox.dir.appendingPathComponent("both.pkpass")
        try HandOn.forge(set: ["serialNumber": "POSTER-2", "posterGeneric": Self.poster], to: pass)
        let scan = try sandbox.run("scan", ["--json", pass.path])
        let found = try XCTUnwrap(scan.objects.first, scan.stdout)
        XCTAssertEqual(found["status"] as? String, "valid", scan.stdout)
        XCTAssertEqual((found["pass"] as? [String: Any])?["kind"] as? String, "eventTicket")
        XCTAssertEqual((found["pass"] as? [String: Any])?["kindName"] as? String, "Event Ticket (a Poster Pass on iOS 27)", "show and the list name both")
    }

    func testNoBarcodeLeavesTheCodeAndItsTextOutOfThePicture() throws {
        let sandbox = try Sandbox()
        let pass = Run.sample("passes/boarding-pass.pkpass")
        let read = try HandOn.run("/usr/bin/python3", ["-c", """
            import json, sys, zipfile
            p = json.loads(zipfile.ZipFile(sys.argv[1]).read('pass.json'))
            sys.stdout.write((p.get('barcodes') or [p.get('barcode')])[0]['message'])
            """, pass])
        let message = read.stdout
        XCTAssertGreaterThan(message.count, 4)

        let with = sandbox.dir.appendingPathComponent("with.html"), without = sandbox.dir.appendingPathComponent("without.html")
        XCTAssertEqual(try sandbox.run("render", [pass, "-o", with.path]).status, 0)
        XCTAssertEqual(try sandbox.run("render", [pass, "--no-barcode", "-o", without.path]).status, 0)
        let full = try String(contentsOf: with, encoding: .utf8), bare = try String(contentsOf: without, encoding: .utf8)
        XCTAssertTrue(full.contains("<svg"), "the usual card draws the barcode")
        XCTAssertTrue(bare.contains("Barcode left out"), bare)
        XCTAssertFalse(bare.contains("role=\"img\" aria-label=") && bare.contains("data-format="), "no barcode drawing")
        XCTAssertFalse(bare.contains(message), "the barcode's message is in the page")

        // The PDF's text has neither the message nor a barcode zxing could find in its picture.
        let pdf = sandbox.dir.appendingPathComponent("without.pdf")
        XCTAssertEqual(try sandbox.run("render", [pass, "--no-barcode", "-o", pdf.path]).status, 0)
        let text = try HandOn.run("/usr/bin/pdftotext", [pdf.path, "-"])
        XCTAssertTrue(text.stdout.contains("Barcode left out"), text.stdout)
        XCTAssertFalse(text.stdout.contains(message))

        // scan --render: the picture a bridge posts.
        let dir = sandbox.dir.appendingPathComponent("pictures")
        let scan = try sandbox.run("scan", ["--json", "--render", dir.path, "--no-barcode", pass])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        let picture = try XCTUnwrap(scan.objects.first?["render"] as? String, scan.stdout)
        let decoded = try HandOn.run("/usr/bin/python3", ["-c", """
            import sys, zxingcpp
            from PIL import Image
            print(len(zxingcpp.read_barcodes(Image.open(sys.argv[1]))))
            """, picture])
        XCTAssertEqual(decoded.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "0", decoded.stderr)

        // Where it cannot mean anything: a usage error.
        XCTAssertEqual(try sandbox.run("render", [pass, "--no-barcode", "--format", "terminal"]).status, 64)
        XCTAssertEqual(try sandbox.run("scan", ["--json", "--no-barcode", pass]).status, 64)
    }
}
