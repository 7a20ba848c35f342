import XCTest
@testable import Barcodes
import WalletPass

final class BarcodeChoiceTests: XCTestCase {
    let qr = PassBarcode(format: "PKBarcodeFormatQR", message: "Q")
    let codabar = PassBarcode(format: "PKBarcodeFormatCodabar", message: "A1B")
    let ean = PassBarcode(format: "PKBarcodeFormatEAN13", message: "4006381333931")
    let legacyPDF = PassBarcode(format: "PKBarcodeFormatPDF417", message: "L")

    func testFirstSupportedItemWins() {
        let c = BarcodeChoice(barcodes: [codabar, qr, legacyPDF], legacy: nil)
        XCTAssertEqual(c.barcode, qr)
        XCTAssertEqual(c.format, .qr)
        XCTAssertEqual(c.skipped, [codabar])
        XCTAssertNil(c.unsupportedNote)
    }

    func testLegacyBarcodeWhenNoItemIsSupported() {
        let c = BarcodeChoice(barcodes: [codabar, ean], legacy: legacyPDF)
        XCTAssertEqual(c.barcode, legacyPDF)
        XCTAssertEqual(c.format, .pdf417)
    }

    func testNeverAnotherSymbology() {
        let c = BarcodeChoice(barcodes: [codabar], legacy: nil)
        XCTAssertNil(c.barcode)
        XCTAssertNil(try c.matrix())
        XCTAssertEqual(c.textBarcode, codabar)
        XCTAssertEqual(c.unsupportedNote, "The barcode's format is not one Wallet draws (QR, PDF417, Aztec, Code 128), so it is shown as text.")
        XCTAssertThrowsError(try BarcodeEncoder.matrix(for: codabar)) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, .unsupportedFormat)
        }
    }

    func testFormatNamesFoldOnlyASCIICase() {
        XCTAssertEqual(BarcodeFormat(passKitName: "pkbarcodeformatqr"), .qr)
        XCTAssertNil(BarcodeFormat(passKitName: "PKBarcodeFormat\u{212A}R"))  // no Unicode look-alikes
        XCTAssertNil(BarcodeFormat(passKitName: "PKBarcodeFormatQR\u{0}"))
        XCTAssertNil(BarcodeFormat(passKitName: "QR"))
        XCTAssertNil(BarcodeFormat(passKitName: ""))
    }

    func testNoBarcodeAtAll() {
        let c = BarcodeChoice(barcodes: [], legacy: nil)
        XCTAssertNil(c.barcode)
        XCTAssertNil(c.textBarcode)
        XCTAssertNil(c.unsupportedNote)
    }
}
