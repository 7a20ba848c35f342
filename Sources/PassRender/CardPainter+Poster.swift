import CCairo
import Foundation
import WalletPass

extension CardPainter {
    /// The poster's artwork area: Apple's artwork is 358 × 448 pt, drawn across the card's width.
    static let posterArtHeight = (cardWidth * 448 / 358).rounded()

    /// The poster event ticket's front at (x, y); returns its height. The artwork fills the top,
    /// the title and the date sit on it (over the darkening gradient), the footer ("chin") covers
    /// its bottom edge, and the barcode, when the pass has one (iOS 27), comes below on the
    /// card's colour.
    func posterFront(_ poster: PosterFace, x: Double, y top: Double, height knownHeight: Double?) -> Double {
        let P = Self.padding, W = width, m = model
        let artHeight = Self.posterArtHeight
        let logo = pictures["secondaryLogo"]
        let cells = poster.footerCells
        let cellsHeight = cells.isEmpty ? 0.0 : 12 + 22
        let logoHeight = logo == nil ? 0.0 : 12
        let footerHeight = max(44, P + cellsHeight + (cellsHeight > 0 && logoHeight > 0 ? 6 : 0) + logoHeight + P)
        let footerTop = top + artHeight - footerHeight

        if drawing, let h = knownHeight {
            cairo_save(cr)
            roundedRect(x, top, W, h, 10)
            cairo_clip(cr)
            color(m.colors.background)
            cairo_paint(cr)
            cover(pictures["artwork"], x: x, y: top, width: W, height: artHeight)
            if poster.darkensHeader {
                let g = cairo_pattern_create_linear(0, top, 0, top + 120)!
                cairo_pattern_add_color_stop_rgba(g, 0, 0, 0, 0, 0.55)
                cairo_pattern_add_color_stop_rgba(g, 1, 0, 0, 0, 0)
                cairo_rectangle(cr, x, top, W, 120)
                cairo_set_source(cr, g)
                cairo_fill(cr)
                cairo_pattern_destroy(g)
            }
            if let footerColor = poster.footerColor {
                color(footerColor)
                cairo_rectangle(cr, x, footerTop, W, footerHeight)
                cairo_fill(cr)
            } else {
                cover(pictures["artwork"], x: x, y: footerTop, width: W, height: footerHeight, blur: true)
                color(.black, alpha: 0.35)
                cairo_rectangle(cr, x, footerTop, W, footerHeight)
                cairo_fill(cr)
            }
            if let section = poster.sectionColor {
                color(section)
                cairo_rectangle(cr, x, footerTop, W, 4)
                cairo_fill(cr)
            }
            cairo_restore(cr)
        }

        // Top: teams or event logo text on the left, the date and time on the right.
        var y = top + P
        let dateWidth = 128.0
        let leftWidth = W - 2 * P - dateWidth - 8
        var left = 0.0
        if let teams = poster.teams {
            left += text(teams, x: x + P, y: y, width: leftWidth, size: 22, bold: true, color: poster.headerText, lines: 1)
        }
        // Wallet keeps the logo text on one line where it can: smaller type first, then a second line.
        var titleSize = poster.teams == nil ? 20.0 : 13
        while titleSize > 14, measure(poster.title, size: titleSize, bold: true) > leftWidth { titleSize -= 2 }
        left += text(poster.title, x: x + P, y: y + left, width: leftWidth, size: titleSize, bold: true,
                     color: poster.headerText, lines: 2)
        var right = 0.0
        if let date = poster.date {
            right += text(date, x: x + W - P - dateWidth, y: y, width: dateWidth, size: 12, bold: true,
                          color: poster.headerText, align: .right, lines: 2)
        }
        if let time = poster.time {
            right += text(time, x: x + W - P - dateWidth, y: y + right, width: dateWidth, size: 12,
                          color: poster.headerText, align: .right, lines: 1)
        }
        y += max(left, right) + 10

        // Marks, as on every card.
        drawMarks(m.marks, x: x, y: &y, width: W, padding: P)

        // Footer: the seat elements across, the secondary logo under them.
        var fy = footerTop + P
        if !cells.isEmpty {
            let gap = 8.0, n = Double(cells.count)
            let cw = (W - 2 * P - gap * (n - 1)) / n
            for (i, cell) in cells.enumerated() {
                let cx = x + P + Double(i) * (cw + gap)
                let align: CellAlignment = cells.count > 1 && i == cells.count - 1 ? .right : .left
                text(cell.label, x: cx, y: fy, width: cw, size: 9, bold: true, color: poster.footerText, align: align)
                let size = fittingSize([cell.value], width: cw, from: 18, to: 11)
                text(cell.value, x: cx, y: fy + 12, width: cw, size: size, bold: true, color: poster.footerText, align: align, lines: 1)
            }
            fy += cellsHeight + 6
        }
        if logo != nil {
            fit(logo, x: x + P, y: fy, maxWidth: 135, maxHeight: 12)
        }

        var bottom = top + artHeight
        if let barcode = m.barcode {
            bottom += P
            bottom += barcodeBox(barcode, x: x, y: bottom) + P
        }
        return bottom - top
    }
}
