/// A barcode drawn in a terminal a phone can scan off the screen: one column per module, two
/// modules per line with Unicode half blocks (▀ dark top, ▄ dark bottom, █ both, space neither),
/// black on an explicit white background (256-colour 16 and 231, which themes do not remap, so it
/// scans on dark themes too), quiet zone included. Terminal cells are about twice as tall as wide,
/// so a module comes out roughly square.
package struct TerminalBarcode: Sendable {
    /// Bar height of a linear code drawn in a terminal, in modules (10 lines): zint's 50X would take
    /// 25 lines, and phone scanners read a linear code by its width.
    package static let linearBarHeight = 20

    package let matrix: BarcodeMatrix

    /// Takes `matrix` as is, except a linear code is cut or stretched to `linearBarHeight`.
    package init(_ matrix: BarcodeMatrix) {
        self.matrix = matrix.format.isLinear ? matrix.withBarHeight(Self.linearBarHeight) : matrix
    }

    /// Columns the drawing needs (quiet zone included).
    package var columns: Int { matrix.totalWidth }
    /// Lines the drawing takes.
    package var lines: Int { (matrix.totalHeight + 1) / 2 }

    /// Whether a terminal `columns` wide shows the drawing without wrapping.
    package func fits(columns available: Int) -> Bool { columns <= available }

    /// The sentence for a terminal too narrow for the drawing.
    package func tooNarrowMessage(columns available: Int) -> String {
        "The terminal is \(available) columns wide and the \(matrix.format.name) barcode needs \(columns); "
            + "widen the window or make the font smaller to scan it. Its text is shown instead."
    }

    static let on = "\u{1B}[38;5;16;48;5;231m"
    static let off = "\u{1B}[0m"

    /// The drawing, one string per line, each starting with the colours and ending with a reset
    /// (so a wrapped or cut line never paints the rest of the terminal). `indent` spaces go
    /// before the colours. `colour: false` (the user asked for no colour: NO_COLOR, --no-color)
    /// leaves the escapes out: dark modules are then drawn in the terminal's own text colour,
    /// which scans only where that is dark on a light background.
    package func render(indent: Int = 0, colour: Bool = true) -> [String] {
        let pad = String(repeating: " ", count: max(0, indent))
        let on = colour ? Self.on : "", off = colour ? Self.off : ""
        var out: [String] = []
        out.reserveCapacity(lines)
        var y = 0
        while y < matrix.totalHeight {
            var line = pad + on
            line.reserveCapacity(pad.utf8.count + matrix.totalWidth * 3 + 24)
            for x in 0..<matrix.totalWidth {
                let top = matrix.isDarkIncludingQuietZone(x: x, y: y)
                let bottom = matrix.isDarkIncludingQuietZone(x: x, y: y + 1)
                switch (top, bottom) {
                case (true, true): line += "\u{2588}"
                case (true, false): line += "\u{2580}"
                case (false, true): line += "\u{2584}"
                case (false, false): line += " "
                }
            }
            out.append(line + off)
            y += 2
        }
        return out
    }
}
