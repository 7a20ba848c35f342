/// A barcode as a grid of modules, ready to draw: what the `Barcodes` target's encoder produces,
/// without it (the card is laid out around it, and tests can hand in any grid).
package struct BarcodeModules: Sendable, Equatable {
    /// Size of the symbol in modules, quiet zone not included.
    package var width: Int
    package var height: Int
    /// Quiet zone in modules, left/right and top/bottom.
    package var quietX: Int
    package var quietY: Int
    /// Row-major, `width × height`.
    package var dark: [Bool]

    /// A 1-D symbol (Code 128, Code 39, Codabar, EAN-13, ITF): its rows are drawn stretched to a
    /// bar height.
    package var isLinear: Bool

    package init(width: Int, height: Int, quietX: Int, quietY: Int, dark: [Bool], isLinear: Bool) {
        self.isLinear = isLinear
        self.width = width
        self.height = height
        self.quietX = quietX
        self.quietY = quietY
        self.dark = dark
    }

    package func isDark(_ x: Int, _ y: Int) -> Bool { dark[y * width + x] }

    /// Width and height in modules with the quiet zone.
    package var outerWidth: Int { width + 2 * quietX }
    package var outerHeight: Int { height + 2 * quietY }

    /// The dark runs of each row: (row, first column, length); what every output draws.
    package var runs: [(y: Int, x: Int, length: Int)] {
        var out: [(Int, Int, Int)] = []
        for y in 0..<height {
            var x = 0
            while x < width {
                guard isDark(x, y) else { x += 1; continue }
                let start = x
                while x < width, isDark(x, y) { x += 1 }
                out.append((y, start, x - start))
            }
        }
        return out
    }
}

/// What the card shows in the barcode area.
package struct CardBarcode: Sendable, Equatable {
    package enum Content: Sendable, Equatable {
        case modules(BarcodeModules)
        /// The barcode could not be drawn: the message is shown as text, with the reason.
        case text(message: String, reason: String)
    }

    /// "QR", "PDF417", "Aztec", "Code128", "Code39", "Codabar", "EAN13", "I2of5".
    package var format: String
    package var content: Content
    package var altText: String?
    /// The message the code carries (printable), for its description when there is no altText.
    package var message: String?

    package init(format: String, content: Content, altText: String?, message: String? = nil) {
        self.format = format
        self.content = content
        self.altText = altText
        self.message = message
    }

    /// What a screen reader says for the code: its altText, else what it carries.
    package var spokenLabel: String {
        if let alt = altText, !alt.isEmpty { return FieldCell.cut(alt, to: 200) }
        if let message, !message.isEmpty { return "\(format) code: \(FieldCell.cut(message, to: 200))" }
        return "\(format) barcode"
    }
}
