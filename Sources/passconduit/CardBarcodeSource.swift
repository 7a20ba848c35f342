import Barcodes
import PassRender
import WalletPass

/// Turns the pass's barcode into what the card draws: the Barcodes target chooses (Wallet's rule)
/// and encodes (libzint, binary mode, no ECI); PassRender gets the bare module grid with the
/// symbology's quiet zone. A barcode that cannot be drawn becomes its text and the reason.
enum CardBarcodeSource {
    static func barcode(for info: PassInfo) -> CardBarcode? {
        let choice = BarcodeChoice(info)
        guard let shown = choice.textBarcode else { return nil }
        let name = choice.format.map(formatName) ?? shown.format
        let text = TerminalBarcodeView.printable(shown.message)
        do {
            // A linear code is one row of bars: the card stretches it to its bar height.
            guard let matrix = try choice.matrix(barHeight: 1) else {
                return CardBarcode(format: name, content: .text(message: text, reason: choice.unsupportedNote ?? ""),
                                   altText: shown.altText)
            }
            return CardBarcode(format: name, content: .modules(modules(matrix)), altText: shown.altText, message: text)
        } catch let error as BarcodeError {
            return CardBarcode(format: name, content: .text(message: text, reason: error.message), altText: shown.altText)
        } catch {
            return CardBarcode(format: name, content: .text(message: text, reason: "The barcode could not be drawn (\(error)), so it is shown as text."),
                               altText: shown.altText)
        }
    }

    /// `--no-barcode`: in the barcode's place a box that says it was left out, with neither the
    /// message nor its alternative text (a boarding pass's code lets anyone change the booking);
    /// nil when the pass has no barcode to leave out.
    static func withheld(for info: PassInfo) -> CardBarcode? {
        let choice = BarcodeChoice(info)
        guard let shown = choice.textBarcode else { return nil }
        return CardBarcode(format: choice.format.map(formatName) ?? shown.format,
                           content: .text(message: "Barcode left out",
                                          reason: "This picture was drawn without the barcode; scan it from the pass itself."),
                           altText: nil)
    }

    /// The encoder's matrix as the card's module grid (quiet zone kept apart, as both define it).
    static func modules(_ matrix: BarcodeMatrix) -> BarcodeModules {
        var dark: [Bool] = []
        dark.reserveCapacity(matrix.width * matrix.height)
        for y in 0..<matrix.height {
            for x in 0..<matrix.width { dark.append(matrix.isDark(x: x, y: y)) }
        }
        return BarcodeModules(width: matrix.width, height: matrix.height, quietX: matrix.quietZone.horizontal,
                              quietY: matrix.quietZone.vertical, dark: dark, isLinear: matrix.format.isLinear)
    }

    /// "QR", "PDF417", "Aztec", "Code128", "Code39", "Codabar", "EAN13", "I2of5": the card's short
    /// names (Apple's, without the "PKBarcodeFormat" prefix).
    static func formatName(_ format: BarcodeFormat) -> String {
        switch format {
        case .qr: return "QR"
        case .pdf417: return "PDF417"
        case .aztec: return "Aztec"
        case .code128: return "Code128"
        case .code39: return "Code39"
        case .codabar: return "Codabar"
        case .ean13: return "EAN13"
        case .itf: return "I2of5"
        }
    }
}
