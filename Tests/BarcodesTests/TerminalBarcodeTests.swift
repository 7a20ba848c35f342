import XCTest
@testable import Barcodes

final class TerminalBarcodeTests: XCTestCase {
    func testHalfBlocksCarryTwoModuleRowsPerLineWithTheQuietZone() throws {
        let matrix = try BarcodeEncoder.matrix(bytes: Array("EVT-2026-0001|SEAT".utf8), format: .qr)
        let t = TerminalBarcode(matrix)
        let lines = t.render()
        XCTAssertEqual(t.columns, matrix.width + 8)
        XCTAssertEqual(lines.count, (matrix.height + 8 + 1) / 2)
        XCTAssertEqual(lines.count, t.lines)
        let rows = try BarcodeImage.modules(fromTerminal: lines)
        XCTAssertTrue(rows.allSatisfy { $0.count == t.columns })
        for y in 0..<matrix.totalHeight {
            for x in 0..<matrix.totalWidth {
                XCTAssertEqual(rows[y][x], matrix.isDarkIncludingQuietZone(x: x, y: y), "module \(x),\(y)")
            }
        }
        // The quiet zone: two blank lines on top (4 module rows), four blank columns each side.
        XCTAssertEqual(lines[0], "\u{1B}[38;5;16;48;5;231m" + String(repeating: " ", count: t.columns) + "\u{1B}[0m")
        XCTAssertTrue(lines[2].contains("\u{2588}"))
        XCTAssertTrue(t.render(indent: 3).allSatisfy { $0.hasPrefix("   \u{1B}[") })
    }

    func testWidthCheckAndLinearHeight() throws {
        let code128 = try BarcodeEncoder.matrix(bytes: Array("SPRING42".utf8), format: .code128)
        let t = TerminalBarcode(code128)
        XCTAssertEqual(t.matrix.height, TerminalBarcode.linearBarHeight)
        XCTAssertEqual(t.lines, (TerminalBarcode.linearBarHeight + 4) / 2)
        XCTAssertEqual(t.columns, code128.width + 20)
        XCTAssertTrue(t.fits(columns: t.columns))
        XCTAssertFalse(t.fits(columns: t.columns - 1))
        XCTAssertEqual(t.tooNarrowMessage(columns: 80),
                       "The terminal is 80 columns wide and the Code 128 barcode needs \(t.columns); widen the window or make the font smaller to scan it. Its text is shown instead.")
    }
}
