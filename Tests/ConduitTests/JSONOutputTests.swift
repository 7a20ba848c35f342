import XCTest
@testable import Conduit

final class JSONOutputTests: XCTestCase {
    func testKeysKeepTheirOrderAndControlCharactersAreEscaped() {
        let value = JSONOutput.object([("b", .int(1)), ("a", .string("x\"\n\u{1}\u{2028}")), ("n", .null), ("t", .bool(true))])
        XCTAssertEqual(value.line, #"{"b":1,"a":"x\"\n\u0001\u2028","n":null,"t":true}"#)
    }

    func testTextNeedingNoEscapeIsCopiedAndEuroSignStaysRaw() {
        XCTAssertEqual(JSONOutput.string("Row 12, Seat 7").line, #""Row 12, Seat 7""#)
        XCTAssertEqual(JSONOutput.string("49,50 € \u{2029}").line, #""49,50 € \u2029""#)
    }

    func testOutputParsesAsJSON() throws {
        let value = JSONOutput.array([.string("é🎫"), .object([("k", .array([]))])])
        let parsed = try JSONSerialization.jsonObject(with: Data(value.line.utf8)) as? [Any]
        XCTAssertEqual(parsed?.first as? String, "é🎫")
    }

    func testHumanDatesNameTheirTimeZone() {
        let date = Date(timeIntervalSince1970: 1_781_283_600)
        XCTAssertEqual(DateText.human(date, timeZone: TimeZone(identifier: "UTC")!), "Fri 12 Jun 2026, 17:00 UTC")
        XCTAssertEqual(DateText.human(date, timeZone: TimeZone(identifier: "Europe/Berlin")!), "Fri 12 Jun 2026, 19:00 CEST")
    }

    func testDatesAreUTCISO8601() {
        XCTAssertEqual(DateText.iso(Date(timeIntervalSince1970: 1_781_283_600)), "2026-06-12T17:00:00Z")
    }
}
