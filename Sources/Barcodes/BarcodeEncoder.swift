import CZint
import CZintLazy   // links the trampolines that load the library on first use (script/gen-lazy-shims)
import Foundation
import Support
import WalletPass

/// Turns a pass's barcode into modules with libzint, the way GNOME Passes does: the message
/// becomes bytes by its `messageEncoding` and goes to zint in binary mode (`DATA_MODE`) with an
/// explicit length, so NUL and high bytes survive, and **without an ECI** (the default charset of
/// every Wallet symbology is ISO-8859-1; gate and cash-desk scanners reject ECI'd symbols).
/// zint's warnings are turned into errors (`WARN_FAIL_ALL`), so an automatic ECI fails loudly.
package enum BarcodeEncoder {
    /// libzint, loaded on first use (CZintLazy).
    package static let library = NativeLibrary(purpose: "drawing barcodes", load: czintlazy_load)

    /// Bar height of a linear code in modules: zint's default, 50X (about 15 % of a 30-character
    /// Code 128's width, above the 15 % ISO/IEC 15417 recommends for hand-held scanning).
    package static let defaultBarHeight = 50

    /// The modules of a pass's barcode; throws `BarcodeError` (unsupported format, unknown or
    /// unrepresentable encoding, message too long or breaking its symbology's rules) so the
    /// caller can show the text instead.
    package static func matrix(for barcode: PassBarcode, barHeight: Int = defaultBarHeight) throws -> BarcodeMatrix {
        guard let format = BarcodeFormat(passKitName: barcode.format) else {
            throw BarcodeError.unsupportedFormat(barcode.format)
        }
        let encoding = try MessageEncoding(barcode.messageEncoding)
        // Every encoding takes at least one byte per character: a message with more characters
        // than the symbology's byte capacity is refused before it is converted.
        let characters = barcode.message.unicodeScalars.count
        if characters > format.maximumBytes {
            throw BarcodeError.tooLong(format, bytes: characters, limit: format.maximumBytes)
        }
        return try matrix(bytes: encoding.bytes(barcode.message), format: format, barHeight: barHeight)
    }

    /// The modules for `bytes` in `format`, encoded as given (binary mode, no ECI) once
    /// `SymbologyRules` accepts them.
    package static func matrix(bytes: [UInt8], format: BarcodeFormat, barHeight: Int = defaultBarHeight) throws -> BarcodeMatrix {
        guard !bytes.isEmpty else {
            throw BarcodeError(code: .encoderFailed, message: "The barcode's message is empty, so there is nothing to draw.",
                               detail: "0 bytes")
        }
        guard bytes.count <= format.maximumBytes else {
            throw BarcodeError.tooLong(format, bytes: bytes.count, limit: format.maximumBytes)
        }
        // The symbology's own rules, before zint can fix the message up into other bytes
        // (Codabar gets its start and stop characters, a 12-digit EAN-13 its check digit).
        let bytes = try SymbologyRules.prepare(bytes, for: format)
        do { try library.load() } catch {
            throw BarcodeError(code: .encoderFailed, message: error.message, detail: error.detail)
        }
        guard let symbol = ZBarcode_Create() else {
            throw BarcodeError.encoderFailed(format, status: -1, text: "ZBarcode_Create returned NULL")
        }
        defer { ZBarcode_Delete(symbol) }
        symbol.pointee.symbology = format.zintSymbology
        symbol.pointee.input_mode = DATA_MODE
        symbol.pointee.eci = 0
        symbol.pointee.warn_level = WARN_FAIL_ALL
        symbol.pointee.show_hrt = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            // zint copies what it needs during the call; the pointer does not escape.
            ZBarcode_Encode(symbol, buffer.baseAddress, Int32(buffer.count))  // count <= 2953
        }
        if status != 0 {
            let text = czint_errtxt(symbol).map { String(cString: $0) } ?? ""
            if status == ZINT_ERROR_TOO_LONG { throw BarcodeError.tooLong(format, bytes: bytes.count, limit: nil, zint: text) }
            throw BarcodeError.encoderFailed(format, status: status, text: text)
        }
        return try modules(of: symbol, format: format, barHeight: barHeight)
    }

    /// Reads zint's encoded rows: bit `x & 7` of byte `x >> 3` of `encoded_data[row]` (zint's own
    /// `module_is_set`), each row repeated `row_height` times (PDF417's rows are 3X tall; zint
    /// leaves `row_height` 0 there and puts the total in `height`).
    private static func modules(of symbol: UnsafeMutablePointer<zint_symbol>, format: BarcodeFormat, barHeight: Int) throws -> BarcodeMatrix {
        let rows = Int(symbol.pointee.rows), width = Int(symbol.pointee.width)
        guard rows > 0, rows <= 200, width > 0, width <= 144 * 8 else {
            throw BarcodeError.encoderFailed(format, status: 0, text: "unexpected symbol size \(width)x\(rows)")
        }
        // rows <= 200 and width <= 1152 checked above: the Int32 conversions cannot trap.
        var rowBits: [[Bool]] = (0..<rows).map { r in
            (0..<width).map { x in czint_module_is_set(symbol, Int32(r), Int32(x)) != 0 }
        }
        let even = symbol.pointee.height / Float(rows)
        var rowHeights: [Int] = (0..<rows).map { r in
            let h = czint_row_height(symbol, Int32(r))
            return max(1, Int((h > 0 ? h : even).rounded()))
        }
        if format.isLinear {
            rowBits = [rowBits[0]]
            rowHeights = [min(max(1, barHeight), 1000)]
        }
        var modules: [Bool] = []
        for (bits, h) in zip(rowBits, rowHeights) {
            for _ in 0..<h { modules += bits }
        }
        return BarcodeMatrix(format: format, width: width, height: modules.count / width, modules: modules)
    }
}
