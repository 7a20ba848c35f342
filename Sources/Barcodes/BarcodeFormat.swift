import CZint

/// The symbologies Wallet draws (iOS 9+): QR, PDF417, Aztec and Code 128. Nothing else is ever
/// drawn, and one is never drawn in place of another (a Codabar shown as a QR scans as nothing).
package enum BarcodeFormat: String, Sendable, CaseIterable, Equatable {
    case qr = "PKBarcodeFormatQR"
    case pdf417 = "PKBarcodeFormatPDF417"
    case aztec = "PKBarcodeFormatAztec"
    case code128 = "PKBarcodeFormatCode128"

    /// The format named by a pass's `format` value ("PKBarcodeFormatQR"); nil for any other
    /// (iOS 27's Code 39, Codabar, EAN-13, ITF, or garbage). Case is not significant.
    package init?(passKitName: String) {
        // ASCII case folding only: no Unicode look-alike (a Kelvin sign for "K") names a format.
        let folded = Self.asciiLowercased(passKitName)
        guard let format = Self.allCases.first(where: { Self.asciiLowercased($0.rawValue) == folded }) else { return nil }
        self = format
    }

    private static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// "QR", "PDF417", "Aztec", "Code 128": for sentences.
    package var name: String {
        switch self {
        case .qr: return "QR"
        case .pdf417: return "PDF417"
        case .aztec: return "Aztec"
        case .code128: return "Code 128"
        }
    }

    /// Linear (one row of bars, repeated to a bar height) rather than two-dimensional.
    package var isLinear: Bool { self == .code128 }

    /// The light margin each side, in modules, that a scanner needs around the symbol.
    /// - QR: 4X all round (ISO/IEC 18004:2015 §9.1).
    /// - PDF417: 2X all round (ISO/IEC 15438:2015 §5.8.3).
    /// - Code 128: 10X left and right (ISO/IEC 15417 §4.4.2); the standard asks nothing above and
    ///   below, 2X there keeps the bars off whatever surrounds the white box.
    /// - Aztec: ISO/IEC 24778 §4.1(c) requires none (zint adds none), but a symbol whose outer
    ///   data ring touches a dark terminal background or card has no edge a camera can find;
    ///   2X as GNOME Passes does.
    package var quietZone: (horizontal: Int, vertical: Int) {
        switch self {
        case .qr: return (4, 4)
        case .pdf417: return (2, 2)
        case .code128: return (10, 2)
        case .aztec: return (2, 2)
        }
    }

    /// Most bytes the symbology can carry in byte mode at its lowest error correction (QR version
    /// 40-L: 2953; Aztec 32 layers: 1914; PDF417: 1850 text / 1108 byte; Code 128: zint's 160
    /// characters). Longer messages are refused before zint is asked, so a hostile 10 000-byte
    /// message costs nothing.
    var maximumBytes: Int {
        switch self {
        case .qr: return 2953
        case .aztec: return 1914
        case .pdf417: return 1850
        case .code128: return 160
        }
    }

    var zintSymbology: Int32 {
        switch self {
        case .qr: return BARCODE_QRCODE
        case .pdf417: return BARCODE_PDF417
        case .aztec: return BARCODE_AZTEC
        case .code128: return BARCODE_CODE128
        }
    }
}
