import Foundation
import WalletPass

/// An opaque colour for drawing, channels 0…1.
package struct RGB: Sendable, Equatable {
    package var r: Double
    package var g: Double
    package var b: Double

    package init(_ r: Double, _ g: Double, _ b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// A pass colour composited over white (an `rgba()` alpha must not make text vanish).
    init(_ c: PassColor) {
        let a = min(max(c.alpha, 0), 1)
        r = (Double(c.red) / 255) * a + (1 - a)
        g = (Double(c.green) / 255) * a + (1 - a)
        b = (Double(c.blue) / 255) * a + (1 - a)
    }

    static let white = RGB(1, 1, 1)
    static let black = RGB(0, 0, 0)

    /// WCAG 2 relative luminance.
    var luminance: Double {
        func lin(_ c: Double) -> Double { c <= 0.039_28 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// WCAG 2 contrast ratio, 1…21.
    func contrast(with other: RGB) -> Double {
        let (a, b) = (luminance + 0.05, other.luminance + 0.05)
        return max(a, b) / min(a, b)
    }

    /// "#rrggbb" for CSS.
    var css: String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for v in [r, g, b] {
            let n = Int((min(max(v, 0), 1) * 255).rounded())
            s.append(digits[n >> 4])
            s.append(digits[n & 0xF])
        }
        return s
    }

    /// Black or white, whichever reads better on `self`.
    var readableText: RGB { contrast(with: .black) >= contrast(with: .white) ? .black : .white }
}

/// The colours a card is drawn in: the pass's own where it gives them, Wallet-like defaults where
/// it does not, and text that stays readable — a label or value colour too close to the
/// background (white on white, garbage that parsed as black on black) is replaced by black or
/// white and the replacement is recorded.
package struct CardColors: Sendable, Equatable {
    package var background: RGB
    package var foreground: RGB
    package var label: RGB
    /// Text over a strip image.
    package var stripText: RGB
    package var notes: [String] = []

    /// Below this WCAG ratio text is considered unreadable (WCAG's large-text minimum is 3).
    static let minimumContrast = 1.8

    init(document d: PassDocument, backgroundImageLuminance: Double? = nil) {
        var notes: [String] = []
        let bg = d.backgroundColor.map(RGB.init) ?? .white
        // A background image replaces the colour (Apple); judge text against the image then.
        let judged = backgroundImageLuminance.map { RGB($0, $0, $0) } ?? bg
        func readable(_ wanted: RGB?, key: String, fallback: RGB) -> RGB {
            guard let wanted else { return fallback }
            if wanted.contrast(with: judged) < Self.minimumContrast {
                notes.append("\(key) \(wanted.css) is unreadable on the background \(judged.css); drawn as \(judged.readableText.css)")
                return judged.readableText
            }
            return wanted
        }
        let fg = readable(d.foregroundColor.map(RGB.init), key: "foregroundColor", fallback: judged.readableText)
        background = bg
        foreground = fg
        label = readable(d.labelColor.map(RGB.init), key: "labelColor", fallback: fg)
        stripText = d.stripColor.map(RGB.init) ?? .white
        self.notes = notes
    }
}
