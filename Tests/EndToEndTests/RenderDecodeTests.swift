import Foundation
import XCTest

/// The barcodes `render` draws really scan: every real pass with a barcode (corpus/pkpass-real)
/// and every sample (Samples/passes and Samples/barcode-passes: non-ASCII Latin-1, binary
/// payloads with NULs and every byte value, UTF-8, windows-1252, Shift_JIS, long Code 128, and
/// iOS 27's Code 39, Codabar, EAN-13 and ITF), drawn
/// as PNG (2×, and 1× and 3× for the barcode samples), as PDF (the front at true size, the whole page
/// rasterized by poppler's pdftoppm at 300 dpi) and as terminal half blocks (`render --format terminal`, turned back
/// into pixels), decoded by zxing-cpp searching every symbology: exactly one symbol, in the
/// symbology the pass asked for, whose decoded BYTES equal the message in its messageEncoding.
/// Samples whose message cannot be drawn show the text and the reason instead, in every output.
final class RenderDecodeTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        try RenderKit.requirePeers()
    }

    override func tearDown() { sandbox = nil }

    /// The copies of every real pass in the checkout (origins in that folder's MANIFEST.md).
    static var corpus: URL {
        Run.root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real")
    }

    struct Expected {
        var hex: String
        /// zxing-cpp's name: QRCode, Aztec, PDF417, Code128, Code39, Codabar, EAN13, ITF.
        var format: String
    }

    /// What each pass's barcode must decode to, worked out independently in Python: Wallet's
    /// choice (first of `barcodes` with a format Wallet 27 draws, else the legacy `barcode`) and the
    /// message encoded with its messageEncoding (default iso-8859-1) by Python's codecs.
    static let expectScript = #"""
    import json, re, sys, zipfile
    formats = {"pkbarcodeformatqr": "QRCode", "pkbarcodeformatpdf417": "PDF417", "pkbarcodeformataztec": "Aztec",
               "pkbarcodeformatcode128": "Code128", "pkbarcodeformatcode39": "Code39", "pkbarcodeformatcodabar": "Codabar",
               "pkbarcodeformatean13": "EAN13", "pkbarcodeformati2of5": "ITF"}
    def fmt(b):
        f = b.get("format")
        return formats.get(f.lower()) if isinstance(f, str) else None
    out = {}
    for path in sys.argv[1:]:
        try:
            with zipfile.ZipFile(path) as z:
                raw = z.read("pass.json")
        except Exception:
            continue
        text = raw.decode("utf-8-sig", "replace")
        try:
            pj = json.loads(text)
        except Exception:
            try:
                pj = json.loads(re.sub(r",(\s*[}\]])", r"\1", text))
            except Exception:
                continue
        if not isinstance(pj, dict):
            continue
        cands = [b for b in (pj.get("barcodes") or []) if isinstance(b, dict)]
        legacy = pj.get("barcode")
        if isinstance(legacy, dict):
            cands.append(legacy)
        chosen = next((b for b in cands if fmt(b)), None)
        if chosen is None or not isinstance(chosen.get("message"), str):
            continue
        enc = (chosen.get("messageEncoding") or "iso-8859-1").lower()
        try:
            data = chosen["message"].encode({"iso-8859-1": "latin-1", "latin1": "latin-1"}.get(enc, enc))
        except Exception:
            continue
        out[path] = [data.hex(), fmt(chosen)]
    json.dump(out, sys.stdout)
    """#

    func expectations(_ paths: [String]) throws -> [String: Expected] {
        let r = try RenderKit.python(["-c", Self.expectScript] + paths)
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try JSONSerialization.jsonObject(with: Data(r.output)) as? [String: [String]] ?? [:]
        return o.compactMapValues { $0.count == 2 ? Expected(hex: $0[0], format: $0[1]) : nil }
    }

    /// Samples/barcode-passes/expected.tsv: file -> zxing format + hex, or "error:CODE".
    static func barcodeSamples() throws -> [(file: String, format: String, expected: String)] {
        let text = try String(contentsOfFile: Run.sample("barcode-passes/expected.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count >= 3 else { return nil }
            let format = ["QR": "QRCode", "Aztec": "Aztec", "PDF417": "PDF417", "Code128": "Code128", "I2of5": "ITF"][c[1]] ?? c[1]
            return (c[0], format, c[2])
        }
    }

    func shell(_ script: String) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        let errURL = sandbox.dir.appendingPathComponent("sh-err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let err = try FileHandle(forWritingTo: errURL)
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try err.close()
        return (p.terminationStatus, String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Decodes every job; each must give exactly one symbol, `expected`'s bytes and symbology.
    func check(_ jobs: [(path: String, label: String, expected: Expected)], file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let decoded = try RenderKit.decodeAll(jobs.map(\.path))
        XCTAssertEqual(decoded.count, jobs.count, file: file, line: line)
        var failures: [String] = []
        for (job, found) in zip(jobs, decoded) {
            if found.isEmpty { failures.append("\(job.label): nothing decoded in \(job.path)"); continue }
            if found.count > 1 { failures.append("\(job.label): \(found.count) symbols: \(found.map(\.format))") }
            let f = found[0]
            if f.format != job.expected.format { failures.append("\(job.label): decoded as \(f.format), not \(job.expected.format)") }
            if f.hex != job.expected.hex {
                failures.append("\(job.label): decoded \(f.hex.prefix(60))…, expected \(job.expected.hex.prefix(60))…")
            }
        }
        XCTAssertEqual(failures, [], "\(failures.count) of \(jobs.count) failed", file: file, line: line)
        return decoded.count == jobs.count ? jobs.count - failures.count : 0
    }

    func testEveryRealAndSamplePassBarcodeDecodesFromPNGPDFAndTerminal() throws {
        let fm = FileManager.default
        let corpus = Self.corpus
        var passes = try fm.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pkpass") }.sorted()
            .map { corpus.appendingPathComponent($0).path }
        XCTAssertGreaterThanOrEqual(passes.count, 60, "the real corpus (\(corpus.path)) is needed")
        let samples = Run.root.appendingPathComponent("Samples/passes")
        passes += try fm.contentsOfDirectory(atPath: samples.path).filter { $0.hasSuffix(".pkpass") && !$0.hasPrefix("bad-") }
            .sorted().map { samples.appendingPathComponent($0).path }
        var expected = try expectations(passes)
        var withBarcode = passes.filter { expected[$0] != nil }
        // The barcode samples: what expected.tsv says (drawable ones only; the others below).
        var barcodeSamples: [String] = []
        for s in try Self.barcodeSamples() where !s.expected.hasPrefix("error:") && s.expected != "none" {
            let path = Run.sample("barcode-passes/" + s.file)
            expected[path] = Expected(hex: s.expected, format: s.format)
            withBarcode.append(path)
            barcodeSamples.append(path)
        }
        XCTAssertGreaterThanOrEqual(withBarcode.count, 80, "the corpus and samples carry barcodes")
        XCTAssertGreaterThanOrEqual(barcodeSamples.count, 25)
        for format in ["Code39", "Codabar", "EAN13", "ITF"] {
            XCTAssertTrue(barcodeSamples.contains { expected[$0]?.format == format }, "a \(format) sample is decoded")
        }

        // PNG 2×: all at once through `scan --render`, which writes <sha256>.png per pass.
        let pngDir = sandbox.dir.appendingPathComponent("png")
        let scan = try sandbox.run("scan", ["--json", "--render", pngDir.path] + withBarcode)
        var pictures: [String: String] = [:]
        for o in scan.objects {
            if let input = (o["source"] as? [String: Any])?["input"] as? String, let picture = o["render"] as? String {
                pictures[input] = picture
            }
        }
        var jobs: [(path: String, label: String, expected: Expected)] = []
        let pdfDir = sandbox.dir.appendingPathComponent("pdf")
        try fm.createDirectory(at: pdfDir, withIntermediateDirectories: true)
        for (i, path) in withBarcode.enumerated() {
            let e = expected[path]!
            let name = (path as NSString).lastPathComponent
            if let png = pictures[path] {
                jobs.append((png, "\(name) PNG 2x", e))
            } else {
                XCTFail("\(name): scan --render drew no picture")
            }
            // PDF, front only (the card at true size on the page), and the terminal drawing.
            let pdf = pdfDir.appendingPathComponent("\(i).pdf").path
            let run = try sandbox.run("render", [path, "--format", "pdf", "--side", "front", "-o", pdf])
            XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
            jobs.append((pdfDir.appendingPathComponent("\(i).pgm").path, "\(name) PDF", e))
            let term = pdfDir.appendingPathComponent("\(i).term").path
            let t = try sandbox.run("render", [path, "--format", "terminal", "-o", term])
            XCTAssertEqual(t.status, 0, "\(name): \(t.stderr)")
            jobs.append((term, "\(name) terminal", e))
        }
        // PNG at 1× and 3× for the barcode samples (whole pixels per module at every scale).
        for (i, path) in barcodeSamples.enumerated() {
            for scale in ["1", "3"] {
                let out = pngDir.appendingPathComponent("s\(i)-\(scale).png").path
                let run = try sandbox.run("render", [path, "--scale", scale, "-o", out])
                XCTAssertEqual(run.status, 0, run.stderr)
                jobs.append((out, "\((path as NSString).lastPathComponent) PNG \(scale)x", expected[path]!))
            }
        }
        // The whole first page (no -x/-y/-W/-H: the card sits where the page layout puts it); the
        // decoder cuts it to what is drawn on it.
        let (status, err) = try shell("cd '\(pdfDir.path)' && for f in *.pdf; do pdftoppm -r 300 -f 1 -l 1 -singlefile -gray \"$f\" \"${f%.pdf}\" || exit 1; done")
        XCTAssertEqual(status, 0, "pdftoppm (Debian poppler-utils): \(err)")
        let passed = try check(jobs)
        print("RenderDecodeTests: \(passed) of \(jobs.count) pictures decoded to their exact bytes "
              + "(\(withBarcode.count) passes: PNG 2x, PDF at 300 dpi, terminal; \(barcodeSamples.count) samples also PNG 1x and 3x)")
    }

    /// A message that cannot be drawn (too long, not representable, unknown charset, a format
    /// Wallet does not draw, a symbology's rule broken) is shown as text with a line saying why,
    /// in every output.
    func testUndrawableBarcodesShowTheTextAndWhy() throws {
        let cases: [(String, String)] = [
            ("qr-too-long.pkpass", "too long for a QR code"),
            ("unrepresentable-latin1.pkpass", "has a character its character set"),
            ("hostile-encoding.pkpass", "character set is unknown"),
            ("unsupported-only.pkpass", "not one Wallet draws"),
            // iOS 27's formats, each rule broken once (issue 40, Bad input): the sentence, never
            // a drawing of other bytes (nor the QR listed after the EAN-13).
            ("ean13-wrong-check.pkpass", "ends in the check digit 2, but its first 12 digits make 1"),
            ("ean13-eight-digits.pkpass", "has 8 digits, and an EAN-13 code holds 12 and a check digit"),
            ("codabar-start-only.pkpass", "has a start character (A, B, C or D) without a stop character"),
            ("code39-lower-case.pkpass", "has a character Code 39 cannot hold"),
            ("itf-odd.pkpass", "has an odd number of digits (5)"),
            ("code39-too-long.pkpass", "too long for a Code 39 code"),
        ]
        for (file, why) in cases {
            let path = Run.sample("barcode-passes/" + file)
            let html = try sandbox.run("render", [path, "--format", "html", "-o", "-"])
            XCTAssertEqual(html.status, 0, html.stderr)
            XCTAssertTrue(html.stdout.contains("<div class=\"nocode\">"), file)
            XCTAssertTrue(html.stdout.contains(why), "\(file): \(why)")
            XCTAssertFalse(html.stdout.contains("<svg"), "\(file): no barcode drawn")
            let term = try sandbox.run("render", [path, "--format", "terminal"])
            XCTAssertEqual(term.status, 0, term.stderr)
            XCTAssertTrue(term.stdout.contains(why), "\(file): \(term.stdout)")
            XCTAssertTrue(term.stdout.contains("Message"), "\(file): the text is shown: \(term.stdout)")
            XCTAssertFalse(term.stdout.contains("\u{2588}"), "\(file): nothing drawn")
        }
        // PNG/PDF: the text is drawn (pdftotext reads it back from the PDF).
        let pdf = sandbox.dir.appendingPathComponent("long.pdf").path
        XCTAssertEqual(try sandbox.run("render", [Run.sample("barcode-passes/code128-too-long.pkpass"), "-o", pdf]).status, 0)
        let (status, _) = try shell("pdftotext '\(pdf)' '\(pdf).txt'")
        XCTAssertEqual(status, 0)
        let text = try String(contentsOfFile: pdf + ".txt", encoding: .utf8)
        XCTAssertTrue(text.contains("too long for a Code 128 code"), text)
    }

    /// `render --format terminal` draws black on an explicit white background even into a file,
    /// with the altText under the drawing; a pass without a barcode says so.
    func testTerminalFormatDrawsWithColoursIntoAFile() throws {
        let out = sandbox.dir.appendingPathComponent("t.term")
        let run = try sandbox.run("render", [Run.sample("barcode-passes/latin1-qr.pkpass"), "--format", "terminal", "-o", out.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let text = try String(contentsOf: out, encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let on = "\u{1B}[38;5;16;48;5;231m"
        let last = try XCTUnwrap(lines.lastIndex { $0.contains(on) })
        XCTAssertEqual(lines[last + 1].trimmingCharacters(in: .whitespaces), "Zürich")
        XCTAssertTrue(lines.allSatisfy { !$0.contains(on) || $0.hasSuffix("\u{1B}[0m") }, "every drawn line resets its colours")
        let bare = try RenderKit.unsignedPass(["pass.json": try RenderKit.passJSON()], in: sandbox.dir)
        let none = try sandbox.run("render", [bare, "--format", "terminal"])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertTrue(none.stdout.contains("This pass has no barcode."), none.stdout)
    }

    /// Modules are exact equal squares where the output has a grid: in SVG whole CSS pixels (the
    /// card is in px), in PDF whole printer dots on the page's 1/300-inch grid (0.24 pt), so any
    /// 300/600/1200-dpi raster gets hard-edged modules of one size. Read from the files themselves.
    func testVectorModulesAreWholePixelsInSVGAndWholeDotsInPDF() throws {
        let script = #"""
        import re, sys, zlib
        kind, path, grid = sys.argv[1], sys.argv[2], float(sys.argv[3])
        num = r"(-?\d+(?:\.\d+)?)"
        if kind == "svg":
            text = open(path, encoding="utf-8").read()
            paths = re.findall(r'd="([^"]*)"', text)
            rect = re.compile(r"M %s %s L %s %s L %s %s L %s %s Z" % ((num,) * 8))
        else:
            data = open(path, "rb").read()
            paths = []
            for m in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
                try:
                    paths.append(zlib.decompress(m.group(1)).decode("latin-1"))
                except Exception:
                    pass
            rect = re.compile(r"%s %s m %s %s l %s %s l %s %s l h" % ((num,) * 8))
        best = max((rect.findall(" ".join(p.split())) for p in paths), key=len)
        boxes = []
        for r in best:
            xs, ys = [float(v) for v in r[0::2]], [float(v) for v in r[1::2]]
            boxes.append((min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
        # Coordinates are written to 3 decimals (PDF): 0.01 of a dot is the tolerance.
        off = [v for b in boxes for v in b if abs(v / grid - round(v / grid)) > 0.02]
        module = min(min(b[2] for b in boxes), min(b[3] for b in boxes))
        module = max(1, round(module / grid)) * grid if abs(module / grid - round(module / grid)) <= 0.02 else module
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        uneven = [b for b in boxes if any(abs(v / module - round(v / module)) > 0.01 for v in (b[0] - x0, b[1] - y0, b[2], b[3]))]
        print(len(boxes), round(module / grid, 3), len(off), len(uneven))
        """#
        for (file, format) in [("binary-aztec.pkpass", "svg"), ("aztec-large-binary.pkpass", "svg"), ("latin1-qr.pkpass", "pdf"),
                               ("binary-aztec.pkpass", "pdf"), ("aztec-large-binary.pkpass", "pdf"), ("binary-pdf417.pkpass", "pdf")] {
            let out = sandbox.dir.appendingPathComponent("\(file).\(format)").path
            XCTAssertEqual(try sandbox.run("render", [Run.sample("barcode-passes/" + file), "--side", "front", "-o", out]).status, 0)
            let r = try RenderKit.python(["-c", script, format, out, format == "svg" ? "1" : "0.24"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let f = r.text.split(separator: " ").map { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
            XCTAssertEqual(f.count, 4, r.text)
            guard f.count == 4 else { continue }
            XCTAssertGreaterThan(f[0], 50, "\(file) \(format): the barcode's rectangles were found")
            XCTAssertEqual(f[1], f[1].rounded(), "\(file) \(format): a module is \(f[1]) grid units, not a whole number")
            XCTAssertGreaterThanOrEqual(f[1], 1)
            XCTAssertEqual(f[2], 0, "\(file) \(format): coordinates off the grid")
            XCTAssertEqual(f[3], 0, "\(file) \(format): rectangles not whole modules from the symbol's corner")
        }
    }
}
