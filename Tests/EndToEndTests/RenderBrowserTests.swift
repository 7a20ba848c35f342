import Foundation
import XCTest

/// The HTML card in a real browser (Debian `chromium`, new headless): screenshots at 1× and 2×
/// decode (zxing-cpp, every symbology searched) to the message's exact bytes, and the pages —
/// including a hostile one whose fields name URLs — make no network request.
///
/// "No request" is checked two ways that can each really fail, both proven by a control page that
/// does fetch: every request Chromium makes goes to a recording proxy on loopback that answers
/// nothing (`--proxy-server`, nothing bypasses it, so nothing leaves the machine) and must see
/// none for the page but Chromium's own service hosts; and Chromium's own network log
/// (`--log-net-log`) must list no URL request started on the page's behalf (one with the page's
/// origin), whatever its host.
final class RenderBrowserTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        try RenderKit.requirePeers()
    }

    override func tearDown() { sandbox = nil }

    static let script = #"""
    import json, socket, subprocess, sys, threading, time
    chromium, workdir, jobs = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(64); srv.settimeout(0.2)
    port = srv.getsockname()[1]
    proxied, done, current = {}, [False], [None]
    def serve():
        while not done[0]:
            try:
                c, _ = srv.accept()
            except socket.timeout:
                continue
            try:
                c.settimeout(1)
                request = c.recv(300).decode("latin-1")
            except Exception:
                request = ""
            line = request.split("\r\n")[0]
            # A connection that sends no request (closed at once, or silent for a second) fetches
            # nothing and names no host: Chromium opens such sockets to its proxy ahead of need and
            # closes them at exit. Requests are what count; the net log below lists every one.
            if not line:
                c.close()
                continue
            # Chromium's own services (updates, time, accounts, dictionaries) are not the page's.
            host = line.split(" ")[1] if " " in line else ""
            if not any(d in host for d in (".google.com", ".googleapis.com", ".gstatic.com", ".gvt1.com")):
                proxied.setdefault(current[0], []).append(line)
            c.close()
    t = threading.Thread(target=serve); t.start()
    netlog = {}
    for i, (page, shot, scale) in enumerate(jobs):
        current[0] = page
        log = "%s/netlog-%d.json" % (workdir, i)
        r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--no-first-run", "--disable-background-networking", "--disable-component-update",
                            "--disable-sync", "--disable-default-apps", "--disable-extensions", "--mute-audio",
                            "--disable-dev-shm-usage", "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate",
                            "--user-data-dir=%s/profile-%d" % (workdir, i),
                            "--proxy-server=http://127.0.0.1:%d" % port, "--proxy-bypass-list=<-loopback>",
                            "--log-net-log=" + log, "--net-log-capture-mode=Default",
                            "--window-size=800,1600", "--force-device-scale-factor=%s" % scale,
                            "--screenshot=" + shot, "file://" + page],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
        time.sleep(0.2)
        urls = []
        try:
            text = open(log, encoding="utf-8", errors="replace").read().rstrip().rstrip(",")
            if not text.endswith("}"):
                text += "]}"
            data = json.loads(text)
            start = data["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
            events = data.get("events", [])
            urls.append("EVENTS %d" % len(events))
            for e in events:
                p = e.get("params") or {}
                # The page's own requests carry its origin (a file:// page: "null") and a file://
                # isolation key; Chromium's own (updates, time, accounts) are "not an origin".
                if e.get("type") == start and "url" in p and (p.get("initiator") != "not an origin" or "file://" in p.get("network_isolation_key", "")):
                    urls.append(p["url"])
        except Exception as ex:
            urls.append("UNREADABLE NET LOG: %s" % ex)
        netlog[page] = urls
    done[0] = True; t.join()
    json.dump({"proxied": proxied, "netlog": netlog}, sys.stdout)
    """#

    func testHTMLInChromiumDecodesAtOneAndTwoTimesAndFetchesNothing() throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let chromium else { return XCTFail("chromium is needed: apt-get install chromium") }
        // A boarding pass (PDF417), an event ticket (QR, strip image), binary Aztec and Latin-1 Code 128;
        // iOS 27's Code 39, Codabar (Apple's [Codabar, QR] example: the Codabar), EAN-13 and ITF.
        let cases: [(pass: String, format: String, hex: String?)] = [
            (Run.sample("passes/boarding-pass.pkpass"), "PDF417", nil),
            (Run.sample("passes/event-ticket.pkpass"), "QRCode", nil),
            (Run.sample("barcode-passes/binary-aztec.pkpass"), "Aztec", "binary-aztec.pkpass"),
            (Run.sample("barcode-passes/latin1-code128.pkpass"), "Code128", "latin1-code128.pkpass"),
            (Run.sample("barcode-passes/code39.pkpass"), "Code39", "code39.pkpass"),
            (Run.sample("barcode-passes/codabar-then-qr.pkpass"), "Codabar", "codabar-then-qr.pkpass"),
            (Run.sample("barcode-passes/ean13.pkpass"), "EAN13", "ean13.pkpass"),
            (Run.sample("barcode-passes/itf14.pkpass"), "ITF", "itf14.pkpass"),
        ]
        let tsv = try String(contentsOfFile: Run.sample("barcode-passes/expected.tsv"), encoding: .utf8)
        func hex(_ sample: String?, pass: String) throws -> String {
            if let sample {
                let line = try XCTUnwrap(tsv.split(separator: "\n").first { $0.hasPrefix(sample + "\t") })
                return String(line.split(separator: "\t")[2])
            }
            // Samples/passes: the message is ASCII in iso-8859-1; read it from pass.json.
            let r = try RenderKit.python(["-c", "import json,sys,zipfile; b=json.loads(zipfile.ZipFile(sys.argv[1]).read('pass.json'));"
                                          + "c=(b.get('barcodes') or [b.get('barcode')])[0]; print(c['message'].encode('latin-1').hex())", pass])
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var pages: [String] = []
        var jobs: [[String]] = []
        var decode: [(shot: String, label: String, format: String, hex: String)] = []
        for (i, c) in cases.enumerated() {
            let page = sandbox.dir.appendingPathComponent("card\(i).html").path
            let run = try sandbox.run("render", [c.pass, "--format", "html", "--side", "front", "-o", page])
            XCTAssertEqual(run.status, 0, run.stderr)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertTrue(html.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"), "CSP in \(c.pass)")
            XCTAssertTrue(html.contains("<svg"), "the barcode is inline SVG in \(c.pass)")
            pages.append(page)
            let want = try hex(c.hex, pass: c.pass)
            // The iOS 27 formats at 1× only (one module per CSS pixel: the harder case), to keep
            // the Chromium launches few.
            let newFormat = ["Code39", "Codabar", "EAN13", "ITF"].contains(c.format)
            for scale in newFormat ? ["1"] : ["1", "2"] {
                let shot = sandbox.dir.appendingPathComponent("shot\(i)-\(scale).png").path
                jobs.append([page, shot, scale])
                decode.append((shot, "\((c.pass as NSString).lastPathComponent) at \(scale)x", c.format, want))
            }
        }
        // A hostile page: markup in its fields naming URLs must stay text, and nothing is fetched.
        let hostile = try RenderKit.unsignedPass(["pass.json": try RenderKit.passJSON(fields: [
            "primaryFields": [["key": "p", "label": "x", "value": "<img src=\"http://192.0.2.7/leak.png\">"]],
            "backFields": [["key": "b", "label": "y", "value": "https://192.0.2.7/plain-link",
                            "attributedValue": "<a href=\"http://192.0.2.7/\">a</a><img src=\"http://192.0.2.7/i.png\"><link rel=stylesheet href=\"http://192.0.2.7/s.css\"><style>@import url(http://192.0.2.7/x.css)</style>"]],
        ], extra: ["barcodes": [["format": "PKBarcodeFormatQR", "message": "HOSTILE-1", "messageEncoding": "iso-8859-1"]]])],
                                                   in: sandbox.dir)
        let hostilePage = sandbox.dir.appendingPathComponent("hostile.html").path
        let h = try sandbox.run("render", [hostile, "--format", "html", "-o", hostilePage])
        XCTAssertEqual(h.status, 0, h.stderr)
        jobs.append([hostilePage, sandbox.dir.appendingPathComponent("hostile.png").path, "1"])
        decode.append((sandbox.dir.appendingPathComponent("hostile.png").path, "hostile page", "QRCode",
                       Array("HOSTILE-1".utf8).map { String(format: "%02x", $0) }.joined()))
        // Issue 26 item 9: a value keeps to one line, as in Wallet. The same card with a short and
        // with a long value (a date and an e-mail address, which broke mid-token) is as tall.
        var heights: [String] = []
        for (name, values) in [("short", ["01/01/2020", "ab@live.de"]),
                               ("long", ["01/01/2020 – 31/12/2020 every day of the year", "dominic.drees.and.a.much.longer.name@live.de"])] {
            let pass = try RenderKit.unsignedPass(["pass.json": try RenderKit.passJSON(fields: [
                "primaryFields": [["key": "p", "label": "VALID", "value": values[0]]],
                "secondaryFields": [["key": "s", "label": "E-MAIL", "value": values[1]], ["key": "t", "label": "NO", "value": "7"]],
            ], extra: ["barcodes": [["format": "PKBarcodeFormatQR", "message": "ONE-LINE", "messageEncoding": "iso-8859-1"]]])],
                                                  in: sandbox.dir, name: "\(name).pkpass")
            let page = sandbox.dir.appendingPathComponent("\(name).html").path
            let rendered = try sandbox.run("render", [pass, "--format", "html", "--side", "front", "-o", page])
            XCTAssertEqual(rendered.status, 0, rendered.stderr)
            let shot = sandbox.dir.appendingPathComponent("\(name).png").path
            jobs.append([page, shot, "1"])
            heights.append(shot)
        }
        // The control: a page that does fetch must be seen by both checks, or they prove nothing.
        let control = sandbox.dir.appendingPathComponent("control.html").path
        try "<!DOCTYPE html><img src=\"http://192.0.2.1/fetch-me.png\">".write(toFile: control, atomically: true, encoding: .utf8)
        jobs.append([control, sandbox.dir.appendingPathComponent("control.png").path, "1"])

        let json = String(decoding: try JSONSerialization.data(withJSONObject: jobs), as: UTF8.self)
        let r = try RenderKit.python(["-c", Self.script, chromium, sandbox.dir.path, json])
        XCTAssertEqual(r.status, 0, r.stderr)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.output)) as? [String: [String: [String]]], r.stderr)
        let proxied = result["proxied"] ?? [:], netlog = result["netlog"] ?? [:]
        XCTAssertTrue(proxied[control]?.contains { $0.contains("192.0.2.1") } ?? false,
                      "the proxy saw the control page's request (else this check is blind): \(proxied)")
        XCTAssertTrue(netlog[control]?.contains { $0.hasPrefix("http://192.0.2.1/fetch-me.png") } ?? false,
                      "the net log shows the control page's request (else this check is blind): \(netlog[control] ?? [])")
        for page in pages + [hostilePage] {
            XCTAssertNil(proxied[page], "\(page) made a request: \(proxied[page] ?? [])")
            let urls = netlog[page] ?? ["no net log"]
            XCTAssertTrue(urls.first?.hasPrefix("EVENTS ") == true && urls.first != "EVENTS 0", "\(page): a net log was written: \(urls)")
            let foreign = urls.dropFirst().filter { !$0.hasPrefix("data:") }
            XCTAssertEqual(Array(foreign), [], "\(page): the page's requests in Chromium's net log")
        }
        // The card's height: the rows of the screenshot that differ from the page's background.
        let measured = try RenderKit.python(["-c", """
            import sys, numpy
            from PIL import Image
            for path in sys.argv[1:]:
                a = numpy.asarray(Image.open(path).convert("RGB")).astype(int)
                rows = numpy.nonzero((numpy.abs(a - numpy.array([236, 239, 241])).sum(axis=2) > 12).any(axis=1))[0]
                print(int(rows.max() - rows.min() + 1) if len(rows) else 0)
            """] + heights)
        XCTAssertEqual(measured.status, 0, measured.stderr)
        let cardHeights = measured.text.split(separator: "\n").compactMap { Int($0) }
        XCTAssertEqual(cardHeights.count, 2, measured.text)
        XCTAssertGreaterThan(cardHeights.first ?? 0, 100, measured.text)
        XCTAssertEqual(cardHeights.first, cardHeights.last, "a long value wrapped onto more lines: \(cardHeights)")
        let decoded = try RenderKit.decodeAll(decode.map(\.shot))
        XCTAssertEqual(decoded.count, decode.count)
        for (d, found) in zip(decode, decoded) {
            XCTAssertEqual(found.map { "\($0.format) \($0.hex)" }, ["\(d.format) \(d.hex)"], d.label)
        }
    }
    /// The page follows the reader's colour scheme: Chromium told the system is dark
    /// (`--force-dark-mode`, which is what `prefers-color-scheme: dark` answers to) paints the
    /// page and the back dark with light text, the same page without it light; the barcode keeps
    /// its white box and decodes in both. The light control proves the pixel check can fail.
    func testHTMLIsReadableInDarkModeAndItsBarcodeStillDecodes() throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let chromium else { return XCTFail("chromium is needed: apt-get install chromium") }
        let page = sandbox.dir.appendingPathComponent("dark.html").path
        let run = try sandbox.run("render", [Run.sample("barcode-passes/latin1-qr.pkpass"), "--format", "html", "-o", page])
        XCTAssertEqual(run.status, 0, run.stderr)
        let script = #"""
        import json, subprocess, sys
        from PIL import Image
        chromium, workdir, page = sys.argv[1:4]
        out = {}
        for mode in ("light", "dark"):
            shot = "%s/%s.png" % (workdir, mode)
            flags = ["--force-dark-mode"] if mode == "dark" else []
            subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage",
                            "--user-data-dir=%s/profile-%s" % (workdir, mode), "--window-size=800,1600",
                            "--screenshot=" + shot] + flags + ["file://" + page],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            im = Image.open(shot).convert("L")
            w, h = im.size
            # The page's own background (a corner) and the darkest/lightest of the back panel's
            # text area: the lower half of the shot holds the back below the card.
            hist = im.crop((0, h // 2, w, h)).histogram()
            out[mode] = {"shot": shot, "corner": im.getpixel((3, 3)),
                         "dark": sum(hist[:64]), "light": sum(hist[192:])}
        json.dump(out, sys.stdout)
        """#
        let r = try RenderKit.python(["-c", script, chromium, sandbox.dir.path, page])
        XCTAssertEqual(r.status, 0, r.stderr)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.output)) as? [String: [String: Any]], r.stderr)
        let light = try XCTUnwrap(result["light"]), dark = try XCTUnwrap(result["dark"])
        XCTAssertGreaterThan(light["corner"] as? Int ?? 0, 200, "light scheme: a light page")
        XCTAssertLessThan(dark["corner"] as? Int ?? 255, 40, "dark scheme: a dark page")
        XCTAssertGreaterThan(dark["dark"] as? Int ?? 0, dark["light"] as? Int ?? 0, "dark scheme: mostly dark below the card")
        let tsv = try String(contentsOfFile: Run.sample("barcode-passes/expected.tsv"), encoding: .utf8)
        let line = try XCTUnwrap(tsv.split(separator: "\n").first { $0.hasPrefix("latin1-qr.pkpass\t") })
        let want = String(line.split(separator: "\t")[2])
        let shots = [light, dark].map { $0["shot"] as? String ?? "" }
        let decoded = try RenderKit.decodeAll(shots)
        XCTAssertEqual(decoded.count, 2)
        for (mode, found) in zip(["light", "dark"], decoded) {
            XCTAssertEqual(found.map { "\($0.format) \($0.hex)" }, ["QRCode \(want)"], mode)
        }
    }
}
