import XCTest
import MailMIME
@testable import Conduit

/// The shared rules for text from messages and passes: the terminal shows controls visibly,
/// JSON escapes them and keeps the exact text.
final class TextSafetyTests: XCTestCase {
    func testTerminalTextShowsEveryControlAndBidiScalarVisibly() {
        XCTAssertEqual(TerminalText.line("a\u{1B}[2J\u{1B}[Hb"), "a<U+001B>[2J<U+001B>[Hb")
        XCTAssertEqual(TerminalText.line("\u{1B}]0;title\u{07}"), "<U+001B>]0;title<U+0007>")
        XCTAssertEqual(TerminalText.line("x\u{9B}31m\u{7F}"), "x<U+009B>31m<U+007F>")
        XCTAssertEqual(TerminalText.line("\u{202E}gnp\u{2066}\u{2069}\u{200F}\u{061C}"), "<U+202E>gnp<U+2066><U+2069><U+200F><U+061C>")
        XCTAssertEqual(TerminalText.line("one\ntwo\r\nthree\u{2028}four\tfive"), "one two  three four five")
        XCTAssertEqual(TerminalText.lines("one\ntwo\r\nthree\u{85}four"), "one\ntwo\nthree\nfour")
        XCTAssertEqual(TerminalText.line("Bibliothèque 票 🎫"), "Bibliothèque 票 🎫")
        XCTAssertEqual(TerminalText.line(PathBytes.string(Array("caf".utf8) + [0xE9])), "caf\\xe9")
    }

    func testJSONEscapesControlsAndKeepsTheText() throws {
        let text = "a\u{1B}[2J\u{9B}\u{202E}\u{7F}é"
        let line = JSONOutput.object([("t", .string(text))]).line
        XCTAssertEqual(line, #"{"t":"a\u001b[2J\u009b\u202e\u007fé"}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        XCTAssertEqual(parsed?["t"], text)
    }

    func testJSONWritesRawPathBytesAsPEP383Escapes() {
        let path = PathBytes.string(Array("caf".utf8) + [0xE9] + Array(".pkpass".utf8))
        XCTAssertEqual(JSONOutput.path(path).line, #""caf\udce9.pkpass""#)
        XCTAssertEqual(JSONOutput.path("plain/é.eml").line, #""plain/é.eml""#)
    }
}
