import Foundation
import XCTest
@testable import Barcodes
import WalletPass

/// Every sample of Samples/barcode-passes (non-ASCII Latin-1, binary, UTF-8, windows-1252,
/// Shift_JIS, long Code 128, fall-through formats, iOS 27's Code 39, Codabar, EAN-13 and ITF,
/// too-long and unrepresentable messages, messages that break their symbology's rules): the
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
            // Our encoding of the message equals Python's codec (as a scanner reads it: Codabar
            // without its start/stop characters, a 12-digit EAN-13 with its check digit).
            let bytes = try MessageEncoding(barcode.messageEncoding).bytes(barcode.message)
            XCTAssertEqual(Self.scanned(bytes, format).hex, e.expected, e.file)
            let matrix = try BarcodeEncoder.matrix(for: barcode)
            XCTAssertEqual(matrix.format, format)
            try decoder.add("\(e.file) image", image: BarcodeImage.pgm(matrix))
            try decoder.add("\(e.file) terminal", image: BarcodeImage.pgm(terminal: TerminalBarcode(matrix).render()))
            wanted["\(e.file) image"] = (format, e.expected)
            wanted["\(e.file) terminal"] = (format, e.expected)
        }
        XCTAssertGreaterThanOrEqual(wanted.count, 50)
        for format in BarcodeFormat.allCases {
            XCTAssertTrue(wanted.values.contains { $0.format == format }, "no sample draws \(format.name)")
        }
        let decoded = try decoder.decodeAll()
        for (id, want) in wanted.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(decoded[id] ?? [], [BarcodeDecoder.Found(format: want.format.zxingName, hex: want.hex)], id)
        }
    }

    /// What a scanner reads for a message of `format` (worked out here, not by SymbologyRules):
    /// Codabar's start and stop characters are not read, and a 12-digit EAN-13 is read with the
    /// check digit the encoder added (weights 1, 3, 1, … from the left).
    static func scanned(_ bytes: [UInt8], _ format: BarcodeFormat) -> [UInt8] {
        switch format {
        case .codabar where bytes.count >= 2 && "ABCD".utf8.contains(bytes[0]):
            return Array(bytes.dropFirst().dropLast())
        case .ean13 where bytes.count == 12:
            let sum = bytes.enumerated().reduce(0) { $0 + Int($1.element - 48) * ($1.offset % 2 == 0 ? 1 : 3) }
            return bytes + [UInt8(48 + (10 - sum % 10) % 10)]
        default:
            return bytes
        }
    }
}
