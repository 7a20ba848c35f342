import Foundation
import XCTest

/// Helpers for the `render` tests: unsigned passes built from a pass.json and files (the renderer
/// draws unverified passes, with a band), and one Python process (Debian python3-zxing-cpp,
/// python3-pil) that decodes many pictures at once.
enum RenderKit {
    /// Builds a .pkpass (zip) from `files` (name -> bytes). No manifest or signature: it renders
    /// as "not verified".
    static func unsignedPass(_ files: [String: [UInt8]], in dir: URL, name: String = "hostile.pkpass") throws -> String {
        let out = dir.appendingPathComponent(name)
        var spec: [String: String] = [:]
        for (n, b) in files { spec[n] = Data(b).base64EncodedString() }
        let json = try JSONSerialization.data(withJSONObject: spec)
        let specURL = dir.appendingPathComponent(name + ".json")
        try json.write(to: specURL)
        let script = """
        import base64, json, sys, zipfile
        spec = json.load(open(sys.argv[1]))
        with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
            for n, b in spec.items():
                z.writestr(n, base64.b64decode(b))
        """
        let r = try python(["-c", script, specURL.path, out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return out.path
    }

    /// A minimal pass.json of `style` with the given extra keys.
    static func passJSON(style: String = "generic", fields: [String: Any] = [:], extra: [String: Any] = [:]) throws -> [UInt8] {
        var o: [String: Any] = [
            "formatVersion": 1, "passTypeIdentifier": "pass.org.example.hostile", "serialNumber": "H-1",
            "teamIdentifier": "TEAM123456", "organizationName": "Hostile Org", "description": "A hostile pass",
            style: fields,
        ]
        if style == "boardingPass", (fields["transitType"] == nil) {
            var f = fields
            f["transitType"] = "PKTransitTypeAir"
            o[style] = f
        }
        for (k, v) in extra { o[k] = v }
        return [UInt8](try JSONSerialization.data(withJSONObject: o))
    }

    /// A PNG made with Python's zlib: `declared` size in IHDR, `rows` of real pixel data (may be
    /// fewer or more than declared), or raw `idat` bytes.
    static func png(width: Int, height: Int, dataRows: Int? = nil, idat: [UInt8]? = nil, truncateTo: Int? = nil) throws -> [UInt8] {
        let script = """
        import struct, sys, zlib
        w, h, rows, trunc = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
        def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
        raw = b"".join(b"\\x00" + bytes([200, 30, 30, 255]) * w for _ in range(rows)) if rows >= 0 else bytes.fromhex(sys.argv[5])
        data = zlib.compress(raw, 9) if rows >= 0 else raw
        png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
        sys.stdout.buffer.write(png[:trunc] if trunc > 0 else png)
        """
        let rows = idat == nil ? (dataRows ?? height) : -1
        let hex = (idat ?? []).map { String(format: "%02x", $0) }.joined()
        let r = try python(["-c", script, "\(width)", "\(height)", "\(rows)", "\(truncateTo ?? 0)", hex], binary: true)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.output
    }

    struct PyResult {
        var status: Int32
        var output: [UInt8]
        var stderr: String
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs Debian's /usr/bin/python3 (which has python3-zxing-cpp and python3-pil).
    static func python(_ arguments: [String], binary: Bool = false) throws -> PyResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8"]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-py-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return PyResult(status: process.terminationStatus, output: [UInt8](try Data(contentsOf: outURL)),
                        stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Fails the test with the Debian package to install when a peer is missing.
    static func requirePeers(_ modules: [String] = ["zxingcpp", "PIL"]) throws {
        let r = try python(["-c", "import " + modules.joined(separator: ", ")])
        if r.status != 0 {
            XCTFail("python3 modules \(modules) are needed: apt-get install python3-zxing-cpp python3-pil (\(r.stderr))")
            throw HandOn.MissingPeer(package: "python3-zxing-cpp python3-pil")
        }
    }

    /// Decodes many pictures in one Python process. Each job: image path, zxing format name
    /// ("QRCode", "PDF417", "Aztec", "Code128"). Returns per job the hex of the decoded bytes
    /// and the format found, or nil when nothing decoded.
    static func decode(_ jobs: [(path: String, format: String)]) throws -> [(hex: String, format: String)?] {
        let script = """
        import json, sys, zxingcpp
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = 60_000_000
        out = []
        for path, fmt in json.load(open(sys.argv[1])):
            img = Image.open(path).convert("L")
            want = getattr(zxingcpp.BarcodeFormat, fmt)
            r = zxingcpp.read_barcode(img, formats=want)
            if r is None or not r.valid:
                # Screenshots and pages carry more than the symbol: try every symbol found.
                rs = [x for x in zxingcpp.read_barcodes(img, formats=want) if x.valid]
                r = rs[0] if rs else None
            out.append(None if r is None else [r.bytes.hex(), r.format.name])
        json.dump(out, sys.stdout)
        """
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-dec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("jobs.json")
        try JSONSerialization.data(withJSONObject: jobs.map { [$0.path, $0.format] }).write(to: list)
        let r = try python(["-c", script, list.path])
        guard r.status == 0, let parsed = try JSONSerialization.jsonObject(with: Data(r.output)) as? [Any] else {
            XCTFail("decoder failed: \(r.stderr)")
            return []
        }
        return parsed.map { item in
            guard let a = item as? [String], a.count == 2 else { return nil }
            return (a[0], a[1])
        }
    }

    /// Decodes every picture in one Python process, searching every symbology, so a symbol drawn
    /// in the wrong one shows up as such. A path is a PNG or PGM (read with PIL) or a ".term" file:
    /// terminal output whose black-on-white half-block lines are turned back into pixels, 4 per
    /// module. A ".pgm" is a whole PDF page rasterized by pdftoppm: it is cut to the bounding box
    /// of what is drawn on it (plus a white margin), found from its pixels — zxing-cpp 1.4's Aztec
    /// detector seeds its search at the centre of the image, and a card printed at the top of an
    /// A4 page has blank paper there. Returns per path every symbol found: zxing's format name and
    /// the decoded BYTES in hex.
    static func decodeAll(_ paths: [String]) throws -> [[(format: String, hex: String)]] {
        let script = """
        import json, os, sys, numpy, zxingcpp
        from PIL import Image
        Image.MAX_IMAGE_PIXELS = 80_000_000
        ON, OFF = "\\x1b[38;5;16;48;5;231m", "\\x1b[0m"
        HALF = {"\\u2588": (1, 1), "\\u2580": (1, 0), "\\u2584": (0, 1)}
        def terminal(path, scale=4):
            rows = []
            for line in open(path, encoding="utf-8").read().split("\\n"):
                start = line.find(ON)
                if start < 0:
                    continue
                end = line.find(OFF, start)
                body = line[start + len(ON):end if end >= 0 else len(line)]
                rows += [[HALF.get(c, (0, 0))[0] for c in body], [HALF.get(c, (0, 0))[1] for c in body]]
            if not rows:
                return numpy.full((8, 8), 255, dtype=numpy.uint8)
            grid = numpy.full((len(rows), max(len(r) for r in rows)), 255, dtype=numpy.uint8)
            for y, r in enumerate(rows):
                for x, dark in enumerate(r):
                    if dark:
                        grid[y, x] = 0
            return numpy.kron(grid, numpy.ones((scale, scale), dtype=numpy.uint8))
        def page(path):
            img = Image.open(path).convert("L")
            a = numpy.asarray(img)
            ys, xs = numpy.nonzero(a < 245)
            if len(ys) == 0:
                return img
            m = 75
            return img.crop((max(0, int(xs.min()) - m), max(0, int(ys.min()) - m),
                             min(a.shape[1], int(xs.max()) + 1 + m), min(a.shape[0], int(ys.max()) + 1 + m)))
        def in_child(fn):
            # Debian's zxing-cpp 1.4 can abort on an assertion (Result::operator==, lineCount() == 1)
            # when it merges symbols: run it in a child; None when the child died.
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                try:
                    data = json.dumps(fn())
                except Exception as e:
                    data = json.dumps([["ERROR " + str(e)[:200], ""]])
                os.write(w, data.encode())
                os._exit(0)
            os.close(w)
            chunks = []
            while True:
                b = os.read(r, 65536)
                if not b:
                    break
                chunks.append(b)
            os.close(r)
            _, status = os.waitpid(pid, 0)
            text = b"".join(chunks)
            return json.loads(text) if status == 0 and text else None
        def symbols(img):
            found = in_child(lambda: [[r.format.name, bytes(r.bytes).hex()] for r in zxingcpp.read_barcodes(img) if r.valid])
            if found is None:
                found = in_child(lambda: [[r.format.name, bytes(r.bytes).hex()] for r in [zxingcpp.read_barcode(img)] if r and r.valid])
            if found is None:
                return [["CRASH (zxing-cpp aborted)", ""]]
            unique = []
            for f in found:
                if f not in unique:
                    unique.append(f)
            return unique
        def aimed(img):
            # The whole picture, then the way a scanner is aimed at the symbol: zxing-cpp 1.4's
            # Aztec detector (ZXing's) starts from the centre of the image and gives up unless the
            # bullseye is near it, so square windows (the full width, then 3/4 of it) slide over
            # the card in steps of 1/64 of its width until one is centred on the symbol. Last,
            # windows centred nearer the top and bottom edges than half their side, over the
            # picture set in white margins (a short card's barcode sits in the top 300 pixels of
            # an 800x1600 screenshot, where no window of the picture itself is centred).
            yield img
            W, H = img.size
            step = max(2, W // 64)
            sides = [(side, [W // 2] if side == W else range(side // 2, W - side // 2 + 1, step * 4))
                     for side in (W, (W * 3) // 4) if side <= H]
            for side, xs in sides:
                for cy in range(side // 2, H - side // 2 + 1, step):
                    for cx in xs:
                        yield img.crop((cx - side // 2, cy - side // 2, cx - side // 2 + side, cy - side // 2 + side))
            m = W // 2
            framed = Image.new("L", (W, H + 2 * m), 255)
            framed.paste(img, (0, m))
            for side, xs in sides:
                edges = list(range(0, side // 2, step)) + list(range(H - side // 2 + step, H + 1, step))
                for cy in edges:
                    for cx in xs:
                        top = cy + m - side // 2
                        yield framed.crop((cx - side // 2, top, cx - side // 2 + side, top + side))
        out = []
        for path in json.load(open(sys.argv[1])):
            try:
                img = terminal(path) if path.endswith(".term") else page(path) if path.endswith(".pgm") else Image.open(path).convert("L")
            except Exception as e:
                out.append([["ERROR " + str(e)[:200], ""]])
                continue
            found = []
            for window in aimed(img):
                found = symbols(window)
                if found:
                    break
            out.append(found)
        json.dump(out, sys.stdout)
        """
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-dec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("jobs.json")
        try JSONSerialization.data(withJSONObject: paths).write(to: list)
        let r = try python(["-c", script, list.path])
        guard r.status == 0, let parsed = try JSONSerialization.jsonObject(with: Data(r.output)) as? [[[String]]] else {
            XCTFail("decoder failed: \(r.stderr)")
            return []
        }
        return parsed.map { symbols in symbols.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil } }
    }
}
