import XCTest
@testable import WalletPass

final class StringsFileTests: XCTestCase {
    let text = """
    /* comment "with" = quotes; */
    // line comment
    "plain" = "Value";
    "escapes" = "a\\"b\\\\c\\nd\\te";
    "unicode" = "gr\\U00fc\\U00dfe \\UD83C\\UDF9F";
    unquoted_key = "x";
    "dup" = "first";
    "dup" = "last";

    """

    func check(_ s: StringsFile, _ file: StaticString = #filePath, _ line: UInt = #line) {
        XCTAssertNil(s.problem, file: file, line: line)
        XCTAssertEqual(s.entries["plain"], "Value", file: file, line: line)
        XCTAssertEqual(s.entries["escapes"], "a\"b\\c\nd\te", file: file, line: line)
        XCTAssertEqual(s.entries["unicode"], "grüße 🎟", file: file, line: line)
        XCTAssertEqual(s.entries["unquoted_key"], "x", file: file, line: line)
        XCTAssertEqual(s.entries["dup"], "last", file: file, line: line)
    }

    func testUTF8WithAndWithoutByteOrderMark() {
        check(StringsFile.parse(Array(text.utf8)))
        check(StringsFile.parse([0xEF, 0xBB, 0xBF] + Array(text.utf8)))
    }

    func testUTF16BigAndLittleEndianWithByteOrderMark() {
        let units = Array(text.utf16)
        check(StringsFile.parse([0xFE, 0xFF] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        check(StringsFile.parse([0xFF, 0xFE] + units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
    }

    func testUTF16WithoutByteOrderMarkIsRecognisedByItsZeroBytes() {
        let units = Array(text.utf16)
        check(StringsFile.parse(units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        check(StringsFile.parse(units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
    }

    func testLatin1WhenNotUTF8() {
        let s = StringsFile.parse(Array("\"k\" = \"".utf8) + [0xE9] + Array("\";".utf8))
        XCTAssertEqual(s.entries["k"], "é")
    }

    func testBrokenFileKeepsWhatCameBeforeTheProblem() {
        let s = StringsFile.parse(Array("\"a\" = \"1\";\n\"b\" = \"2\"\n\"c\" = \"3\";".utf8))
        XCTAssertEqual(s.entries, ["a": "1"])
        XCTAssertEqual(s.problem?.hasPrefix("expected ';' after the value of \"b\""), true, s.problem ?? "")
        XCTAssertNotNil(StringsFile.parse(Array("/* never closed".utf8)).problem)
        XCTAssertNotNil(StringsFile.parse(Array("\"a\" = \"\\U12\";".utf8)).problem)
    }

    func testRealUTF16LittleEndianFileFromAnAirlinePass() throws {
        let archive = try PassArchive.open(TestSupport.fixture("pkpass-real/Kryst0r-Wallet__BoardingPass.pkpass"),
                                           limits: .default).get()
        let bytes = try XCTUnwrap(archive["en.lproj/pass.strings"])
        XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xFE])
        let s = StringsFile.parse(bytes)
        XCTAssertNil(s.problem)
        XCTAssertFalse(s.entries.isEmpty)
    }
}
