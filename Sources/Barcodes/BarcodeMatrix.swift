/// A barcode as whole modules: `width` × `height` dark or light squares, without the quiet zone
/// (`quietZone` says how many light modules a renderer adds each side). Nothing here is scaled or
/// smoothed: a renderer draws each module as an integer number of pixels, nearest-neighbour.
///
/// A linear code (Code 128, Code 39, Codabar, EAN-13, ITF) is one row of bars repeated `height`
/// times (see `BarcodeEncoder.defaultBarHeight`); `withBarHeight` changes it.
package struct BarcodeMatrix: Sendable, Equatable {
    package let format: BarcodeFormat
    package let width: Int
    package let height: Int
    /// Row-major, `width * height`, true = dark.
    private let modules: [Bool]

    init(format: BarcodeFormat, width: Int, height: Int, modules: [Bool]) {
        precondition(width > 0 && height > 0 && modules.count == width * height, "matrix shape")
        self.format = format
        self.width = width
        self.height = height
        self.modules = modules
    }

    /// Light modules to add left/right (`horizontal`) and above/below (`vertical`).
    package var quietZone: (horizontal: Int, vertical: Int) { format.quietZone }

    /// Width and height including the quiet zone on both sides.
    package var totalWidth: Int { width + 2 * quietZone.horizontal }
    package var totalHeight: Int { height + 2 * quietZone.vertical }

    /// Whether the module at column `x`, row `y` (0-based, quiet zone excluded) is dark; false
    /// outside the symbol, so callers may walk the quiet zone with negative or large coordinates.
    package func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        return modules[y * width + x]
    }

    /// Whether a module is dark, counting the quiet zone in: (0, 0) is the top-left corner of the
    /// quiet zone.
    package func isDarkIncludingQuietZone(x: Int, y: Int) -> Bool {
        isDark(x: x - quietZone.horizontal, y: y - quietZone.vertical)
    }

    /// A linear code with its bars `barHeight` modules tall (at least 1); other codes unchanged.
    package func withBarHeight(_ barHeight: Int) -> BarcodeMatrix {
        guard format.isLinear, barHeight != height else { return self }
        let rows = max(1, barHeight)
        let row = Array(modules[0..<width])
        return BarcodeMatrix(format: format, width: width, height: rows, modules: Array([[Bool]](repeating: row, count: rows).joined()))
    }

    /// Rows as strings of "1" (dark) and "0" (light), quiet zone excluded: for tests and debugging.
    package var rowStrings: [String] {
        (0..<height).map { y in String((0..<width).map { modules[y * width + $0] ? "1" : "0" }) }
    }
}
