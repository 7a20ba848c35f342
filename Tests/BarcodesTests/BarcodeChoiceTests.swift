import XCTest
@testable import Barcodes
import WalletPass

final class BarcodeChoiceTests: XCTestCase {
    let qr = PassBarcode(format: "PKBarcodeFormatQR", message: "Q")
    let codabar = PassBarcode(format: "PKBarcodeFormatCodabar", message: "123456789")
    let ean = PassBarcode(format: "PKBarcodeFormatEAN13", message: "4006381333931")
    let dataMatrix = PassBarcode(format: "PKBarcodeFormatDataMatrix", message: "A1B")
    let ean8 = PassBarcode(format: "PKBarcodeFormatEAN8", message: "96385074")
    let legacyPDF = PassBarcode(format: "PKBarcodeFormatPDF417", message: "L")

    func testFirstSupportedItemWins() {
        let c = BarcodeChoice(barcodes: [dataMatrix, qr, legacyPDF], legacy: nil)
        XCTAssertEqual(c.barcode, qr)
        XCTAssertEqual(c.format, .qr)
        XCTAssertEqual(c.skipped, [dataMatrix])
        XCTAssertNil(c.unsupportedNote)
    }

    /// Wallet 27 draws the four new formats when first (WWDC26 session 209): Apple's own
    /// `[Codabar, QR]` example shows the Codabar, where iOS 26 and earlier (and passconduit
    /// before) showed the QR.
    func testIOS27FormatsAreDrawnWhenFirst() throws {
        let c = BarcodeChoice(barcodes: [codabar, qr], legacy: nil)
        XCTAssertEqual(c.barcode, codabar)
        XCTAssertEqual(c.format, .codabar)
        XCTAssertEqual(c.skipped, [])
        XCTAssertEqual(try c.matrix()?.format, .codabar)
        let e = BarcodeChoice(barcodes: [ean], legacy: legacyPDF)
        XCTAssertEqual(e.format, .ean13)
        for (name, format) in [("Code39", BarcodeFormat.code39), ("Codabar", .codabar), ("EAN13", .ean13), ("I2of5", .itf)] {
            XCTAssertEqual(BarcodeChoice(barcodes: [PassBarcode(format: "PKBarcodeFormat" + name, message: "1234"), qr], legacy: nil).format,
                           format, name)
        }
    }

    func testLegacyBarcodeWhenNoItemIsSupported() {
        let c = BarcodeChoice(barcodes: [dataMatrix, ean8], legacy: legacyPDF)
        XCTAssertEqual(c.barcode, legacyPDF)
        XCTAssertEqual(c.format, .pdf417)
    }

    func testNeverAnotherSymbology() {
        let c = BarcodeChoice(barcodes: [dataMatrix], legacy: nil)
        XCTAssertNil(c.barcode)
        XCTAssertNil(try c.matrix())
        XCTAssertEqual(c.textBarcode, dataMatrix)
        XCTAssertEqual(c.unsupportedNote,
                       "The barcode's format is not one Wallet draws (QR, PDF417, Aztec, Code 128, Code 39, Codabar, EAN-13 and ITF), so it is shown as text.")
        XCTAssertThrowsError(try BarcodeEncoder.matrix(for: dataMatrix)) { error in
            XCTAssertEqual((error as? BarcodeError)?.code, .unsupportedFormat)
        }
    }

    func testFormatNamesFoldOnlyASCIICase() {
        XCTAssertEqual(BarcodeFormat(passKitName: "pkbarcodeformatqr"), .qr)
        XCTAssertNil(BarcodeFormat(passKitName: "PKBarcodeFormat\u{212A}R"))  // no Unicode look-alikes
        XCTAssertNil(BarcodeFormat(passKitName: "PKBarcodeFormatQR\u{0}"))
        XCTAssertNil(BarcodeFormat(passKitName: "QR"))
        XCTAssertNil(BarcodeFormat(passKitName: ""))
        XCTAssertEqual(BarcodeFormat(passKitName: "PKBARCODEFORMATI2OF5"), .itf)
        XCTAssertNil(BarcodeFormat(passKitName: "PKBarcodeFormatITF"), "Apple's name is I2of5")
    }

    func testNoBarcodeAtAll() {
        let c = BarcodeChoice(barcodes: [], legacy: nil)
        XCTAssertNil(c.barcode)
        XCTAssertNil(c.textBarcode)
        XCTAssertNil(c.unsupportedNote)
    }
}
