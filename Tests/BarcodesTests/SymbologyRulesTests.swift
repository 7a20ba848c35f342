import XCTest
@testable import Barcodes
import WalletPass

/// iOS 27's Code 39, Codabar, EAN-13 and ITF: drawn as linear codes with their standards' quiet
/// zones; each symbology's rules are checked before zint is asked, and a message that breaks one
/// gets its sentence instead of zint's fix-up into other bytes. (That the drawings scan to the
/// message: SampleBarcodeTests and the end-to-end render tests, with zxing-cpp.)
final class SymbologyRulesTests: XCTestCase {
    func matrix(_ message: String, _ format: BarcodeFormat) throws -> BarcodeMatrix {
        try BarcodeEncoder.matrix(for: PassBarcode(format: format.rawValue, message: message))
    }

    func error(_ message: String, _ format: BarcodeFormat, file: StaticString = #filePath, line: UInt = #line) -> BarcodeError? {
        do {
            _ = try matrix(message, format)
            XCTFail("\(format.name) \"\(message)\" was drawn", file: file, line: line)
            return nil
        } catch {
            return error as? BarcodeError
        }
    }

    func testTheFourAreLinearWithTheirQuietZones() throws {
        let cases: [(BarcodeFormat, String, Int)] = [(.code39, "PC-2026/0042 $+%.", 10), (.codabar, "123456789", 10),
                                                     (.ean13, "5901234123457", 11), (.itf, "15400141288763", 10)]
        for (format, message, quiet) in cases {
            let m = try matrix(message, format)
            XCTAssertTrue(format.isLinear, format.name)
            XCTAssertEqual(m.height, BarcodeEncoder.defaultBarHeight, format.name)
            XCTAssertEqual(m.rowStrings.first, m.rowStrings.last, format.name)
            XCTAssertTrue(m.quietZone == (quiet, 2), "\(format.name): \(m.quietZone)")
            XCTAssertTrue(m.isDark(x: 0, y: 0), "\(format.name) starts with a bar")
            // zint counts Codabar's last inter-character gap into the width: one light module.
            XCTAssertTrue(m.isDark(x: m.width - 1, y: 0) || m.isDark(x: m.width - 2, y: 0), "\(format.name) ends with a bar")
            XCTAssertEqual(TerminalBarcode(m).matrix.height, TerminalBarcode.linearBarHeight, format.name)
        }
        // EAN-13 is 95 modules: 3 guard + 6×7 + 5 centre + 6×7 + 3 guard.
        XCTAssertEqual(try matrix("5901234123457", .ean13).width, 95)
    }

    /// Messages the rules accept reach zint exactly as before: the four older formats take any
    /// bytes unchanged (their drawings stay byte-identical).
    func testOlderFormatsPassEveryByteUnchanged() throws {
        let bytes = (0...255).map(UInt8.init) + [0, 0, 0x41]
        for format in [BarcodeFormat.qr, .pdf417, .aztec, .code128] {
            XCTAssertEqual(try SymbologyRules.prepare(bytes, for: format), bytes, format.name)
        }
    }

    func testEAN13GetsItsCheckDigitAndNeverBecomesAnEAN8() throws {
        // 12 digits: the check digit (1) is added; the drawing is the 13-digit one's.
        XCTAssertEqual(try SymbologyRules.prepare(Array("400638133393".utf8), for: .ean13), Array("4006381333931".utf8))
        XCTAssertEqual(try matrix("400638133393", .ean13).rowStrings, try matrix("4006381333931", .ean13).rowStrings)
        XCTAssertEqual(SymbologyRules.checkDigit(Array("590123412345".utf8)[...]), 7)
        XCTAssertEqual(SymbologyRules.checkDigit(Array("000000000000".utf8)[...]), 0)
        let wrong = error("4006381333932", .ean13)
        XCTAssertEqual(wrong?.code, .invalidMessage)
        XCTAssertEqual(wrong?.message, "The EAN-13 barcode's message ends in the check digit 2, but its first 12 digits make 1, so it is shown as text.")
        XCTAssertEqual(wrong?.problem.code.rawValue, "barcode-message-invalid")
        for short in ["96385074", "12345", "1"] {
            let e = error(short, .ean13)
            XCTAssertEqual(e?.code, .invalidMessage, short)
            XCTAssertEqual(e?.message, "The EAN-13 barcode's message has \(short.count) digits, and an EAN-13 code holds 12 and a check digit, so it is shown as text.")
        }
        XCTAssertEqual(error("40063813339X", .ean13)?.message,
                       "The EAN-13 barcode's message has a character that is not a digit (EAN-13 holds only digits), so it is shown as text.")
        XCTAssertEqual(error("4006381333931+12", .ean13)?.code, .tooLong, "no add-on")
        XCTAssertEqual(error("40063813339311", .ean13)?.message, "The barcode's message is too long for an EAN-13 code, so it is shown as text.")
    }

