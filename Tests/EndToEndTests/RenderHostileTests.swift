import Foundation
import XCTest

/// `render` on hostile passes: lying and damaged images, huge field counts and values, RTL and
/// combining text, markup and script, garbage colours. Each renders in bounded time (and says
/// what it left out), or fails with a clear message; nothing in the output executes or fetches.
final class RenderHostileTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    func pass(_ files: [String: [UInt8]], name: String = "hostile.pkpass") throws -> String {
        try RenderKit.unsignedPass(files, in: sandbox.dir, name: name)
    }

    /// Renders and returns (run, output bytes, seconds).
    func render(_ path: String, _ args: [String]) throws -> (Run, [UInt8], Double) {
        let out = sandbox.dir.appendingPathComponent("out-\(UUID().uuidString)")
        let start = Date()
        let run = try sandbox.run("render", [path, "-o", out.path, "--verbose"] + args)
        let seconds = Date().timeIntervalSince(start)
        let bytes = (try? Data(contentsOf: out)).map { [UInt8]($0) } ?? []
        return (run, bytes, seconds)
    }

    func testImagesThatLieOrAreDamagedAreLeftOutWithAReason() throws {
        let bomb = try RenderKit.png(width: 50_000, height: 50_000, dataRows: 1)
        let big = try RenderKit.png(width: 4000, height: 4000, dataRows: 1)
        let truncated = try RenderKit.png(width: 64, height: 64, truncateTo: 60)
        let corrupt = try RenderKit.png(width: 32, height: 32, idat: Array(repeating: 0xAB, count: 200))
        let lying = try RenderKit.png(width: 8, height: 8, dataRows: 2000)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0, count: 100)
        let json = try RenderKit.passJSON(style: "eventTicket", fields: ["primaryFields": [["key": "e", "label": "Event", "value": "Show"]]])
        let path = try pass(["pass.json": json, "icon.png": corrupt, "logo@2x.png": bomb, "logo.png": big,
                             "background@2x.png": truncated, "thumbnail@2x.png": corrupt, "strip.png": jpeg,
                             "footer.png": lying])
        for format in ["png", "pdf", "svg", "html"] {
            let (run, bytes, seconds) = try render(path, ["--format", format])
            XCTAssertEqual(run.status, 0, "\(format): \(run.stderr)")
            XCTAssertFalse(bytes.isEmpty, format)
            XCTAssertLessThan(seconds, 10, format)
            XCTAssertTrue(run.stderr.contains("logo@2x.png declares 50000 × 50000 pixels"), run.stderr)
            XCTAssertTrue(run.stderr.contains("background@2x.png is damaged") || run.stderr.contains("background@2x.png could not"),
                          run.stderr)
            XCTAssertTrue(run.stderr.contains("thumbnail@2x.png is damaged"), run.stderr)
            if format == "html" {
                // The bomb must not reach the browser either.
                let page = String(decoding: bytes, as: UTF8.self)
                XCTAssertFalse(page.contains(Data(bomb).base64EncodedString()), "bomb inlined")
            }
        }
    }

    func testTenThousandFieldsAndMegabyteValuesRenderBounded() throws {
        let mega = String(repeating: "Ab cD ", count: 180_000)
        var fields: [[String: Any]] = []
        for i in 0..<10_000 { fields.append(["key": "k\(i)", "label": "L\(i)", "value": "v\(i)"]) }
        let json = try RenderKit.passJSON(style: "storeCard", fields: [
            "headerFields": fields, "primaryFields": [["key": "p", "label": "Big", "value": mega]],
            "secondaryFields": fields, "auxiliaryFields": fields,
            "backFields": [["key": "b", "label": "Terms", "value": mega]] + fields,
        ])
        let path = try pass(["pass.json": json])
        for format in ["png", "pdf", "html"] {
            let (run, bytes, seconds) = try render(path, ["--format", format, "--side", "both"])
            XCTAssertEqual(run.status, 0, "\(format): \(run.stderr)")
            XCTAssertLessThan(seconds, 30, format)
            XCTAssertLessThan(bytes.count, 8_000_000, format)
            if format == "html" {
                let page = String(decoding: bytes, as: UTF8.self)
                XCTAssertTrue(page.contains("more back fields are not shown"), "omitted fields are said")
            }
        }
    }

    func testMarkupAndScriptInFieldsStayInertText() throws {
        let evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
        let json = try RenderKit.passJSON(style: "generic", fields: [
            "primaryFields": [["key": "p", "label": "<b>Name</b>", "value": evil]],
            "backFields": [
                ["key": "a", "label": "Links", "value": "x",
                 "attributedValue": "<a href='javascript:alert(3)'>js</a> <a href=\"https://example.org/ok\">ok</a> <a href='data:text/html,x'>d</a> <a href=\"file:///etc/passwd\">f</a> <a href=\"tel:+4930123\">call</a>"],
                ["key": "b", "label": "Plain", "value": "see https://example.com/x. or mail help@example.com\n<iframe src=\"http://127.0.0.1:9/\"></iframe> javascript:alert(4)"],
            ],
        ], extra: ["logoText": "</title><script>alert(5)</script>", "description": "\"><svg onload=alert(6)>"])
        let path = try pass(["pass.json": json])
        let (run, bytes, _) = try render(path, ["--format", "html"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let page = String(decoding: bytes, as: UTF8.self)
        for bad in ["<script", "<img src=x", "<iframe", "<svg onload", "href=\"javascript", "href='javascript",
                    "href=\"data:", "href=\"file:", "<b>"] {
            XCTAssertFalse(page.lowercased().contains(bad), "\(bad) survived")
        }
        // No tag of the page carries an event handler (escaped text may mention one).
        for tag in page.split(separator: "<").dropFirst().map({ $0.prefix { $0 != ">" } }) {
            XCTAssertFalse(tag.lowercased().contains(" on"), "handler in <\(tag)>")
        }
        XCTAssertTrue(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "shown as text")
        XCTAssertTrue(page.contains("<a href=\"https://example.org/ok\""), "https link kept")
        XCTAssertTrue(page.contains("<a href=\"tel:+4930123\""), "tel link kept")
        XCTAssertTrue(page.contains("<a href=\"https://example.com/x\""), "plain URL linked, without the full stop")
        XCTAssertTrue(page.contains("<a href=\"mailto:help@example.com\""), "address linked")
        XCTAssertTrue(page.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"), "CSP")
        XCTAssertFalse(page.contains("src=\"http"), "nothing to fetch")
    }

    func testRightToLeftCombiningTextAndGarbageColoursRender() throws {
        let json = try RenderKit.passJSON(style: "boardingPass", fields: [
            "primaryFields": [["key": "o", "label": "מוצא", "value": "תל אביב"], ["key": "d", "label": "الوجهة", "value": "القاهرة"]],
            "auxiliaryFields": [["key": "z", "label": "Zalgo", "value": "Z̷̢̛̛a̸̡̛l̵̨̛g̶̢̛o̷̧̕" + String(repeating: "\u{0301}", count: 5000)]],
        ], extra: ["backgroundColor": "rgb(300, -2, nope)", "foregroundColor": "#zzzzzz", "labelColor": "rgba(255,255,255,0.0)"])
        let path = try pass(["pass.json": json])
        for format in ["png", "pdf", "svg", "html"] {
            let (run, bytes, seconds) = try render(path, ["--format", format])
            XCTAssertEqual(run.status, 0, "\(format): \(run.stderr)")
            XCTAssertFalse(bytes.isEmpty)
            XCTAssertLessThan(seconds, 10)
        }
        // White-on-white label (rgba alpha 0 over the default white card) is replaced, and said.
        let (run, _, _) = try render(path, ["--format", "png"])
        XCTAssertTrue(run.stderr.contains("labelColor #ffffff is unreadable"), run.stderr)
    }

    func testPassWithoutReadablePassJSONExits65WithTheUserMessage() throws {
        for name in ["bad-missing-pass-json.pkpass", "bad-json.pkpass", "bad-not-a-zip.pkpass"] {
            let run = try sandbox.run("render", [Run.sample("passes/" + name), "-o", sandbox.dir.appendingPathComponent("x.png").path])
            XCTAssertEqual(run.status, 65, name)
            XCTAssertTrue(run.stderr.hasPrefix("passconduit: "), run.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.dir.appendingPathComponent("x.png").path))
        }
    }

    func testUnverifiedPassesRenderWithABandSayingWhy() throws {
        for (name, why) in [("bad-untrusted-signer.pkpass", "NOT VERIFIED: "), ("bad-manifest-mismatch.pkpass", "NOT VERIFIED: ")] {
            let (run, bytes, _) = try render(Run.sample("passes/" + name), ["--format", "html"])
            XCTAssertEqual(run.status, 0, run.stderr)
            let page = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(page.contains("class=\"mark notVerified\" role=\"alert\">\(why)"), name)
        }
        let (ok, okBytes, _) = try render(Run.sample("passes/generic.pkpass"), ["--format", "html"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertFalse(String(decoding: okBytes, as: UTF8.self).contains("class=\"mark notVerified"), "a valid pass has no band")
    }

    func testFormatComesFromTheExtensionAndPNGIsTheDefault() throws {
        let pass = Run.sample("passes/coupon.pkpass")
        for (ext, magic) in [("png", [0x89, 0x50, 0x4E, 0x47]), ("pdf", [0x25, 0x50, 0x44, 0x46]), ("svg", [0x3C, 0x3F, 0x78, 0x6D]),
                             ("html", [0x3C, 0x21, 0x44, 0x4F])] as [(String, [UInt8])] {
            let out = sandbox.dir.appendingPathComponent("card.\(ext)")
            let run = try sandbox.run("render", [pass, "-o", out.path])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(Array(try Data(contentsOf: out).prefix(4)), magic, ext)
        }
        let stdout = try sandbox.run("render", [pass, "-o", "-"])
        XCTAssertTrue(stdout.stdout.utf8.starts(with: [0x89]) || stdout.stdout.hasPrefix("\u{FFFD}PNG"), "PNG on stdout")
        let stdin = try sandbox.run("render", ["-", "--format", "html", "-o", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: pass)))
        XCTAssertEqual(stdin.status, 0, stdin.stderr)
        XCTAssertTrue(stdin.stdout.hasPrefix("<!DOCTYPE html>"), stdin.stdout)
    }

    func testPDFPaperFollowsTheLocale() throws {
        let pass = Run.sample("passes/event-ticket.pkpass")
        func mediaBox(_ lang: String) throws -> String {
            let out = sandbox.dir.appendingPathComponent("p-\(lang).pdf")
            var env = sandbox.environment
            env["LANG"] = lang
            let p = Process()
            p.executableURL = Binary.url
            p.arguments = ["render", pass, "--trust", Run.sample("ca/trust"), "-o", out.path]
            p.environment = env
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
            let text = String(decoding: try Data(contentsOf: out), as: UTF8.self)
            guard let r = text.range(of: "/MediaBox [") else { return "" }
            return String(text[r.upperBound...].prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
        }
        XCTAssertEqual(try mediaBox("en_US.UTF-8"), "0 0 612 792")
        XCTAssertTrue(try mediaBox("de_DE.UTF-8").hasPrefix("0 0 595.27"))
    }

    func testScanRenderWritesAPicturePerPassAndNamesIt() throws {
        let dir = sandbox.dir.appendingPathComponent("pictures")
        let run = try sandbox.run("scan", ["--json", "--render", dir.path, Run.sample("passes/coupon.pkpass"),
                                           Run.sample("passes/bad-missing-pass-json.pkpass")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let objects = run.objects
        XCTAssertEqual(objects.count, 2)
        let sha = objects[0]["sha256"] as? String ?? "?"
        XCTAssertEqual(objects[0]["render"] as? String, dir.appendingPathComponent("\(sha).png").path)
        XCTAssertTrue(objects[1]["render"] is NSNull, "no pass.json, no picture")
        let png = try Data(contentsOf: dir.appendingPathComponent("\(sha).png"))
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        let plain = try sandbox.run("scan", ["--json", Run.sample("passes/coupon.pkpass")])
        XCTAssertFalse(plain.stdout.contains("\"render\""), "no key without --render")
    }

    func testOpenWritesAPrivatePageAndHandsItToXdgOpen() throws {
        // xdg-open would start a browser; this one records what it was given.
        let bin = sandbox.dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let log = sandbox.dir.appendingPathComponent("opened")
        let fake = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nstat -c '%a %U' \"$1\" \"$(dirname \"$1\")\" > '\(log.path)'\necho \"$1\" >> '\(log.path)'\ncp \"$1\" '\(log.path).html'\n"
            .write(to: fake, atomically: true, encoding: .utf8)
        chmod(fake.path, 0o755)
        let p = Process()
        p.executableURL = Binary.url
        p.arguments = ["open", Run.sample("passes/boarding-pass.pkpass")] + sandbox.common
        var env = sandbox.environment
        env["PATH"] = bin.path + ":/usr/bin:/bin"
        env["TMPDIR"] = sandbox.dir.path
        p.environment = env
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("600 ") == true, "the page is private: \(lines)")
        XCTAssertTrue(lines.dropFirst().first?.hasPrefix("700 ") == true, "in a private folder: \(lines)")
        XCTAssertTrue(lines.last?.hasPrefix(sandbox.dir.path + "/passconduit-") == true, "\(lines)")
        let page = try String(contentsOf: URL(fileURLWithPath: log.path + ".html"), encoding: .utf8)
        XCTAssertTrue(page.contains("aria-label=\"front of the pass\"") && page.contains("aria-label=\"back of the pass\""))
    }

    /// Issue 26 item 12: without a browser `open` said "try again later" (75) and left its page
    /// behind; each call left one more copy in /tmp. Now: 69 and no page left; one page per pass.
    func testOpenWithoutABrowserIs69AndPagesAreNotMultiplied() throws {
        let bin = sandbox.dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let fake = bin.appendingPathComponent("xdg-open")
        func open(_ script: String?) throws -> Run {
            if let script {
                try script.write(to: fake, atomically: true, encoding: .utf8)
                chmod(fake.path, 0o755)
            } else {
                try? FileManager.default.removeItem(at: fake)
            }
            return try sandbox.run("open", [Run.sample("passes/boarding-pass.pkpass")],
                                   environment: ["PATH": bin.path, "TMPDIR": sandbox.dir.path])
        }
        func pages() throws -> [String] {
            let fm = FileManager.default
            return try fm.contentsOfDirectory(atPath: sandbox.dir.path).filter { $0.hasPrefix("passconduit-") }.flatMap { folder in
                try fm.contentsOfDirectory(atPath: sandbox.dir.appendingPathComponent(folder).path).map { folder + "/" + $0 }
            }
        }
        let none = try open(nil)
        XCTAssertEqual(none.status, 69, none.stderr)
        XCTAssertTrue(none.stderr.contains("xdg-open is not installed"), none.stderr)
        let failing = try open("#!/bin/sh\nexit 3\n")
        XCTAssertEqual(failing.status, 69, failing.stderr)
        XCTAssertEqual(try pages(), [], "a page nothing opened was left behind")
        XCTAssertEqual(try open("#!/bin/sh\nexit 0\n").status, 0)
        XCTAssertEqual(try open("#!/bin/sh\nexit 0\n").status, 0)
        let left = try pages()
        XCTAssertEqual(left.count, 1, "one page per pass, not one per call: \(left)")
    }

    /// Issue 26 item 12: an attributedValue link whose href holds a ">" ended the tag there and
    /// showed the rest of the address as text. The tag ends outside its quoted attribute.
    func testALinkWhoseAddressHoldsAnAngleBracketShowsOnlyItsText() throws {
        let pass = sandbox.dir.appendingPathComponent("link.pkpass")
        try HandOn.forge(set: ["eventTicket": [
            "primaryFields": [["key": "event", "label": "EVENT", "value": "Concert"]],
            "backFields": [["key": "more", "label": "MORE", "value": "Read more",
                            "attributedValue": #"<a href="https://example.org/?q=a>b&x=<c>">Read more</a> about it"#]],
        ]], to: pass)
        let html = try sandbox.run("render", [pass.path, "--format", "html", "-o", "-"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.stdout.contains(#"<dd dir="auto"><a href="https://example.org/?q=a&gt;b&amp;x=&lt;c&gt;" rel="noreferrer noopener">Read more</a> about it</dd>"#),
                      html.stdout)
        let png = try sandbox.run("render", [pass.path, "--format", "svg", "--side", "back", "-o", "-"])
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertFalse(png.stdout.contains("x=&lt;c"), "the address leaked into the drawn text")
    }

    /// Issue 26 item 12: `render -o card.jpg` wrote a PNG named .jpg, and `--format terminal
    /// --side back` drew the front; both are now refused with a sentence (64), nothing written.
    func testRenderRefusesWhatItCannotDraw() throws {
        let jpg = try sandbox.run("render", [Run.sample("passes/boarding-pass.pkpass"), "-o", "card.jpg"])
        XCTAssertEqual(jpg.status, 64, jpg.stderr)
        XCTAssertTrue(jpg.stderr.contains("render writes PNG, PDF, SVG or HTML, not .jpg"), jpg.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.dir.appendingPathComponent("card.jpg").path))
        let back = try sandbox.run("render", [Run.sample("passes/boarding-pass.pkpass"), "--format", "terminal", "--side", "back"])
        XCTAssertEqual(back.status, 64, back.stderr)
        XCTAssertTrue(back.stderr.contains("--side back: the terminal drawing is the barcode on the front"), back.stderr)
        XCTAssertEqual(back.stdout, "")
        // What it can draw still works, named either way.
        XCTAssertEqual(try sandbox.run("render", [Run.sample("passes/boarding-pass.pkpass"), "-o", "card.png"]).status, 0)
        XCTAssertEqual(try sandbox.run("render", [Run.sample("passes/boarding-pass.pkpass"), "--format", "png", "-o", "card.bin"]).status, 0)
    }

    /// Peak memory (max RSS, KB) of one `passconduit render` run, measured by a fresh Python
    /// parent (getrusage of its only child), so nothing else this test process started counts.
    func peakKB(_ arguments: [String]) throws -> (status: Int32, kb: Int) {
        let script = """
        import json, resource, subprocess, sys
        env = json.loads(sys.argv[1])
        r = subprocess.run(sys.argv[2:], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        """
        let env = String(decoding: try JSONSerialization.data(withJSONObject: sandbox.environment), as: UTF8.self)
        let r = try RenderKit.python(["-c", script, env, Binary.url.path, "render"] + arguments)
        let parts = r.text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        XCTAssertEqual(parts.count, 2, r.stderr)
        return (Int32(parts.first ?? -1), parts.last ?? Int.max)
    }

    /// Hostile passes (a 50 000 × 50 000 PNG, a decompression bomb within the header limits,
    /// 10 000 fields with megabyte values, 5 000 combining marks, a 10 000-character barcode
    /// message) render in bounded memory at the largest scale and as PDF: the limits act before
    /// anything big is decoded or shaped. A plain sample pass is the yardstick.
    func testHostilePassesRenderInBoundedMemory() throws {
        let bomb = try RenderKit.png(width: 50_000, height: 50_000, dataRows: 1)
        // 2000 × 2000 RGBA of one colour: about 16 MB decoded from a few kilobytes.
        let dense = try RenderKit.png(width: 2000, height: 2000)
        let mega = String(repeating: "Ab cD ", count: 180_000)
        var fields: [[String: Any]] = []
        for i in 0..<10_000 { fields.append(["key": "k\(i)", "label": "L\(i)", "value": "v\(i) " + String(repeating: "x", count: 100)]) }
        let json = try RenderKit.passJSON(style: "eventTicket", fields: [
            "headerFields": fields, "primaryFields": [["key": "p", "label": "Big", "value": mega]],
            "secondaryFields": fields, "auxiliaryFields": [["key": "z", "label": "Z", "value": "Z" + String(repeating: "\u{0301}", count: 5000)]],
            "backFields": [["key": "b", "label": "Terms", "value": mega]] + fields,
        ], extra: ["barcodes": [["format": "PKBarcodeFormatQR", "message": String(repeating: "é", count: 10_000), "messageEncoding": "iso-8859-1"]]])
        let hostile = try pass(["pass.json": json, "logo@3x.png": bomb, "background@3x.png": dense, "thumbnail@3x.png": dense,
                                "strip.png": dense], name: "memory.pkpass")
        let plain = try peakKB([Run.sample("passes/event-ticket.pkpass"), "--scale", "3", "-o", sandbox.dir.appendingPathComponent("p.png").path])
        XCTAssertEqual(plain.status, 0)
        for args in [["--scale", "3", "--side", "both", "-o", "h.png"], ["-o", "h.pdf"], ["-o", "h.html"]] {
            var a = args
            a[a.count - 1] = sandbox.dir.appendingPathComponent(a[a.count - 1]).path
            let (status, kb) = try peakKB([hostile] + a)
            XCTAssertEqual(status, 0, "\(args)")
            // 256 MB: the capped back text at 3x is a 960 × 26 000-pixel surface (100 MB); a decoded
            // bomb would be 10 GB, the three 2000 × 2000 images 48 MB.
            XCTAssertLessThan(kb, 262_144, "\(args): \(kb) KB peak against \(plain.kb) KB for a plain pass")
            print("RenderHostileTests: \(args.dropLast().joined(separator: " ")) \(a.last!.split(separator: ".").last!): peak \(kb / 1024) MB (plain pass at 3x: \(plain.kb / 1024) MB)")
        }
    }
}
