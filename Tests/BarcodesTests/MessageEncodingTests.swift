import XCTest
@testable import Barcodes

final class MessageEncodingTests: XCTestCase {
    func testLatin1IsOneBytePerCharacterNulIncluded() throws {
        let e = try MessageEncoding("iso-8859-1")
        XCTAssertEqual(try e.bytes("A\u{0}\u{7F}\u{80}\u{E9}\u{FF}\u{0}"), [0x41, 0, 0x7F, 0x80, 0xE9, 0xFF, 0])
        // A combining sequence stays two characters (no normalization to U+00E9).
        XCTAssertEqual(try e.bytes("e\u{301}".replacingOccurrences(of: "\u{301}", with: "\u{B4}")), [0x65, 0xB4])
    }

    func testLatin1NamesAndTheDefaultAreLatin1() throws {
        for name in ["iso-8859-1", "ISO-8859-1", "latin1", "ISO_8859-1", "iso8859-1", "", " iso-8859-1 "] {
            XCTAssertEqual(try MessageEncoding(name).bytes("\u{FC}"), [0xFC], name)
        }
    }

    func testCharacterAboveFFIsUnrepresentableInLatin1() {
        XCTAssertThrowsError(try MessageEncoding("iso-8859-1").bytes("Price 5 \u{20AC}")) { error in
            let e = error as? BarcodeError
            XCTAssertEqual(e?.code, .unrepresentable)
            XCTAssertEqual(e?.detail, "U+20AC at character 8 has no form in iso-8859-1")
        }
    }

    func testUTF8AndASCII() throws {
        XCTAssertEqual(try MessageEncoding("UTF-8").bytes("\u{FC}\u{1F3AB}"), [0xC3, 0xBC, 0xF0, 0x9F, 0x8E, 0xAB])
        XCTAssertEqual(try MessageEncoding("us-ascii").bytes("AZ\u{0}"), [0x41, 0x5A, 0])
        XCTAssertThrowsError(try MessageEncoding("us-ascii").bytes("\u{E9}"))
    }

    func testOtherCharsetsGoThroughIconvStrictly() throws {
        XCTAssertEqual(try MessageEncoding("windows-1252").bytes("\u{20AC}\u{E9}"), [0x80, 0xE9])
        XCTAssertEqual(try MessageEncoding("ISO-8859-15").bytes("\u{20AC}"), [0xA4])
        XCTAssertEqual(try MessageEncoding("Shift_JIS").bytes("\u{6771}"), [0x93, 0x8C])
        // No transliteration: a character the charset lacks is an error, never "?".
        XCTAssertThrowsError(try MessageEncoding("windows-1252").bytes("ok \u{6771}")) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, .unrepresentable)
            XCTAssertEqual((error as? BarcodeError)?.detail, "U+6771 at character 3 has no form in windows-1252")
        }
    }

    func testUnknownAndSmuggledCharsetNamesAreRefused() {
        for name in ["x-no-such-charset", "latin1//TRANSLIT", "utf-8//IGNORE", "../../etc/passwd", String(repeating: "a", count: 300), "\u{0}"] {
            XCTAssertThrowsError(try MessageEncoding(name), name) { error in
                XCTAssertEqual((error as? BarcodeError)?.code, .unknownEncoding, name)
            }
        }
    }
}
