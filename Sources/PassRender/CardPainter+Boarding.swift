import CCairo
import Foundation
import WalletPass

extension CardPainter {
    /// The semantic boarding pass's front at (x, y); returns its height: flight and day, the two
    /// airports with the plane between them, the boarding time, gate/terminal/seat/zone/group, the
    /// passenger and the badges, a line saying the times are the issued ones, then the barcode.
    func boardingFront(_ b: BoardingFace, x: Double, y top: Double, height knownHeight: Double?) -> Double {
        let P = Self.padding, W = width, m = model
        let fg = m.colors.foreground, label = m.colors.label
        if drawing, let h = knownHeight {
            cairo_save(cr)
            roundedRect(x, top, W, h, 10)
            color(m.colors.background)
            cairo_fill(cr)
            if m.colors.background.luminance > 0.9 {
                roundedRect(x + 0.25, top + 0.25, W - 0.5, h - 0.5, 10)
                cairo_set_line_width(cr, 0.5)
                color(RGB(0.75, 0.75, 0.75))
                cairo_stroke(cr)
            }
            cairo_restore(cr)
        }
        var y = top + P
        let used = fit(pictures["logo"], x: x + P, y: y, maxWidth: 90, maxHeight: 30)
        let lx = x + P + (used.width > 0 ? used.width + 8 : 0)
        // The day keeps its natural width at the right; the flight number takes the rest.
        let dayWidth = b.day.map { min(W / 2, measure($0, size: 12, bold: true) + 2) } ?? 0
        text(b.flight, x: lx, y: y + 5, width: max(40, x + W - P - dayWidth - 8 - lx), size: 17, bold: true, color: fg, lines: 1)
        if let day = b.day {
            text(day, x: x + W - P - dayWidth, y: y + 8, width: dayWidth, size: 12, bold: true, color: label, align: .right, lines: 1)
        }
        y += 40
        drawMarks(m.marks, x: x, y: &y, width: W, padding: P)

        // The airports, the plane between them.
        let glyph = 36.0
        let half = (W - 2 * P - glyph) / 2
        let rightX = x + P + half + glyph
        let codeHeight = text(b.departure.code, x: x + P, y: y, width: half, size: 34, bold: true, color: fg, lines: 1)
        text(b.destination.code, x: rightX, y: y, width: half, size: 34, bold: true, color: fg, align: .right, lines: 1)
        draw(.air, x: x + P + half + (glyph - 22) / 2, y: y + (codeHeight - 22) / 2, size: 22, color: label)
        y += codeHeight
        let cityHeight = max(text(b.departure.city, x: x + P, y: y, width: half, size: 11, color: fg, lines: 1),
                             text(b.destination.city, x: rightX, y: y, width: half, size: 11, color: fg, align: .right, lines: 1))
        y += cityHeight + 8
        for (airport, side, align) in [(b.departure, "DEPARTS", CellAlignment.left), (b.destination, "ARRIVES", .right)] {
            guard let time = airport.time else { continue }
            let ax = align == .left ? x + P : rightX
            text(side, x: ax, y: y, width: half, size: 9, bold: true, color: label, align: align)
            text(time, x: ax, y: y + 12, width: half, size: 16, color: fg, align: align, lines: 1)
        }
        y += 12 + 22
        if let boarding = b.boardingTime {
            text("BOARDING", x: x + P, y: y, width: W - 2 * P, size: 9, bold: true, color: label)
            y += 12 + text(boarding, x: x + P, y: y + 12, width: W - 2 * P, size: 28, bold: true, color: fg, lines: 1) + 6
        }
        if !b.cells.isEmpty { y += fieldRow(b.cells, x: x + P, y: y, right: x + W - P) + 10 }
        if let passenger = b.passenger {
            text("PASSENGER", x: x + P, y: y, width: W - 2 * P, size: 9, bold: true, color: label)
            y += 12 + text(passenger, x: x + P, y: y + 12, width: W - 2 * P, size: 15, color: fg, lines: 1) + 6
        }
        // Badges: pills in two rows at most.
        var bx = x + P, rowsUsed = 0
        let pill = 18.0
        if !b.badges.isEmpty { rowsUsed = 1 }
        for badge in b.badges {
            let w = min(W - 2 * P, measure(badge, size: 10, bold: true) + 14)
            if bx + w > x + W - P {
                guard rowsUsed < 2 else { break }
                rowsUsed += 1
                bx = x + P
                y += pill + 4
            }
            if drawing {
                roundedRect(bx, y, w, pill, pill / 2)
                cairo_set_line_width(cr, 1)
                color(label)
                cairo_stroke(cr)
            }
            text(badge, x: bx + 7, y: y + 3, width: w - 14, size: 10, bold: true, color: fg, lines: 1)
            bx += w + 6
        }
        if rowsUsed > 0 { y += pill + 8 }
        y += text(BoardingFace.offlineNote, x: x + P, y: y, width: W - 2 * P, size: 8, color: label, lines: 2) + 8
        if let barcode = m.barcode {
            y += barcodeBox(barcode, x: x, y: y) + P
        } else {
            y += P
        }
        return y - top
    }
}