    func testCodabarGetsStartAndStopCharactersOnlyWhenItHasNone() throws {
        XCTAssertEqual(try SymbologyRules.prepare(Array("123456789".utf8), for: .codabar), Array("A123456789A".utf8))
        XCTAssertEqual(try matrix("123456789", .codabar).rowStrings, try matrix("A123456789A", .codabar).rowStrings)
        XCTAssertEqual(try SymbologyRules.prepare(Array("B40-15$6:7/8.9+C".utf8), for: .codabar), Array("B40-15$6:7/8.9+C".utf8))
        XCTAssertNotEqual(try matrix("B40156C", .codabar).rowStrings, try matrix("A40156A", .codabar).rowStrings)
        for oneSided in ["A123456", "123456D"] {
            XCTAssertEqual(error(oneSided, .codabar)?.message,
                           "The Codabar barcode's message has a start character (A, B, C or D) without a stop character, or a stop without a start, so it is shown as text.",
                           oneSided)
        }
        XCTAssertEqual(error("A12B34A", .codabar)?.message,
                       "The Codabar barcode's message has A, B, C or D inside it, where Codabar allows them only as its first and last characters, so it is shown as text.")
        XCTAssertEqual(error("12E4", .codabar)?.message,
                       "The Codabar barcode's message has a character Codabar cannot hold (it holds digits and - $ : / . + between start and stop characters A to D), so it is shown as text.")
        XCTAssertEqual(error("a123a", .codabar)?.code, .invalidMessage, "lower-case start/stop: not folded")
        XCTAssertEqual(error("AB", .codabar)?.message, "The Codabar barcode's message has nothing between its start and stop characters, so it is shown as text.")
        // 58 digits fit with A…A (60 characters), 59 do not; 60 with their own start/stop fit.
        XCTAssertNoThrow(try matrix(String(repeating: "1", count: 58), .codabar))
        XCTAssertNoThrow(try matrix("A" + String(repeating: "1", count: 58) + "B", .codabar))
        let long = error(String(repeating: "1", count: 59), .codabar)
        XCTAssertEqual(long?.code, .tooLong)
        XCTAssertEqual(long?.detail, "61 bytes (59 characters and the start and stop characters A…A); a Codabar symbol holds at most 60")
    }

    func testCode39HoldsItsFortyThreeCharactersOnly() throws {
        XCTAssertNoThrow(try matrix("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ -.$/+%", .code39))
        for bad in ["Pc-2026", "A*B", "A\u{0}B", "É"] {
            let e = error(bad, .code39)
            XCTAssertEqual(e?.code, .invalidMessage, bad)
            XCTAssertEqual(e?.message, "The Code 39 barcode's message has a character Code 39 cannot hold (it holds digits, capital letters, space and - . $ / + %), so it is shown as text.")
        }
        XCTAssertEqual(error("Pc-2026", .code39)?.detail, "\"c\" (0x63) at byte 1")
        XCTAssertEqual(error("A\u{0}B", .code39)?.detail, "0x00 at byte 1")
        XCTAssertNoThrow(try matrix(String(repeating: "A", count: 85), .code39))
        XCTAssertEqual(error(String(repeating: "A", count: 86), .code39)?.message,
                       "The barcode's message is too long for a Code 39 code, so it is shown as text.")
    }

    func testITFHoldsDigitsInPairs() throws {
        XCTAssertNoThrow(try matrix("15400141288763", .itf))
        let odd = error("12345", .itf)
        XCTAssertEqual(odd?.code, .invalidMessage)
        XCTAssertEqual(odd?.message, "The ITF barcode's message has an odd number of digits (5), and ITF (Interleaved 2 of 5) holds digits in pairs, so it is shown as text.")
        XCTAssertEqual(error("12a4", .itf)?.message, "The ITF barcode's message has a character that is not a digit (ITF holds only digits), so it is shown as text.")
        XCTAssertNoThrow(try matrix(String(repeating: "12", count: 45), .itf))
        XCTAssertEqual(error(String(repeating: "12", count: 46), .itf)?.message,
                       "The barcode's message is too long for an ITF code, so it is shown as text.")
    }
}
