import Foundation
import XCTest
@testable import Barcodes

/// Images for the decoder: a matrix drawn to an 8-bit grey PGM at whole pixels per module, and a
/// terminal half-block drawing turned back into pixels.
enum BarcodeImage {
    /// The matrix with its quiet zone, `scale` pixels per module, black on white, as a binary PGM.
    static func pgm(_ matrix: BarcodeMatrix, scale: Int = 4) -> [UInt8] {
        let w = matrix.totalWidth * scale, h = matrix.totalHeight * scale
        var pixels = [UInt8](repeating: 255, count: w * h)
        for y in 0..<matrix.totalHeight {
            for x in 0..<matrix.totalWidth where matrix.isDarkIncludingQuietZone(x: x, y: y) {
                for dy in 0..<scale {
                    let row = (y * scale + dy) * w
                    for dx in 0..<scale { pixels[row + x * scale + dx] = 0 }
                }
            }
        }
        return pgm(width: w, height: h, pixels: pixels)
    }

    static func pgm(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        Array("P5\n\(width) \(height)\n255\n".utf8) + pixels
    }

    struct TerminalParseError: Error, CustomStringConvertible { var description: String }

    /// The modules a terminal drawing shows (one column per module, two module rows per line):
    /// each line must start with black-on-white colours and end with a reset, and hold only the
    /// four half-block characters.
    static func modules(fromTerminal lines: [String]) throws -> [[Bool]] {
        let on = "\u{1B}[38;5;16;48;5;231m", off = "\u{1B}[0m"
        var rows: [[Bool]] = []
        for (n, line) in lines.enumerated() {
            guard line.hasPrefix(on), line.hasSuffix(off) else {
                throw TerminalParseError(description: "line \(n) lacks the black-on-white colours or the reset")
            }
            let body = line.dropFirst(on.count).dropLast(off.count)
            var top: [Bool] = [], bottom: [Bool] = []
            for ch in body {
                switch ch {
                case "\u{2588}": top.append(true); bottom.append(true)
                case "\u{2580}": top.append(true); bottom.append(false)
                case "\u{2584}": top.append(false); bottom.append(true)
                case " ": top.append(false); bottom.append(false)
                default: throw TerminalParseError(description: "line \(n) has \(ch.unicodeScalars.map { String($0.value, radix: 16) })")
                }
            }
            rows.append(top)
            rows.append(bottom)
        }
        return rows
    }

    /// A terminal drawing as pixels: a module is `scale` wide and `scale` tall (a terminal cell is
    /// one module wide and two tall, about square on screen).
    static func pgm(terminal lines: [String], scale: Int = 4) throws -> [UInt8] {
        let rows = try modules(fromTerminal: lines)
        let width = rows.map(\.count).max() ?? 0
        let w = width * scale, h = rows.count * scale
        var pixels = [UInt8](repeating: 255, count: w * h)
        for (y, row) in rows.enumerated() {
            for (x, dark) in row.enumerated() where dark {
                for dy in 0..<scale { for dx in 0..<scale { pixels[(y * scale + dy) * w + x * scale + dx] = 0 } }
            }
        }
        return pgm(width: w, height: h, pixels: pixels)
    }
}

/// Runs Tests/BarcodesTests/decode_barcodes.py once for many images (one Python start-up).
struct BarcodeDecoder {
    struct Found: Equatable, CustomStringConvertible {
        var format: String
        var hex: String
        var description: String { "\(format) \(hex.count / 2) bytes \(hex.prefix(80))" }
    }

    static var script: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("decode_barcodes.py") }

    let directory: URL
    private(set) var jobs: [(id: String, path: String)] = []

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("barcodes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(at: directory) }

    /// Queues an image under `id`.
    mutating func add(_ id: String, image: [UInt8]) throws {
        let path = directory.appendingPathComponent("\(jobs.count).pgm")
        try Data(image).write(to: path)
        jobs.append((id, path.path))
    }

    /// Decodes every queued image: id -> symbols found (empty when none decoded).
    func decodeAll() throws -> [String: [Found]] {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("\(python) is missing: install Debian's python3 and python3-zxing-cpp to decode barcodes")
            return [:]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.script.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let list = jobs.map { "\($0.id)\t\($0.path)\n" }.joined()
        let writer = Thread { input.fileHandleForWriting.write(Data(list.utf8)); try? input.fileHandleForWriting.close() }
        writer.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("MISSING") || process.terminationStatus != 0 {
            XCTFail("""
                The barcode decoder could not run (\(text.prefix(200))\(errorText.prefix(400))): \
                install Debian's python3-zxing-cpp (apt-get install python3-zxing-cpp), used by /usr/bin/python3.
                """)
            return [:]
        }
        var found: [String: [Found]] = [:]
        for line in text.split(separator: "\n") {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count == 3 else { continue }
            if cols[1] == "NONE" || cols[1] == "ERROR" { found[cols[0], default: []] += []; continue }
            found[cols[0], default: []].append(Found(format: cols[1], hex: cols[2]))
        }
        return found
    }
}

extension BarcodeFormat {
    /// zxing-cpp's name for the format.
    var zxingName: String {
        switch self {
        case .qr: return "QRCode"
        case .pdf417: return "PDF417"
        case .aztec: return "Aztec"
        case .code128: return "Code128"
        case .code39: return "Code39"
        case .codabar: return "Codabar"
        case .ean13: return "EAN13"
        case .itf: return "ITF"
        }
    }
}

extension Array where Element == UInt8 {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
