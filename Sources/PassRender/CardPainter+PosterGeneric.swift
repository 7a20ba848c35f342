import CCairo
import Foundation
import WalletPass

extension CardPainter {
    /// The poster generic pass is at least as tall as Apple's background image (345 × 505 pt)
    /// drawn across the card's width.
    static let posterGenericHeight = (cardWidth * 505 / 345).rounded()

    /// The poster generic pass's front at (x, y); returns its height. The image fills the whole
    /// card; the logo and header field sit at the top, the title, primary fields, footer field
    /// and barcode at the bottom, each over a darkening gradient unless `suppressHeaderDarkening`.
    func posterGenericFront(_ face: PosterGenericFace, x: Double, y top: Double, height knownHeight: Double?) -> Double {
        let P = Self.padding, W = width, m = model
        let art = pictures["artwork"]
        if drawing, let h = knownHeight {
            cairo_save(cr)
            roundedRect(x, top, W, h, 10)
            cairo_clip(cr)
            color(m.colors.background)
            cairo_paint(cr)
            cover(art, x: x, y: top, width: W, height: h)
            if face.darkensHeader, art != nil {
                shade(x: x, from: top, to: top + 110)
                shade(x: x, from: top + h, to: top + h - min(h * 0.6, 300))
            }
            cairo_restore(cr)
        }

        // Top: the primary logo (or the logo text) on the left, the header field on the right.
        var y = top + P
        let logoHeight = 30.0
        var right = x + W - P
        if let header = face.header {
            let w = min(150, max(measure(header.label, size: 9, bold: true), measure(header.value, size: 14)) + 2)
            right -= w
            text(header.label, x: right, y: y, width: w, size: 9, bold: true, color: face.label, align: .right)
            text(header.value, x: right, y: y + 12, width: w, size: 14, color: face.text, align: .right)
            right -= 8
        }
        if let logo = pictures["primaryLogo"] {
            fit(logo, x: x + P, y: y, maxWidth: min(126, right - x - P), maxHeight: logoHeight)
        } else {
            let lh = layoutHeight(face.logoText, size: 15, bold: true, width: right - x - P)
            text(face.logoText, x: x + P, y: y + (logoHeight - lh) / 2, width: right - x - P, size: 15, bold: true,
                 color: face.text)
        }
        y += logoHeight + 10
        drawMarks(m.marks, x: x, y: &y, width: W, padding: P)

        // Bottom: measured first, then drawn so that it ends at the card's bottom edge.
        let wasDrawing = drawing
        drawing = false
        let blockHeight = posterGenericBlock(face, x: x, y: 0)
        drawing = wasDrawing
        let blockTop = max(y + 16, top + Self.posterGenericHeight - blockHeight)
        return posterGenericBlock(face, x: x, y: blockTop) + blockTop - top
    }

    /// The title, primary fields, footer field and barcode from `y` down; returns their height.
    private func posterGenericBlock(_ face: PosterGenericFace, x: Double, y top: Double) -> Double {
        let P = Self.padding, W = width, tw = W - 2 * P
        var y = top
        if let title = face.title {
            y += text(title, x: x + P, y: y, width: tw, size: 24, bold: true, color: face.text, lines: 2) + 8
        }
        for cell in face.primary {
            text(cell.label, x: x + P, y: y, width: tw, size: 9, bold: true, color: face.label)
            let size = fittingSize([cell.value], width: tw, from: 20, to: 12)
            y += 12 + text(cell.value, x: x + P, y: y + 12, width: tw, size: size, bold: true, color: face.text, lines: 1) + 8
        }
        if let footer = face.footer {
            text(footer.label, x: x + P, y: y, width: tw, size: 9, bold: true, color: face.label)
            let size = fittingSize([footer.value], width: tw, from: 14, to: 10)
            y += 12 + text(footer.value, x: x + P, y: y + 12, width: tw, size: size, color: face.text, lines: 1) + 8
        }
        if let barcode = model.barcode {
            y += 4
            y += barcodeBox(barcode, x: x, y: y) + P
        } else {
            y += P - 8
        }
        return y - top
    }

    /// A black gradient, 55 % at `from` to clear at `to` (either direction).
    private func shade(x: Double, from: Double, to: Double) {
        let g = cairo_pattern_create_linear(0, from, 0, to)!
        cairo_pattern_add_color_stop_rgba(g, 0, 0, 0, 0, 0.55)
        cairo_pattern_add_color_stop_rgba(g, 1, 0, 0, 0, 0)
        cairo_rectangle(cr, x, min(from, to), width, abs(to - from))
        cairo_set_source(cr, g)
        cairo_fill(cr)
        cairo_pattern_destroy(g)
    }
}
