import XCTest
@testable import WalletPass

final class JSONReaderTests: XCTestCase {
    func parse(_ s: String, depth: Int = 64) -> Result<JSONValue, JSONReader.Failure> {
        JSONReader.parse(Array(s.utf8), maxDepth: depth)
    }

    func testTrailingCommasAndAByteOrderMarkAreAcceptedLikeWallet() throws {
        let v = try JSONReader.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": [1, 2,], "b": {"c": true,},}"#.utf8)).get()
        XCTAssertEqual(v["a"], .array([.number(1), .number(2)]))
        XCTAssertEqual(v["b"]?["c"], .bool(true))
    }

    func testEverythingElseIsStrict() {
        for bad in ["{a: 1}", "{'a': 1}", "[1 2]", "{\"a\" 1}", "[1,,2]", "[,]", "{\"a\":1} x", "01x", "\"\u{1}\"", "[", "",
                    "tru", "-", "1.", "1e", "{\"a\":\"\\x\"}"] {
            if case .success(let v) = parse(bad) { XCTFail("\(bad) parsed as \(v)") }
        }
    }

    func testEscapesAndSurrogatePairsDecode() throws {
        let v = try parse(#"["\"\\\/\b\f\n\r\t", "\u00e9\ud83c\udf9f", "\ud800"]"#).get()
        XCTAssertEqual(v.array?[0].string, "\"\\/\u{8}\u{C}\n\r\t")
        XCTAssertEqual(v.array?[1].string, "é🎟")
        XCTAssertEqual(v.array?[2].string, "\u{FFFD}")
    }

    func testNestingDeeperThanTheLimitIsRefusedWithoutRecursingFurther() {
        let deep = String(repeating: "[", count: 100_000)
        guard case .failure(let f) = parse(deep, depth: 64) else { return XCTFail("parsed") }
        XCTAssertEqual(f.reason, "nested deeper than 64 levels")
        XCTAssertNoThrow(try parse(String(repeating: "[", count: 63) + String(repeating: "]", count: 63), depth: 64).get())
    }

    func testNumbersAndDuplicateKeys() throws {
        let v = try parse(#"{"n": -1.5e2, "i": 12, "k": 1, "k": 2}"#).get()
        XCTAssertEqual(v["n"], .number(-150))
        XCTAssertEqual(v["i"]?.text, "12")
        XCTAssertEqual(v["k"], .number(2))
    }

    func testFailureNamesTheByteOffset() {
        guard case .failure(let f) = parse(#"{"a": nope}"#) else { return XCTFail("parsed") }
        XCTAssertEqual(f.description, "unknown literal at byte 7")
    }

    func testHugeAndNonWholeNumbersNeverTrapWhereIntegersAreExpected() throws {
        let json = #"""
            {"formatVersion": 1e400, "passTypeIdentifier": "p", "serialNumber": "s", "teamIdentifier": "t",
             "organizationName": "o", "description": "d", "associatedStoreIdentifiers": [1e300, -1e400, 2.5, 7],
             "beacons": [{"proximityUUID": "u", "major": 1e400, "minor": -1e309}],
             "generic": {"auxiliaryFields": [{"key": "k", "value": 1e400, "row": 1e400}]}}
            """#
        let d = try PassDocument.parse(Array(json.utf8), maxDepth: 64).get()
        XCTAssertEqual(d.problem?.code, .unsupportedFormatVersion)
        XCTAssertEqual(d.associatedStoreIdentifiers, [7])
        XCTAssertNil(d.beacons.first?.major)
        XCTAssertNil(d.fields.auxiliaryFields.first?.row)
        XCTAssertEqual(FieldRenderer.render(d.fields.auxiliaryFields[0], localize: { $0 }).value, "inf")
        XCTAssertEqual(JSONValue.number(7).integer, 7)
        XCTAssertNil(JSONValue.number(.nan).integer)
    }
}
