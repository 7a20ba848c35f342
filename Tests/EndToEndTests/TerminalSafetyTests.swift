import Foundation
import XCTest

/// Issue 9 item 1: text from a message or a pass never drives the terminal. A pass whose
/// organizationName clears the screen (`ESC [2J ESC [H`), whose description retitles the window
/// (an OSC sequence) and whose fields carry bidi overrides and a C1 CSI, in a message whose
/// subject and attachment name do the same: every command prints them visibly instead, and
/// `--json` keeps the exact text, escaped.
final class TerminalSafetyTests: XCTestCase {
    static let organization = "Evil\u{1B}[2J\u{1B}[H Org"
    static let description = "Ticket\u{1B}]0;pwned\u{07} \u{202E}txt.exe"
    static let label = "SE\u{9B}31mAT"
    static let value = "\u{2066}12\u{2069} \u{202D}A\u{7F}"
    static let subject = "=?UTF-8?Q?Hi_=1B]2;title=07_there_=E2=80=AE?="
    static let filename = "t\u{1B}[31mx.pkpass"

    var sandbox: Sandbox!
    var messagePath: String!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
        let pass = try FilterPassForge.pass(edits: [
            "organizationName": Self.organization,
            "description": Self.description,
            "eventTicket": ["primaryFields": [["key": "seat", "label": Self.label, "value": Self.value]],
                            "backFields": [["key": "terms", "label": "TERMS", "value": "line one\u{1B}[1A\nline two\r\u{1B}[K"]]],
        ])
        let message = FilterMail.message(passes: [(name: Self.filename, bytes: pass)], subject: Self.subject)
        messagePath = sandbox.dir.appendingPathComponent("hostile.eml").path
        try Data(message).write(to: URL(fileURLWithPath: messagePath))
    }

    /// Nothing a terminal would act on: no C0 control but LF, no DEL, no C1 control, no bidi control.
    func assertInert(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let bad = (v < 0x20 && v != 0x0A) || v == 0x7F || (0x80..<0xA0).contains(v)
                || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
            if bad {
                XCTFail("\(what) printed U+\(String(v, radix: 16, uppercase: true)): \(text.debugDescription)", file: file, line: line)
                return
            }
        }
    }

    func testEveryCommandShowsControlsVisiblyAndJSONKeepsTheExactText() throws {
        let scan = try sandbox.run("scan", ["--verbose", messagePath])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        assertInert(scan.stdout + scan.stderr, "scan")
        XCTAssertTrue(scan.stdout.contains("Evil<U+001B>[2J<U+001B>[H Org"), scan.stdout)
        XCTAssertTrue(scan.stdout.contains("Ticket<U+001B>]0;pwned<U+0007> <U+202E>txt.exe"), scan.stdout)
        XCTAssertTrue(scan.stdout.contains("<U+2066>12<U+2069> <U+202D>A<U+007F>"), scan.stdout)
        XCTAssertTrue(scan.stdout.contains("SE<U+009B>31mAT"), scan.stdout)
        XCTAssertTrue(scan.stdout.contains("t<U+001B>[31mx.pkpass"), scan.stdout)
        XCTAssertTrue(scan.stdout.contains("Hi <U+001B>]2;title<U+0007> there <U+202E>"), scan.stdout)

        let json = try sandbox.run("scan", ["--json", messagePath])
        assertInert(json.stdout, "scan --json")
        XCTAssertTrue(json.stdout.contains(#"Evil\u001b[2J\u001b[H Org"#), json.stdout)
        XCTAssertTrue(json.stdout.contains(#"\u202etxt.exe"#), json.stdout)
        let object = try XCTUnwrap(json.objects.first)
        let pass = try XCTUnwrap(object["pass"] as? [String: Any])
        XCTAssertEqual(pass["organizationName"] as? String, Self.organization)
        XCTAssertEqual(pass["description"] as? String, Self.description)
        let source = try XCTUnwrap(object["source"] as? [String: Any])
        XCTAssertEqual(source["filename"] as? String, Self.filename)
        XCTAssertEqual(source["subject"] as? String, "Hi \u{1B}]2;title\u{07} there \u{202E}")

        let add = try sandbox.run("add", ["--yes", messagePath])
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        assertInert(add.stdout + add.stderr, "add")
        XCTAssertTrue(add.stdout.contains("Evil<U+001B>[2J<U+001B>[H Org"), add.stdout)

        let list = try sandbox.run("list")
        assertInert(list.stdout + list.stderr, "list")
        XCTAssertTrue(list.stdout.contains("Evil<U+001B>[2J<U+001B>[H Org"), list.stdout)
        let listJSON = try sandbox.run("list", ["--json"])
        XCTAssertEqual(listJSON.objects.first?["organizationName"] as? String, Self.organization)

        let id = "pass.org.passconduit.event/EVT-2026-0001"
        let show = try sandbox.run("show", [id])
        XCTAssertEqual(show.status, 0, show.stderr)
        assertInert(show.stdout + show.stderr, "show")
        XCTAssertTrue(show.stdout.contains("    line one<U+001B>[1A\n    line two<U+001B>[K"), show.stdout)
        XCTAssertTrue(show.stdout.contains("\"Hi <U+001B>]2;title<U+0007> there <U+202E>\""), show.stdout)
        let field = try sandbox.run("show", [id, "--field", "seat"])
        assertInert(field.stdout, "show --field")
        XCTAssertEqual(field.stdout, "<U+2066>12<U+2069> <U+202D>A<U+007F>\n")
        let showJSON = try sandbox.run("show", ["--json", id])
        XCTAssertEqual(showJSON.objects.first?["organizationName"] as? String, Self.organization)

        let log = try sandbox.run("log")
        assertInert(log.stdout + log.stderr, "log")

        let remove = try sandbox.run("remove", ["--yes", id])
        XCTAssertEqual(remove.status, 0, remove.stderr)
        assertInert(remove.stdout + remove.stderr, "remove")
        XCTAssertTrue(remove.stdout.contains("Evil<U+001B>[2J<U+001B>[H Org"), remove.stdout)
    }

    func testOffersShowStagedTextVisibly() throws {
        let message = try Data(contentsOf: URL(fileURLWithPath: messagePath))
        let filter = try sandbox.run("filter", ["--log", "none"], stdin: message)
        XCTAssertEqual(filter.status, 0, filter.stderr)
        let offers = try sandbox.run("offers")
        assertInert(offers.stdout + offers.stderr, "offers")
        XCTAssertTrue(offers.stdout.contains("Evil<U+001B>[2J<U+001B>[H Org"), offers.stdout)
        XCTAssertTrue(offers.stdout.contains("Hi <U+001B>]2;title<U+0007> there <U+202E>"), offers.stdout)
        let review = try sandbox.run("add", ["--yes", "--offers"])
        assertInert(review.stdout + review.stderr, "add --offers")
    }

    /// A warning quotes the input's name: a file named with an escape sequence is shown visibly.
    func testWarningsQuoteHostileNamesVisibly() throws {
        let name = sandbox.dir.appendingPathComponent("empty\u{1B}]0;x\u{07}.eml").path
        FileManager.default.createFile(atPath: name, contents: Data())
        let scan = try sandbox.run("scan", [name])
        XCTAssertEqual(scan.status, 66)
        assertInert(scan.stderr, "scan's warning")
        XCTAssertTrue(scan.stderr.contains("empty<U+001B>]0;x<U+0007>.eml: is empty"), scan.stderr)
    }
}
