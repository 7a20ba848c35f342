import Foundation
import XCTest
@testable import Barcodes
import WalletPass

/// Every sample of Samples/barcode-passes (non-ASCII Latin-1, binary, UTF-8, windows-1252,
/// Shift_JIS, long Code 128, fall-through formats, too-long and unrepresentable messages): the
/// pass opens valid, the barcode chosen is the one expected, and both the matrix drawn at 4 px per
/// module and the terminal half-block drawing turned back into pixels decode with zxing-cpp to
/// exactly the message BYTES (computed by Python's codecs) in the asked symbology.
final class SampleBarcodeTests: XCTestCase {
    func testEverySampleDecodesToItsBytesOrFailsWithItsError() throws {
        let opener = PassOpener(trust: BarcodeFixtures.trust)
        let expectations = try BarcodeFixtures.expectations()
        XCTAssertGreaterThanOrEqual(expectations.count, 25, "make-barcode-passes.sh wrote too few samples")
        var decoder = try BarcodeDecoder()
        defer { decoder.cleanUp() }
        var wanted: [String: (format: BarcodeFormat, hex: String)] = [:]
        for e in expectations {
            let verdict = opener.open(try BarcodeFixtures.bytes(BarcodeFixtures.samples.appendingPathComponent(e.file)))
            XCTAssertEqual(verdict.status, .valid, "\(e.file): \(String(describing: verdict.error))")
            let pass = try XCTUnwrap(verdict.pass, e.file)
            let choice = BarcodeChoice(pass)
            XCTAssertEqual(choice.format.map { String($0.rawValue.dropFirst("PKBarcodeFormat".count)) } ?? "-", e.format, e.file)
            if e.expected.hasPrefix("error:") {
                let code = String(e.expected.dropFirst("error:".count))
                let started = Date()
                XCTAssertThrowsError(try BarcodeEncoder.matrix(for: XCTUnwrap(choice.textBarcode, e.file)), e.file) { error in
                    let error = error as? BarcodeError
                    XCTAssertEqual(error?.code.rawValue, code, e.file)
                    XCTAssertTrue(error?.message.hasSuffix("shown as text.") ?? false, "\(e.file): \(String(describing: error))")
                }
                XCTAssertLessThan(Date().timeIntervalSince(started), 1, "\(e.file): refusing took too long")
                continue
            }
            let barcode = try XCTUnwrap(choice.barcode, e.file)
            let format = try XCTUnwrap(choice.format, e.file)
            // Our encoding of the message equals Python's codec.
            XCTAssertEqual(try MessageEncoding(barcode.messageEncoding).bytes(barcode.message).hex, e.expected, e.file)
            let matrix = try BarcodeEncoder.matrix(for: barcode)
            XCTAssertEqual(matrix.format, format)
            try decoder.add("\(e.file) image", image: BarcodeImage.pgm(matrix))
            try decoder.add("\(e.file) terminal", image: BarcodeImage.pgm(terminal: TerminalBarcode(matrix).render()))
            wanted["\(e.file) image"] = (format, e.expected)
            wanted["\(e.file) terminal"] = (format, e.expected)
        }
        XCTAssertGreaterThanOrEqual(wanted.count, 36)
        let decoded = try decoder.decodeAll()
        for (id, want) in wanted.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(decoded[id] ?? [], [BarcodeDecoder.Found(format: want.format.zxingName, hex: want.hex)], id)
        }
    }
}
