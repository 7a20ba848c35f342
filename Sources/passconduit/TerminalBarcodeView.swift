import Barcodes
import Foundation
import WalletPass
#if canImport(Glibc)
import Glibc
#endif

/// The barcode under a pass on a terminal (`show`, the add flow): drawn in half blocks a phone can
/// scan, its altText underneath; when it cannot be drawn (terminal too narrow, message not
/// encodable, a format Wallet does not draw) one line says why and the barcode's text is shown.
struct TerminalBarcodeView {
    let terminal: Terminal
    /// Columns of the terminal the drawing goes to.
    let columns: Int
    /// Whether the drawing carries its black-on-white colours (the terminal's choice, unless
    /// `render --format terminal` asks for them on a file or pipe).
    let colour: Bool

    init(terminal: Terminal, columns: Int = TerminalBarcodeView.terminalColumns(), colour: Bool? = nil) {
        self.terminal = terminal
        self.columns = columns
        self.colour = colour ?? terminal.colour
    }

    /// Lines to print for `pass`; empty when it has no barcode at all.
    func lines(for pass: PassInfo) -> [String] {
        let choice = BarcodeChoice(pass)
        guard let shown = choice.textBarcode else { return [] }
        var out = [terminal.bold("Barcode")]
        let drawing: TerminalBarcode
        do {
            guard let matrix = try choice.matrix(barHeight: TerminalBarcode.linearBarHeight) else {
                out.append("  " + (choice.unsupportedNote ?? ""))
                return out + textLines(shown)
            }
            drawing = TerminalBarcode(matrix)
        } catch let error as BarcodeError {
            out.append("  " + error.message)
            if terminal.verbose { out.append("  " + terminal.dim(error.detail)) }
            return out + textLines(shown)
        } catch {
            out.append("  The barcode could not be drawn (\(error)), so it is shown as text.")
            return out + textLines(shown)
        }
        guard drawing.fits(columns: columns) else {
            out.append("  " + drawing.tooNarrowMessage(columns: columns))
            return out + textLines(shown)
        }
        // Indented like the card when there is room; never wider than the terminal.
        let indent = max(0, min(2, columns - drawing.columns))
        out += drawing.render(indent: indent, colour: colour)
        if !colour {
            out.append("  Drawn without colours (NO_COLOR, --no-color or TERM=dumb): it scans where the terminal shows dark text on a light background.")
        }
        if let alt = shown.altText.map(Self.printable), !alt.isEmpty {
            let pad = max(indent, indent + (drawing.columns - alt.count) / 2)
            out.append(String(repeating: " ", count: pad) + alt)
        }
        return out
    }

    /// The message (and altText) as text, for a barcode that is not drawn.
    private func textLines(_ barcode: PassBarcode) -> [String] {
        var out = ["  " + terminal.dim("Message") + "  " + Self.printable(barcode.message)]
        if let alt = barcode.altText.map(Self.printable), !alt.isEmpty, alt != Self.printable(barcode.message) {
            out.append("  " + terminal.dim("Text   ") + "  " + alt)
        }
        return out
    }

    /// Text from a pass made safe for a terminal: control characters (binary payloads hold NUL,
    /// ESC, …) are shown as \u{…} escapes, the text is cut at 2000 characters.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(2000) {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80..<0xA0).contains(v) || v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v) {
                out += "\\u{\(String(v, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if text.unicodeScalars.count > 2000 { out += "…" }
        return out
    }

    /// The terminal's width: the window size of stdout, else $COLUMNS, else 80.
    static func terminalColumns(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = environment["COLUMNS"], let n = Int(text), n > 0 { return n }
        return 80
    }
}
