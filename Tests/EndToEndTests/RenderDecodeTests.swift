import Foundation
import XCTest

/// The barcodes `render` draws really scan: every real pass with a barcode (corpus/pkpass-real,
/// or the fixture copy when ../shared is absent) and every sample, drawn as PNG and as PDF
/// (rasterized by poppler's pdftoppm), decoded by zxing-cpp; the decoded BYTES must equal the
/// message in its messageEncoding, in the symbology the pass asked for. The HTML page, shot by
/// headless Chromium at 1× and 2×, decodes too, and makes no network request.
final class RenderDecodeTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        try RenderKit.requirePeers()
    }

    static var corpus: URL {
        let shared = Run.root.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpus/pkpass-real")
        if FileManager.default.fileExists(atPath: shared.path) { return shared }
        let shared2 = URL(fileURLWithPath: "/work/shared/corpus/pkpass-real")
        if FileManager.default.fileExists(atPath: shared2.path) { return shared2 }
        return Run.root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real")
    }

    /// What each pass's barcode must decode to, worked out independently in Python: Wallet's
    /// choice (first of `barcodes` with a supported format, else the legacy `barcode`) and the
    /// message encoded with its messageEncoding (default iso-8859-1).
    static let expectScript = #"""
    import json, re, sys, zipfile
    formats = {"PKBarcodeFormatQR": "QRCode", "PKBarcodeFormatPDF417": "PDF417", "PKBarcodeFormatAztec": "Aztec",
               "PKBarcodeFormatCode128": "Code128"}
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
        chosen = next((b for b in cands if b.get("format") in formats), None)
        if chosen is None and isinstance(legacy, dict) and legacy.get("format") in formats:
            chosen = legacy
        if chosen is None or not isinstance(chosen.get("message"), str):
            continue
        enc = (chosen.get("messageEncoding") or "iso-8859-1").lower()
        try:
            data = chosen["message"].encode({"iso-8859-1": "latin-1", "latin1": "latin-1"}.get(enc, enc))
        except Exception:
            continue
        out[path] = [data.hex(), formats[chosen["format"]]]
    json.dump(out, sys.stdout)
    """#

    func expectations(_ paths: [String]) throws -> [String: (hex: String, format: String)] {
        let r = try RenderKit.python(["-c", Self.expectScript] + paths)
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try JSONSerialization.jsonObject(with: Data(r.output)) as? [String: [String]] ?? [:]
        return o.compactMapValues { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    /// Runs a shell pipeline (pdftoppm over many PDFs at once).
    func shell(_ script: String) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func checkDecoded(_ jobs: [(path: String, format: String)], expected: [(hex: String, label: String)],
                      file: StaticString = #filePath, line: UInt = #line) throws {
        let decoded = try RenderKit.decode(jobs)
        XCTAssertEqual(decoded.count, jobs.count, file: file, line: line)
        var failures: [String] = []
        for (i, result) in decoded.enumerated() {
            guard let result else { failures.append("\(expected[i].label): nothing decoded in \(jobs[i].path)"); continue }
            if result.hex != expected[i].hex {
                failures.append("\(expected[i].label): decoded \(result.hex.prefix(80)), expected \(expected[i].hex.prefix(80))")
            }
            let wanted = jobs[i].format == "QRCode" ? "QRCode" : jobs[i].format
            if result.format != wanted { failures.append("\(expected[i].label): decoded as \(result.format), not \(wanted)") }
        }
        XCTAssertEqual(failures, [], "\(failures.count) of \(jobs.count) failed", file: file, line: line)
    }

    func testEveryRealAndSamplePassBarcodeDecodesFromPNGAndPDF() throws {
        let fm = FileManager.default
        let corpus = Self.corpus
        var passes = try fm.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".pkpass") }.sorted()
            .map { corpus.appendingPathComponent($0).path }
        let samples = Run.root.appendingPathComponent("Samples/passes")
        passes += try fm.contentsOfDirectory(atPath: samples.path).filter { $0.hasSuffix(".pkpass") && !$0.hasPrefix("bad-") }
            .sorted().map { samples.appendingPathComponent($0).path }
        let extra = Run.root.appendingPathComponent("Samples/barcodes")
        if fm.fileExists(atPath: extra.path) {
            passes += try fm.contentsOfDirectory(atPath: extra.path).filter { $0.hasSuffix(".pkpass") }.sorted()
                .map { extra.appendingPathComponent($0).path }
        }
        let expected = try expectations(passes)
        let withBarcode = passes.filter { expected[$0] != nil }
        XCTAssertGreaterThanOrEqual(withBarcode.count, 60, "the corpus and samples carry barcodes")

        // PNG: all at once through `scan --render`, which writes <sha256>.png per pass.
        let pngDir = sandbox.dir.appendingPathComponent("png")
        let scan = try sandbox.run("scan", ["--json", "--render", pngDir.path] + withBarcode)
        var pictures: [String: String] = [:]
        for o in scan.objects {
            if let input = (o["source"] as? [String: Any])?["input"] as? String, let picture = o["render"] as? String {
                pictures[input] = picture
            }
        }
        // PDF: one render per pass, rasterized at 300 dpi.
        let pdfDir = sandbox.dir.appendingPathComponent("pdf")
        try fm.createDirectory(at: pdfDir, withIntermediateDirectories: true)
        for (i, path) in withBarcode.enumerated() {
            let run = try sandbox.run("render", [path, "--format", "pdf", "--side", "front", "-o", pdfDir.appendingPathComponent("\(i).pdf").path])
            XCTAssertEqual(run.status, 0, "\(path): \(run.stderr)")
        }
        let (status, err) = try shell("cd '\(pdfDir.path)' && for f in *.pdf; do pdftoppm -r 300 -f 1 -l 1 -singlefile -png \"$f\" \"${f%.pdf}\" || exit 1; done")
        XCTAssertEqual(status, 0, "pdftoppm (Debian poppler-utils): \(err)")

        var jobs: [(path: String, format: String)] = []
        var wanted: [(hex: String, label: String)] = []
        for (i, path) in withBarcode.enumerated() {
            let e = expected[path]!
            let name = (path as NSString).lastPathComponent
            if let png = pictures[path] {
                jobs.append((png, e.format))
                wanted.append((e.hex, "\(name) PNG"))
            } else {
                XCTFail("\(name): scan --render drew no picture")
            }
            jobs.append((pdfDir.appendingPathComponent("\(i).png").path, e.format))
            wanted.append((e.hex, "\(name) PDF"))
        }
        try checkDecoded(jobs, expected: wanted)
    }

    func testHTMLInChromiumDecodesAtOneAndTwoTimesAndFetchesNothing() throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let chromium else { return XCTFail("chromium is needed: apt-get install chromium") }
        let corpus = Self.corpus.path
        let passes = [Run.sample("passes/boarding-pass.pkpass"), Run.sample("passes/event-ticket.pkpass"),
                      corpus + "/catima__Eurowings.pkpass"]
            .filter { FileManager.default.fileExists(atPath: $0) }
        let expected = try expectations(passes)
        var pages: [String] = []
        var cases: [(path: String, e: (hex: String, format: String))] = []
        for (i, p) in passes.enumerated() {
            guard let e = expected[p] else { continue }
            let out = sandbox.dir.appendingPathComponent("card\(i).html").path
            let run = try sandbox.run("render", [p, "--format", "html", "--side", "front", "-o", out])
            XCTAssertEqual(run.status, 0, run.stderr)
            pages.append(out)
            cases.append((p, e))
        }
        XCTAssertGreaterThanOrEqual(pages.count, 2)
        // A hostile page too: markup in its fields naming a loopback URL must not be fetched.
        let hostile = try RenderKit.unsignedPass(["pass.json": try RenderKit.passJSON(fields: [
            "primaryFields": [["key": "p", "label": "x", "value": "<img src=\"http://127.0.0.1:1/leak.png\">"]],
            "backFields": [["key": "b", "label": "y", "value": "x", "attributedValue": "<a href=\"http://127.0.0.1:1/\">a</a><img src=\"http://127.0.0.1:1/i.png\"><link rel=stylesheet href=\"http://127.0.0.1:1/s.css\">"]],
        ])], in: sandbox.dir)
        let hostilePage = sandbox.dir.appendingPathComponent("hostile.html").path
        XCTAssertEqual(try sandbox.run("render", [hostile, "--format", "html", "-o", hostilePage]).status, 0)
        // The control: a page that does fetch must be seen by the listener, or the check proves nothing.
        let control = sandbox.dir.appendingPathComponent("control.html").path
        try "<!DOCTYPE html><img src=\"http://192.0.2.1/fetch-me.png\">".write(toFile: control, atomically: true, encoding: .utf8)

        let script = #"""
        import json, socket, subprocess, sys, threading, time
        chromium, workdir, jobs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(64); srv.settimeout(0.2)
        port = srv.getsockname()[1]
        hits, done = {}, [False]
        current = [None]
        def serve():
            while not done[0]:
                try:
                    c, _ = srv.accept()
                except socket.timeout:
                    continue
                request = c.recv(300).decode("latin-1")
                # Chromium's own services (time, updates) are not the page; everything else is.
                host = request.split(" ")[1] if " " in request else ""
                if not any(d in host for d in (".google.com", ".gstatic.com", ".googleapis.com")):
                    hits.setdefault(current[0], []).append(request)
                c.close()
        t = threading.Thread(target=serve); t.start()
        for page, shot, scale in jobs:
            current[0] = page
            subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--no-first-run", "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--disable-default-apps", "--disable-extensions", "--mute-audio",
                            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate",
                            "--user-data-dir=" + workdir + "/profile", "--proxy-server=http://127.0.0.1:%d" % port,
                            "--proxy-bypass-list=<-loopback>", "--window-size=800,1400",
                            "--force-device-scale-factor=%s" % scale, "--screenshot=" + shot, "file://" + page],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=90)
            time.sleep(0.3)
        done[0] = True; t.join()
        json.dump(hits, sys.stdout)
        """#
        var jobs: [[String]] = []
        var decodeJobs: [(path: String, format: String)] = []
        var wanted: [(hex: String, label: String)] = []
        for (i, page) in pages.enumerated() {
            for scale in ["1", "2"] {
                let shot = sandbox.dir.appendingPathComponent("shot\(i)-\(scale).png").path
                jobs.append([page, shot, scale])
                decodeJobs.append((shot, cases[i].e.format))
                wanted.append((cases[i].e.hex, "\((cases[i].path as NSString).lastPathComponent) at \(scale)x"))
            }
        }
        jobs.append([hostilePage, sandbox.dir.appendingPathComponent("hostile.png").path, "1"])
        jobs.append([control, sandbox.dir.appendingPathComponent("control.png").path, "1"])
        let json = String(decoding: try JSONSerialization.data(withJSONObject: jobs), as: UTF8.self)
        let r = try RenderKit.python(["-c", script, chromium, sandbox.dir.path, json])
        XCTAssertEqual(r.status, 0, r.stderr)
        let hits = try JSONSerialization.jsonObject(with: Data(r.output)) as? [String: [String]] ?? [:]
        XCTAssertNotNil(hits[control], "the listener saw the control page's request (else this check is blind): \(hits)")
        for page in pages + [hostilePage] {
            XCTAssertNil(hits[page], "\(page) made a request: \(hits[page] ?? [])")
        }
        try checkDecoded(decodeJobs, expected: wanted)
    }
}
