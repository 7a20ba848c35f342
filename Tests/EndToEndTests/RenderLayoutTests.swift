import Foundation
import XCTest

/// Wallet's layout rules as `render` applies them, read from the HTML page (the same `CardModel`
/// draws the PNG, PDF and SVG): which images a style shows and at which scale, the rows of a
/// boarding pass, labels, alignment, values formatted only when a field asks, localization.
final class RenderLayoutTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    /// A PNG of `width` × `height` of one colour (each image distinct, so the page shows which).
    func image(_ width: Int, _ height: Int) throws -> [UInt8] {
        try RenderKit.png(width: width, height: height)
    }

    func page(_ files: [String: [UInt8]], _ args: [String] = [], env: [String: String] = [:]) throws -> (page: String, stderr: String) {
        let name = "layout-\(UUID().uuidString).pkpass"
        let pass = try RenderKit.unsignedPass(files, in: sandbox.dir, name: name)
        let out = sandbox.dir.appendingPathComponent(name + ".html")
        let p = Process()
        p.executableURL = Binary.url
        p.arguments = ["render", pass, "--format", "html", "--verbose", "-o", out.path] + sandbox.common + args
        var environment = sandbox.environment
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let err = Pipe()
        p.standardError = err
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, stderr)
        return (try String(contentsOf: out, encoding: .utf8), stderr)
    }

    func b64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    func testEventTicketShowsTheStripOrElseBackgroundAndThumbnail() throws {
        let strip = try image(375, 98), background = try image(180, 220), thumbnail = try image(90, 90)
        let json = try RenderKit.passJSON(style: "eventTicket", fields: ["primaryFields": [["key": "e", "label": "Event", "value": "Show"]]])
        let both = try page(["pass.json": json, "strip.png": strip, "background.png": background, "thumbnail.png": thumbnail], ["--scale", "1"])
        XCTAssertTrue(both.page.contains(b64(strip)), "the strip is shown")
        XCTAssertFalse(both.page.contains(b64(background)), "no background beside a strip")
        XCTAssertFalse(both.page.contains(b64(thumbnail)), "no thumbnail beside a strip")
        XCTAssertTrue(both.stderr.contains("background and thumbnail images are not shown"), both.stderr)
        let noStrip = try page(["pass.json": json, "background.png": background, "thumbnail.png": thumbnail], ["--scale", "1"])
        XCTAssertTrue(noStrip.page.contains("class=\"bgimg\"") && noStrip.page.contains(b64(background)))
        XCTAssertTrue(noStrip.page.contains("class=\"thumb\"") && noStrip.page.contains(b64(thumbnail)))
    }

    /// A PNG of one colour, made by Python's PIL.
    func colour(_ width: Int, _ height: Int, _ rgb: (Int, Int, Int)) throws -> [UInt8] {
        let r = try RenderKit.python(["-c", "import io, sys; from PIL import Image; b = io.BytesIO(); "
                                      + "Image.new('RGB', (int(sys.argv[1]), int(sys.argv[2])), tuple(map(int, sys.argv[3:6]))).save(b, 'PNG'); "
                                      + "sys.stdout.buffer.write(b.getvalue())", "\(width)", "\(height)", "\(rgb.0)", "\(rgb.1)", "\(rgb.2)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.output
    }

    /// Issue 26 item 9: Wallet's glyph for every transitType (train, bus and boat were all "→"), drawn
    /// as an icon whatever fonts are installed: the column between origin and destination differs per
    /// type and is never empty; the HTML names it for a screen reader.
    func testEveryTransitTypeGetsItsOwnGlyph() throws {
        var columns: [String: String] = [:]
        for type in ["Air", "Train", "Bus", "Boat", "Generic"] {
            let json = try RenderKit.passJSON(style: "boardingPass", fields: [
                "transitType": "PKTransitType" + type,
                "primaryFields": [["key": "o", "label": "From", "value": "BER"], ["key": "d", "label": "To", "value": "PAR"]]])
            let pass = try RenderKit.unsignedPass(["pass.json": json], in: sandbox.dir, name: "\(type).pkpass")
            let out = sandbox.dir.appendingPathComponent("\(type).png").path
            let run = try sandbox.run("render", [pass, "--scale", "2", "-o", out])
            XCTAssertEqual(run.status, 0, run.stderr)
            // The glyph column: 36 points wide, centred on the 320-point card.
            let r = try RenderKit.python(["-c", """
                import sys, hashlib
                from PIL import Image
                im = Image.open(sys.argv[1]).convert("L")
                col = im.crop((284, 0, 356, im.size[1]))
                dark = bytes(1 if p < 128 else 0 for p in col.getdata())
                print(sum(dark), hashlib.sha256(dark).hexdigest())
                """, out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let parts = r.text.split(separator: " ")
            XCTAssertGreaterThan(Int(parts.first ?? "") ?? 0, 100, "\(type): no glyph drawn")
            columns[type] = parts.count > 1 ? String(parts[1]) : ""
            let html = try sandbox.run("render", [pass, "--format", "html"])
            let name = ["Air": "flight", "Train": "train", "Bus": "bus", "Boat": "boat", "Generic": "to"][type]!
            XCTAssertTrue(html.stdout.contains("role=\"img\" aria-label=\"\(name)\"><svg"), "\(type): \(html.stdout.prefix(300))")
        }
        XCTAssertEqual(Set(columns.values).count, 5, "every type its own glyph: \(columns)")
    }

    /// Issue 26 item 9: a character no installed font has is drawn as a box; `--verbose` says which
    /// text and which Debian fonts draw it, and says nothing when every character has a font (the
    /// package lists install Noto CJK and Noto Color Emoji, so Japanese and emoji are drawn).
    func testVerboseNamesTextThatNoInstalledFontCanDraw() throws {
        func verbose(_ value: String) throws -> Run {
            let json = try RenderKit.passJSON(style: "generic", fields: ["primaryFields": [["key": "n", "label": "Name", "value": value]]])
            let pass = try RenderKit.unsignedPass(["pass.json": json], in: sandbox.dir, name: "glyph-\(UUID().uuidString).pkpass")
            let out = sandbox.dir.appendingPathComponent("glyph-\(UUID().uuidString).png").path
            let run = try sandbox.run("render", ["--verbose", pass, "-o", out])
            XCTAssertEqual(run.status, 0, run.stderr)
            return run
        }
        let unknown = try verbose("Gate \u{10FFFD}")     // a private-use code point no font has
        XCTAssertTrue(unknown.stderr.contains("has characters no installed font can draw"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("fonts-noto-cjk"), unknown.stderr)
        for drawn in ["東京 → 大阪", "🎫 Gate 12", "Zürich"] {
            let run = try verbose(drawn)
            XCTAssertFalse(run.stderr.contains("no installed font"), "\(drawn): \(run.stderr)")
        }
    }

    /// The colour of the pixel at (x, y) card points of a PNG drawn at `scale`.
    func pixel(_ png: String, x: Int, y: Int, scale: Int) throws -> [Int] {
        let r = try RenderKit.python(["-c", "import sys; from PIL import Image; print(*Image.open(sys.argv[1]).convert('RGB').getpixel((int(sys.argv[2]), int(sys.argv[3]))))",
                                      png, "\(x * scale)", "\(y * scale)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// PNG: the image made for the output's scale, else the next sharper, else the largest
    /// blurrier one. Vector outputs (HTML, PDF, SVG) are scaled by whoever shows them: they take
    /// the sharpest image there is.
    func testImagesAreTakenAtTheOutputScaleFallingBackUpThenDown() throws {
        let red = try colour(160, 50, (255, 0, 0)), green = try colour(320, 100, (0, 255, 0)), blue = try colour(480, 150, (0, 0, 255))
        let json = try RenderKit.passJSON(style: "generic", fields: ["primaryFields": [["key": "n", "label": "Name", "value": "Ada"]]])
        func logoColour(_ files: [String: [UInt8]], scale: Int) throws -> [Int] {
            let pass = try RenderKit.unsignedPass(files, in: sandbox.dir, name: "logo-\(UUID().uuidString).pkpass")
            let out = sandbox.dir.appendingPathComponent("logo-\(UUID().uuidString).png").path
            let run = try sandbox.run("render", [pass, "--scale", "\(scale)", "-o", out])
            XCTAssertEqual(run.status, 0, run.stderr)
            // The logo sits at the card's top left (12 points in); its middle is well inside it.
            return try pixel(out, x: 40, y: 30, scale: scale)
        }
        let all = ["pass.json": json, "logo.png": red, "logo@2x.png": green, "logo@3x.png": blue]
        XCTAssertEqual(try logoColour(all, scale: 1), [255, 0, 0])
        XCTAssertEqual(try logoColour(all, scale: 2), [0, 255, 0])
        XCTAssertEqual(try logoColour(all, scale: 3), [0, 0, 255])
        XCTAssertEqual(try logoColour(["pass.json": json, "logo@2x.png": green, "logo@3x.png": blue], scale: 1), [0, 255, 0], "sharper first")
        XCTAssertEqual(try logoColour(["pass.json": json, "logo.png": red, "logo@2x.png": green], scale: 3), [0, 255, 0], "then the largest blurrier")
        XCTAssertEqual(try logoColour(["pass.json": json, "logo@3x.png": blue], scale: 1), [0, 0, 255])
        let html = try page(all).page
        XCTAssertTrue(html.contains(b64(blue)) && !html.contains(b64(green)) && !html.contains(b64(red)), "HTML inlines the sharpest logo only")
        XCTAssertTrue(try page(["pass.json": json, "logo.png": red, "logo@2x.png": green]).page.contains(b64(green)))
    }

    func testBoardingPassRowsGlyphLabelsAndAlignment() throws {
        let json = try RenderKit.passJSON(style: "boardingPass", fields: [
            "transitType": "PKTransitTypeTrain",
            "headerFields": [["key": "g", "label": "Platform", "value": "7"]],
            "primaryFields": [["key": "o", "label": "Berlin", "value": "BER"], ["key": "d", "label": "Paris", "value": "PAR"]],
            "secondaryFields": [["key": "p", "label": "Passenger", "value": "Ada Lovelace"]],
            "auxiliaryFields": [["key": "c", "label": "Coach", "value": "12", "textAlignment": "PKTextAlignmentCenter"],
                                ["key": "s", "label": "Seat", "value": "45"]],
        ])
        let page = try page(["pass.json": json]).page
        func at(_ s: String) throws -> Int {
            let r = try XCTUnwrap(page.range(of: s), s)
            return page.distance(from: page.startIndex, to: r.lowerBound)
        }
        // Labels upper-cased; origin, the train glyph, destination; auxiliary above secondary.
        XCTAssertLessThan(try at(">BERLIN<"), try at("aria-label=\"train\"><svg"))
        XCTAssertLessThan(try at("aria-label=\"train\"><svg"), try at(">PARIS<"))
        XCTAssertLessThan(try at(">COACH<"), try at(">PASSENGER<"))
        XCTAssertLessThan(try at(">SEAT<"), try at(">PASSENGER<"))
        XCTAssertTrue(page.contains("style=\"text-align:center\"><span class=\"l\">COACH</span>"), "textAlignment kept")
        XCTAssertFalse(page.contains(">Passenger<"), "labels are upper-cased")
    }

    /// Issue 41 item 4: the back showed an invented row, "WHEN THIS PASS CHANGES, YOU ARE TOLD"
    /// with each field's change message filled in, which Wallet never shows (change messages are
    /// for the history and the notices). The back holds the pass's own back fields only.
    func testTheBackShowsOnlyThePasssOwnBackFields() throws {
        let json = try RenderKit.passJSON(style: "boardingPass", fields: [
            "transitType": "PKTransitTypeAir",
            "headerFields": [["key": "gate", "label": "Gate", "value": "B12", "changeMessage": "Gate changed to %@"]],
            "backFields": [["key": "terms", "label": "Terms", "value": "Non-refundable."]],
        ])
        let page = try page(["pass.json": json]).page
        XCTAssertTrue(page.contains("<dt dir=\"auto\">Terms</dt><dd dir=\"auto\">Non-refundable.</dd>"), page)
        XCTAssertFalse(page.contains("YOU ARE TOLD"), page)
        XCTAssertFalse(page.contains("Gate changed to"), page)
    }

    func testValuesAreFormattedOnlyWhenAFieldAsksInTheUsersZoneUnlessIgnored() throws {
        let when = "2026-07-01T09:20+02:00"
        let json = try RenderKit.passJSON(style: "generic", fields: [
            "primaryFields": [["key": "raw", "label": "Raw", "value": when]],
            "secondaryFields": [["key": "t", "label": "Zoned", "value": when, "timeStyle": "PKDateStyleShort"],
                                ["key": "i", "label": "Ignored", "value": when, "timeStyle": "PKDateStyleShort", "ignoresTimeZone": true],
                                ["key": "m", "label": "Price", "value": 49.5, "currencyCode": "EUR"]],
            "auxiliaryFields": [["key": "n", "label": "Number", "value": 1234.5]],
        ])
        let page = try page(["pass.json": json], env: ["TZ": "America/New_York"]).page
        XCTAssertTrue(page.contains("<span class=\"v\">\(when)</span>"), "no style: the text as written")
        XCTAssertTrue(page.contains("ZONED</span><span class=\"v\">03:20<"), "09:20 at +02:00 is 03:20 in New York")
        XCTAssertTrue(page.contains("IGNORED</span><span class=\"v\">09:20<"), "ignoresTimeZone: as written")
        XCTAssertTrue(page.contains("49.50"), "a currency amount has its minor digits")
        XCTAssertTrue(page.contains("NUMBER</span><span class=\"v\">1234.5<"), "a number without a style is not reformatted")
    }

    func testTextsComeFromTheChosenLanguagesPassStrings() throws {
        let json = try RenderKit.passJSON(style: "generic", fields: [
            "primaryFields": [["key": "m", "label": "member_label", "value": "Marie Curie"]],
        ])
        let strings = Array("\"member_label\" = \"Mitglied\";\n".utf8)
        let english = Array("\"member_label\" = \"Member\";\n".utf8)
        let files = ["pass.json": json, "de.lproj/pass.strings": strings, "en.lproj/pass.strings": english]
        XCTAssertTrue(try page(files, ["--lang", "de"]).page.contains(">MITGLIED<"))
        XCTAssertTrue(try page(files, ["--lang", "en"]).page.contains(">MEMBER<"))
    }
}

/// The PNG writer (libpng from C, not cairo's): colours with straight alpha, so the card's
/// anti-aliased rounded corners keep the card's colour instead of darkening towards black (what
/// premultiplied values written as straight ones look like).
final class RenderPNGTests: XCTestCase {
    func testPartlyTransparentPixelsKeepTheCardColour() throws {
        let sandbox = try Sandbox()
        for scale in ["1", "3"] {
            let out = sandbox.dir.appendingPathComponent("coupon-\(scale).png").path
            let run = try sandbox.run("render", [Run.sample("passes/coupon.pkpass"), "--scale", scale, "-o", out])
            XCTAssertEqual(run.status, 0, run.stderr)
            let r = try RenderKit.python(["-c", """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1])
            assert im.mode == "RGBA", im.mode
            w, h = im.size
            bg = im.getpixel((2, h // 2))
            edge = [p for p in im.getdata() if 24 < p[3] < 232]
            # Premultiplied 8-bit values come back within 255 / (2 alpha) + 1 of the colour; written
            # as straight alpha they would be off by about (255 - alpha) / 255 of it.
            worst = max(max(abs(p[k] - bg[k]) for k in range(3)) - (255 // (2 * p[3]) + 1) for p in edge)
            print(len(edge), max(worst, 0), bg[3])
            """, out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let f = r.text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            XCTAssertEqual(f.count, 3, r.text)
            guard f.count == 3 else { continue }
            XCTAssertEqual(f[2], 255, "the card itself is opaque")
            XCTAssertGreaterThan(f[0], 8, "the rounded corners are anti-aliased at \(scale)x")
            XCTAssertEqual(f[1], 0, "edge pixels keep the card's colour at \(scale)x")
        }
    }
}
