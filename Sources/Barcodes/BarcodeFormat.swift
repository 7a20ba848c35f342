import CZint

/// The symbologies Wallet draws: QR, PDF417, Aztec and Code 128 (iOS 9+), and since iOS 27
/// Code 39, Codabar, EAN-13 and Interleaved 2 of 5 (ITF). Nothing else is ever drawn, and one is
/// never drawn in place of another (a Codabar shown as a QR scans as nothing).
package enum BarcodeFormat: String, Sendable, CaseIterable, Equatable {
    case qr = "PKBarcodeFormatQR"
    case pdf417 = "PKBarcodeFormatPDF417"
    case aztec = "PKBarcodeFormatAztec"
    case code128 = "PKBarcodeFormatCode128"
    case code39 = "PKBarcodeFormatCode39"
    case codabar = "PKBarcodeFormatCodabar"
    case ean13 = "PKBarcodeFormatEAN13"
    case itf = "PKBarcodeFormatI2of5"

    /// The format named by a pass's `format` value ("PKBarcodeFormatQR"); nil for any other
    /// ("PKBarcodeFormatDataMatrix", garbage). Case is not significant.
    package init?(passKitName: String) {
        // ASCII case folding only: no Unicode look-alike (a Kelvin sign for "K") names a format.
        let folded = Self.asciiLowercased(passKitName)
        guard let format = Self.allCases.first(where: { Self.asciiLowercased($0.rawValue) == folded }) else { return nil }
        self = format
    }

    private static func asciiLowercased(_ text: String) -> [UInt8] {
        text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    }

    /// "QR", "PDF417", "Aztec", "Code 128", "Code 39", "Codabar", "EAN-13", "ITF": for sentences.
    package var name: String {
        switch self {
        case .qr: return "QR"
        case .pdf417: return "PDF417"
        case .aztec: return "Aztec"
        case .code128: return "Code 128"
        case .code39: return "Code 39"
        case .codabar: return "Codabar"
        case .ean13: return "EAN-13"
        case .itf: return "ITF"
        }
    }

    /// The article before `name`: "an EAN-13", "an ITF". The four older formats keep "a", which
    /// their sentences have always had ("a Aztec" included: those sentences stay as they were).
    var article: String {
        switch self {
        case .ean13, .itf: return "an"
        case .qr, .pdf417, .aztec, .code128, .code39, .codabar: return "a"
        }
    }

    /// Every format Wallet draws, named for a sentence: "QR, PDF417, …, EAN-13 and ITF".
    static var namesForSentence: String {
        allCases.dropLast().map(\.name).joined(separator: ", ") + " and " + (allCases.last?.name ?? "")
    }

    /// Linear (one row of bars, repeated to a bar height) rather than two-dimensional.
    package var isLinear: Bool {
        switch self {
        case .qr, .pdf417, .aztec: return false
        case .code128, .code39, .codabar, .ean13, .itf: return true
        }
    }

    /// The light margin each side, in modules, that a scanner needs around the symbol.
    /// - QR: 4X all round (ISO/IEC 18004:2015 §9.1).
    /// - PDF417: 2X all round (ISO/IEC 15438:2015 §5.8.3).
    /// - Code 128: 10X left and right (ISO/IEC 15417 §4.4.2); the standard asks nothing above and
    ///   below, 2X there keeps the bars off whatever surrounds the white box. The same 2X above
    ///   and below for the other linear codes.
    /// - Code 39: 10X left and right (ISO/IEC 16388:2007 §4.4 (d)).
    /// - Codabar: 10X left and right (BS EN 798:1995 §4.4.1 (d)).
    /// - EAN-13: 11X on the left and 7X on the right (GS1 General Specifications §5.2.3.4); both
    ///   sides get 11X here (the margin is one number a side for every format, and a zone is a
    ///   minimum: more light space never hurts a scan).
    /// - ITF: 10X left and right (ISO/IEC 16390:2007 §4.4).
    /// - Aztec: ISO/IEC 24778 §4.1(c) requires none (zint adds none), but a symbol whose outer
    ///   data ring touches a dark terminal background or card has no edge a camera can find;
    ///   2X as GNOME Passes does.
    package var quietZone: (horizontal: Int, vertical: Int) {
        switch self {
        case .qr: return (4, 4)
        case .pdf417: return (2, 2)
        case .code128, .code39, .codabar, .itf: return (10, 2)
        case .ean13: return (11, 2)
        case .aztec: return (2, 2)
        }
    }

    /// Most bytes the symbology can carry in byte mode at its lowest error correction (QR version
    /// 40-L: 2953; Aztec 32 layers: 1914; PDF417: 1850 text / 1108 byte; Code 128: zint's 160
    /// characters), and for the iOS 27 linear codes the most zint 2.11 draws (Code 39: 85
    /// characters; Codabar: 60 with its start and stop characters; ITF: 90 digits) or the one
    /// length there is (EAN-13: 13 digits). Longer messages are refused before zint is asked, so a
    /// hostile 10 000-byte message costs nothing.
    var maximumBytes: Int {
        switch self {
        case .qr: return 2953
        case .aztec: return 1914
        case .pdf417: return 1850
        case .code128: return 160
        case .code39: return 85
        case .codabar: return 60
        case .ean13: return 13
        case .itf: return 90
        }
    }

    /// zint's symbology. EAN-13 is `BARCODE_EANX_CHK`, which takes all 13 digits and refuses a
    /// wrong check digit: plain `BARCODE_EANX` makes an EAN-8 or an EAN-5 add-on of a short
    /// message. (`SymbologyRules` hands zint only 13 digits with a right check digit anyway.)
    var zintSymbology: Int32 {
        switch self {
        case .qr: return BARCODE_QRCODE
        case .pdf417: return BARCODE_PDF417
        case .aztec: return BARCODE_AZTEC
        case .code128: return BARCODE_CODE128
        case .code39: return BARCODE_CODE39
        case .codabar: return BARCODE_CODABAR
        case .ean13: return BARCODE_EANX_CHK
        case .itf: return BARCODE_C25INTER
        }
    }
}
