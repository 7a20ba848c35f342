import Foundation
import XCTest
@testable import Barcodes
import WalletPass

/// Every pass of the real corpus that carries a barcode (signature not needed: the barcode of a
/// pass Wallet refuses is still what the gate scans): the barcode chosen by Apple's rule, drawn at
/// 4 px per module and as terminal half blocks, decodes to the message bytes in its symbology.
final class CorpusBarcodeTests: XCTestCase {
    func testEveryCorpusBarcodeDecodesToItsBytes() throws {
        let files = try FileManager.default.contentsOfDirectory(at: BarcodeFixtures.corpus, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "pkpass" }.sorted { $0.path < $1.path }
        var decoder = try BarcodeDecoder()
        defer { decoder.cleanUp() }
        var wanted: [String: (format: BarcodeFormat, hex: String)] = [:]
        var withBarcode = 0
        var sizes: [String: [(columns: Int, lines: Int)]] = [:]
        for file in files {
            guard let document = try? BarcodeFixtures.document(file) else { continue }  // broken-fail: not a zip
            let choice = BarcodeChoice(document)
            guard let barcode = choice.barcode, let format = choice.format else {
                XCTAssertTrue(document.barcodes.isEmpty && document.legacyBarcode == nil,
                              "\(file.lastPathComponent): has barcodes but none chosen")
                continue
            }
            withBarcode += 1
            let name = file.lastPathComponent
            let bytes = try MessageEncoding(barcode.messageEncoding).bytes(barcode.message)
            let matrix = try BarcodeEncoder.matrix(for: barcode)
            try decoder.add("\(name) image", image: BarcodeImage.pgm(matrix))
            wanted["\(name) image"] = (format, bytes.hex)
            let terminal = TerminalBarcode(matrix)
            sizes[format.name, default: []].append((terminal.columns, terminal.lines))
            try decoder.add("\(name) terminal", image: BarcodeImage.pgm(terminal: terminal.render()))
            wanted["\(name) terminal"] = (format, bytes.hex)
        }
        XCTAssertGreaterThanOrEqual(withBarcode, 60, "the corpus has about 65 passes with a barcode")
        // For the notes: how big the terminal drawings of real passes are.
        for (name, list) in sizes.sorted(by: { $0.key < $1.key }) {
            let c = list.map(\.columns), l = list.map(\.lines)
            print("corpus terminal size \(name) ×\(list.count): \(c.min()!)–\(c.max()!) columns, \(l.min()!)–\(l.max()!) lines")
        }
        let decoded = try decoder.decodeAll()
        for (id, want) in wanted.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(decoded[id] ?? [], [BarcodeDecoder.Found(format: want.format.zxingName, hex: want.hex)], id)
        }
    }
}
