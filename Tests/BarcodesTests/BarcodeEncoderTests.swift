import XCTest
@testable import Barcodes
import WalletPass

final class BarcodeEncoderTests: XCTestCase {
    func testShapesAndQuietZones() throws {
        let qr = try BarcodeEncoder.matrix(bytes: Array("EVT-2026-0001|SEAT".utf8), format: .qr)
        XCTAssertEqual(qr.width, qr.height)
        XCTAssertEqual((qr.width - 17) % 4, 0, "QR sizes are 17 + 4 × version")
        XCTAssertTrue(qr.quietZone == (4, 4))
        // Finder pattern: the top-left 7×7 ring is dark, its inner ring light.
        XCTAssertTrue((0..<7).allSatisfy { qr.isDark(x: $0, y: 0) && qr.isDark(x: 0, y: $0) })
        XCTAssertFalse(qr.isDark(x: 1, y: 1))
        XCTAssertFalse(qr.isDark(x: -1, y: 0))
        XCTAssertFalse(qr.isDarkIncludingQuietZone(x: 3, y: 4))
        XCTAssertTrue(qr.isDarkIncludingQuietZone(x: 4, y: 4))

        let pdf = try BarcodeEncoder.matrix(bytes: Array("M1LOVELACE/ADA".utf8), format: .pdf417)
        XCTAssertEqual(pdf.height % 3, 0, "PDF417 rows are 3 modules tall")
        XCTAssertTrue(pdf.quietZone == (2, 2))

        let code128 = try BarcodeEncoder.matrix(bytes: Array("SPRING42".utf8), format: .code128)
        XCTAssertEqual(code128.height, BarcodeEncoder.defaultBarHeight)
        XCTAssertEqual(code128.rowStrings.first, code128.rowStrings.last)
        XCTAssertTrue(code128.quietZone == (10, 2))
        XCTAssertTrue(code128.isDark(x: 0, y: 0), "Code 128 starts with a bar")
        XCTAssertEqual(code128.withBarHeight(7).height, 7)
        XCTAssertEqual(code128.withBarHeight(7).rowStrings.first, code128.rowStrings.first)
        XCTAssertEqual(qr.withBarHeight(7), qr, "only linear codes change height")

        let aztec = try BarcodeEncoder.matrix(bytes: [0, 0xFF], format: .aztec)
        XCTAssertEqual(aztec.width, aztec.height)
    }

    func testEmptyAndTooLongMessagesAreClearErrors() {
        XCTAssertThrowsError(try BarcodeEncoder.matrix(bytes: [], format: .qr)) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, .encoderFailed)
        }
        for format in BarcodeFormat.allCases {
            let started = Date()
            let long = PassBarcode(format: format.rawValue, message: String(repeating: "X", count: 10_000))
            XCTAssertThrowsError(try BarcodeEncoder.matrix(for: long)) { error in
                let e = error as? BarcodeError
                XCTAssertEqual(e?.code, .tooLong, format.name)
                XCTAssertEqual(e?.message, "The barcode's message is too long for \(format.article) \(format.name) code, so it is shown as text.")
            }
            // A megabyte message is refused as quickly.
            let huge = PassBarcode(format: format.rawValue, message: String(repeating: "\u{E9}", count: 1 << 20))
            XCTAssertThrowsError(try BarcodeEncoder.matrix(for: huge))
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, format.name)
        }
        // Within the pre-check but beyond what zint fits: zint's own refusal becomes tooLong.
        XCTAssertThrowsError(try BarcodeEncoder.matrix(bytes: [UInt8](repeating: 0xAB, count: 1200), format: .pdf417)) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, .tooLong)
            XCTAssertTrue((error as? BarcodeError)?.detail.contains("zint") ?? false)
        }
        XCTAssertNoThrow(try BarcodeEncoder.matrix(bytes: [UInt8](repeating: 0x41, count: 60), format: .code128))
        XCTAssertThrowsError(try BarcodeEncoder.matrix(bytes: [UInt8](repeating: 0x41, count: 61), format: .code128)) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, .tooLong)
            XCTAssertEqual((error as? BarcodeError)?.message, "The barcode's message is too long for a Code 128 code, so it is shown as text.")
        }
    }

    func testLargestQRFitsAndStaysBelowTheLimit() throws {
        let started = Date()
        let m = try BarcodeEncoder.matrix(bytes: [UInt8](repeating: 0xC3, count: 2900), format: .qr)
        XCTAssertEqual(m.width, 177, "version 40")
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testGarbageFormatsAreUnsupported() {
        for format in ["", "PKBarcodeFormat", "<script>", "PKBarcodeFormatDataMatrix", "PKBarcodeFormatCode39\u{0}",
                       String(repeating: "Q", count: 100_000)] {
            XCTAssertThrowsError(try BarcodeEncoder.matrix(for: PassBarcode(format: format, message: "A"))) { error in
                let e = error as? BarcodeError
                XCTAssertEqual(e?.code, .unsupportedFormat)
                XCTAssertLessThan(e?.detail.count ?? 0, 100, "details are cut")
            }
        }
    }
}
