import Foundation
import XCTest

/// `show` and the add flow on a real pseudo-terminal draw the barcode; zxing-cpp (Debian
/// python3-zxing-cpp) reads the drawing back out of the captured terminal output and must find
/// exactly the message bytes (Samples/barcode-passes/expected.tsv) in the pass's symbology.
final class TerminalBarcodeTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws { sandbox = try Sandbox() }
    override func tearDown() { sandbox = nil }

    static let on = "\u{1B}[38;5;16;48;5;231m"

    func pass(_ name: String) -> String { Run.sample("barcode-passes/" + name) }

    /// The expected hex of a sample's message bytes.
    func expectedHex(_ name: String) throws -> String {
        let text = try String(contentsOfFile: pass("expected.tsv"), encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix(name + ".pkpass\t") }, name)
        return String(line.split(separator: "\t")[2])
    }

    func add(_ name: String) throws -> String {
        XCTAssertEqual(try sandbox.run("add", ["--yes", pass(name)]).status, 0)
        return "pass.org.passconduit.generic/BC-" + name.replacingOccurrences(of: ".pkpass", with: "")
    }

    /// Decodes the barcode drawn in `output`: [(format, hex)].
    func decode(_ output: String) throws -> [String] {
        let file = sandbox.dir.appendingPathComponent("\(UUID().uuidString).term")
        try Data(output.utf8).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Run.root.appendingPathComponent("Tests/BarcodesTests/decode_barcodes.py").path]
        let input = Pipe(), out = Pipe()
        process.standardInput = input
        process.standardOutput = out
        try process.run()
        input.fileHandleForWriting.write(Data("t\t\(file.path)\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "decoder failed (\(text)): install python3-zxing-cpp")
        return text.split(separator: "\n").map { line in
            let c = line.split(separator: "\t", omittingEmptySubsequences: false)
            return c.count == 3 ? "\(c[1]) \(c[2])" : String(line)
        }
    }

    func testShowDrawsAScannableLatin1QRWithItsAltText() throws {
        let id = try add("latin1-qr.pkpass")
        let run = try sandbox.runOnTerminal("show", [id], answers: [], colour: true)
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertEqual(try decode(run.stdout), ["QRCode \(try expectedHex("latin1-qr"))"])
        // altText under the drawing.
        let lines = run.stdout.components(separatedBy: "\n")
        let last = try XCTUnwrap(lines.lastIndex { $0.contains(Self.on) })
        XCTAssertEqual(lines[last + 1].trimmingCharacters(in: .whitespaces), "Zürich")
        // Quiet zone: QR is 4 modules each side, so the first drawn line is blank.
        let first = try XCTUnwrap(lines.first { $0.contains(Self.on) })
        XCTAssertFalse(first.contains("\u{2580}") || first.contains("\u{2584}") || first.contains("\u{2588}"))
    }

    func testNoBarcodeFlagAndNonTerminalOutputDrawNothing() throws {
        let id = try add("latin1-qr.pkpass")
        let flagged = try sandbox.runOnTerminal("show", [id, "--no-barcode"], answers: [], colour: true)
        XCTAssertEqual(flagged.status, 0)
        XCTAssertFalse(flagged.stdout.contains(Self.on), flagged.stdout)
        let piped = try sandbox.run("show", [id])
        XCTAssertEqual(piped.status, 0)
        XCTAssertFalse(piped.stdout.contains("\u{2580}") || piped.stdout.contains(Self.on), piped.stdout)
    }

    func testTooNarrowTerminalSaysSoAndShowsTheText() throws {
        let id = try add("code128-long.pkpass")
        let narrow = try sandbox.runOnTerminal("show", [id], answers: [], colour: true, extraEnvironment: ["COLUMNS": "80"])
        XCTAssertEqual(narrow.status, 0)
        XCTAssertFalse(narrow.stdout.contains(Self.on), narrow.stdout)
        XCTAssertTrue(narrow.stdout.contains("The terminal is 80 columns wide and the Code 128 barcode needs"), narrow.stdout)
        XCTAssertTrue(narrow.stdout.contains("AHOV29CJQX4.ELSZ6 GNU18BIPW3-DKRY5/FMT07AHOV29CJQX4.ELSZ6 G"), narrow.stdout)
        let wide = try sandbox.runOnTerminal("show", [id], answers: [], colour: true, extraEnvironment: ["COLUMNS": "900"])
        XCTAssertEqual(try decode(wide.stdout), ["Code128 \(try expectedHex("code128-long"))"])
    }

    func testUnencodableMessageSaysWhyAndShowsTheText() throws {
        let id = try add("unrepresentable-latin1.pkpass")
        let run = try sandbox.runOnTerminal("show", [id], answers: [], colour: true)
        XCTAssertEqual(run.status, 0)
        XCTAssertFalse(run.stdout.contains(Self.on), run.stdout)
        XCTAssertTrue(run.stdout.contains("The barcode's message has a character its character set (iso-8859-1) cannot hold, so it is shown as text."), run.stdout)
        XCTAssertTrue(run.stdout.contains("Price 5 €"), run.stdout)
        let unsupported = try add("unsupported-only.pkpass")
        let other = try sandbox.runOnTerminal("show", [unsupported], answers: [], colour: true)
        XCTAssertTrue(other.stdout.contains("The barcode's format is not one Wallet draws (QR, PDF417, Aztec, Code 128, Code 39, Codabar, EAN-13 and ITF), so it is shown as text."), other.stdout)
        XCTAssertTrue(other.stdout.contains("A123456B"), other.stdout)
    }

    /// iOS 27's formats on a real terminal (issue 40 item 3), on signed event tickets made from
    /// the sample one: Apple's `[Codabar, QR]` draws the Codabar (before: the QR), and an EAN-13,
    /// a Code 39 and an ITF draw and scan to their bytes; an EAN-13 with a wrong check digit says
    /// so and shows its text, not the QR after it.
    func testShowDrawsTheIOS27FormatsWhenFirst() throws {
        func item(_ format: String, _ message: String) -> [String: Any] {
            ["format": "PKBarcodeFormat" + format, "message": message, "messageEncoding": "iso-8859-1"]
        }
        let edits: [[String: Any]] = [
            ["serialNumber": "IOS27-CODABAR", "barcodes": [item("Codabar", "123456789"), item("QR", "123456789")]],
            ["serialNumber": "IOS27-EAN13", "barcodes": [item("EAN13", "400638133393"), item("QR", "400638133393")]],
            ["serialNumber": "IOS27-CODE39", "barcodes": [item("Code39", "EVT-0042")]],
            ["serialNumber": "IOS27-ITF", "barcodes": [item("I2of5", "00012345678905")]],
            ["serialNumber": "IOS27-BAD-EAN13", "barcodes": [item("EAN13", "4006381333932"), item("QR", "4006381333932")]],
        ]
        let passes = try HandOn.forgeMany(edits: edits, in: sandbox.dir)
        XCTAssertEqual(try sandbox.run("add", ["--yes"] + passes.map(\.path)).status, 0)
        let hex = { (s: String) in Array(s.utf8).map { String(format: "%02x", $0) }.joined() }
        let type = "pass.org.passconduit.event/"
        for (serial, want) in [("IOS27-CODABAR", "Codabar \(hex("123456789"))"), ("IOS27-EAN13", "EAN13 \(hex("4006381333931"))"),
                               ("IOS27-CODE39", "Code39 \(hex("EVT-0042"))"), ("IOS27-ITF", "ITF \(hex("00012345678905"))")] {
            let run = try sandbox.runOnTerminal("show", [type + serial], answers: [], colour: true, extraEnvironment: ["COLUMNS": "400"])
            XCTAssertEqual(run.status, 0, run.stdout)
            XCTAssertEqual(try decode(run.stdout), [want], serial)
        }
        let bad = try sandbox.runOnTerminal("show", [type + "IOS27-BAD-EAN13"], answers: [], colour: true, extraEnvironment: ["COLUMNS": "400"])
        XCTAssertFalse(bad.stdout.contains(Self.on), bad.stdout)
        XCTAssertTrue(bad.stdout.contains("The EAN-13 barcode's message ends in the check digit 2, but its first 12 digits make 1, so it is shown as text."),
                      bad.stdout)
        XCTAssertTrue(bad.stdout.contains("4006381333932"), bad.stdout)
    }

    func testAddFlowDrawsBinaryAztecThatScansToItsBytes() throws {
        let run = try sandbox.runOnTerminal("add", [pass("binary-aztec.pkpass")], answers: ["n"], colour: true)
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertTrue(run.stdout.contains("Add to your library? [y/N]"))
        // 304 bytes with NULs and every byte value; the text fallback would have escaped them.
        XCTAssertEqual(try decode(run.stdout), ["Aztec \(try expectedHex("binary-aztec"))"])
    }

    func testNoColorDrawsWithoutEscapesAndSaysSo() throws {
        let id = try add("latin1-aztec.pkpass")
        let run = try sandbox.runOnTerminal("show", [id], answers: [])
        XCTAssertFalse(run.stdout.contains("\u{1B}["), run.stdout)
        XCTAssertTrue(run.stdout.contains("\u{2588}"), run.stdout)
        XCTAssertTrue(run.stdout.contains("Drawn without colours (NO_COLOR, --no-color or TERM=dumb)"), run.stdout)
    }
}
