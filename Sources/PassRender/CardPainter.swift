import CCairo
import Foundation
import WalletPass

/// The one drawing routine: a `CardModel` onto a cairo context, in card points (a card is 320 pt
/// wide, like Wallet's). PNG, PDF and SVG differ only in the surface under the context.
///
/// Every method runs twice: once with `drawing == false` on a scratch surface to measure (text is
/// shaped by pango either way), then on the real surface. All text goes through
/// `pango_layout_set_text` — never markup — so pass texts cannot style or inject anything.
final class CardPainter {
    let cr: OpaquePointer
    let model: CardModel
    let pictures: [String: PassPicture]
    /// Device pixels per card point (PNG scale; 1 for vector outputs): barcode modules are whole
    /// multiples of a device pixel and start on a pixel boundary.
    let pixelsPerPoint: Double
    var drawing: Bool
    /// The card width in points, widened when a long linear barcode needs it.
    let width: Double
    /// Texts drawn with a character no installed font has (pango draws a box): said under --verbose,
    /// so a CJK or emoji card drawn with only DejaVu is not silently wrong.
    private(set) var missingGlyphs: [String] = []

    /// The note for `missingGlyphs`, nil when every character had a font.
    var missingGlyphNote: String? {
        guard let first = missingGlyphs.first else { return nil }
        let more = missingGlyphs.count > 1 ? " and \(missingGlyphs.count - 1) more" : ""
        return "“\(FieldCell.cut(first, to: 40))”\(more) has characters no installed font can draw (they show as boxes); "
            + "install fonts-noto-cjk for Chinese, Japanese and Korean, fonts-noto-color-emoji for emoji"
    }

    static let cardWidth = 320.0
    static let padding = 12.0
    static let font = "DejaVu Sans"
    static let monoFont = "DejaVu Sans Mono"

    init(cr: OpaquePointer, model: CardModel, pictures: [String: PassPicture], pixelsPerPoint: Double, drawing: Bool) {
        self.cr = cr
        self.model = model
        self.pictures = pictures
        self.pixelsPerPoint = pixelsPerPoint
        self.drawing = drawing
        let barcodeWidth = Self.barcodeGeometry(model.barcode, pixelsPerPoint: pixelsPerPoint)?.outerWidth ?? 0
        width = max(Self.cardWidth, (barcodeWidth + 2 * Self.padding + 16).rounded(.up))
        let options = cairo_font_options_create()
        // Same text metrics whatever the surface, so the measuring pass and the drawing pass agree.
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_set_font_options(cr, options)
        cairo_font_options_destroy(options)
    }

    // MARK: - Barcode geometry

    struct BarcodeGeometry {
        /// Module width and height in points.
        var module: Double
        var moduleHeight: Double
        var outerWidth: Double
        var outerHeight: Double
    }

    /// Whole device pixels per module; 2-D codes get up to 200 pt, linear ones at least 1 pt per
    /// module (the card widens rather than squeezing bars below what phones and lasers resolve).
    /// `s` (device pixels per point) need not be whole — PDF counts printer dots, 2.36 per card
    /// point — so the 1-point minimum is rounded up to whole pixels too.
    static func barcodeGeometry(_ barcode: CardBarcode?, pixelsPerPoint s: Double) -> BarcodeGeometry? {
        guard let barcode, case .modules(let m) = barcode.content, m.width > 0, m.height > 0 else { return nil }
        let available = cardWidth - 2 * padding - 16
        if m.isLinear {
            let px = max(s.rounded(.up), ((available * s) / Double(m.outerWidth)).rounded(.down))
            let module = px / s
            let barHeight = max(60.0, (Double(m.outerWidth) * module * 0.15).rounded())
            let rowHeight = ((barHeight / Double(m.height)) * s).rounded(.up) / s
            return BarcodeGeometry(module: module, moduleHeight: rowHeight, outerWidth: Double(m.outerWidth) * module,
                                   outerHeight: Double(m.height) * rowHeight + 2 * Double(m.quietY) * module)
        }
        let target = min(available, m.outerWidth > 100 ? available : 160)
        let px = max(s.rounded(.up), ((target * s) / Double(max(m.outerWidth, m.outerHeight))).rounded(.down))
        let module = px / s
        return BarcodeGeometry(module: module, moduleHeight: module, outerWidth: Double(m.outerWidth) * module,
                               outerHeight: Double(m.outerHeight) * module)
    }

    // MARK: - Primitives

    func color(_ c: RGB, alpha: Double = 1) {
        cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha)
    }

    func snap(_ v: Double) -> Double { (v * pixelsPerPoint).rounded() / pixelsPerPoint }

    /// A pango layout for `text`; the caller unrefs it.
    func layout(_ text: String, size: Double, bold: Bool = false, mono: Bool = false, width: Double?,
                align: CellAlignment = .natural, lines: Int = 1) -> OpaquePointer {
        let layout = pango_cairo_create_layout(cr)!
        let desc = pango_font_description_new()!
        pango_font_description_set_family(desc, mono ? Self.monoFont : Self.font)
        pango_font_description_set_weight(desc, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_font_description_set_absolute_size(desc, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        pango_layout_set_text(layout, text, -1)
        if let width {
            pango_layout_set_width(layout, Int32(max(1, width) * Double(PANGO_SCALE)))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            if lines > 0 {
                pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
                pango_layout_set_height(layout, Int32(-lines))
            }
        }
        switch align {
        case .natural:
            // Left for left-to-right text, right for Arabic or Hebrew (pango's auto direction).
            pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .left:
            pango_layout_set_auto_dir(layout, 0)
            pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center:
            pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .right:
            pango_layout_set_auto_dir(layout, 0)
            pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        return layout
    }

    func size(of layout: OpaquePointer) -> (width: Double, height: Double) {
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_size(layout, &w, &h)
        return (Double(w) / Double(PANGO_SCALE), Double(h) / Double(PANGO_SCALE))
    }

    /// Draws text in a box; returns its height.
    @discardableResult
    func text(_ s: String, x: Double, y: Double, width: Double, size: Double, bold: Bool = false, mono: Bool = false,
              color c: RGB, align: CellAlignment = .natural, lines: Int = 1) -> Double {
        guard !s.isEmpty else { return 0 }
        let l = layout(s, size: size, bold: bold, mono: mono, width: width, align: align, lines: lines)
        defer { g_object_unref(UnsafeMutableRawPointer(l)) }
        let h = self.size(of: l).height
        if drawing {
            if pango_layout_get_unknown_glyphs_count(l) > 0, !missingGlyphs.contains(s) { missingGlyphs.append(s) }
            color(c)
            cairo_move_to(cr, x, y)
            pango_cairo_show_layout(cr, l)
        }
        return h
    }

    /// Natural width of a one-line text.
    func measure(_ s: String, size: Double, bold: Bool = false) -> Double {
        let l = layout(s, size: size, bold: bold, width: nil)
        defer { g_object_unref(UnsafeMutableRawPointer(l)) }
        return self.size(of: l).width
    }

    func roundedRect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ r: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
        cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }

    /// Draws `picture` to fit inside the box (aspect kept); returns the size used.
    @discardableResult
    func fit(_ picture: PassPicture?, x: Double, y: Double, maxWidth: Double, maxHeight: Double,
             alignRight: Bool = false, center: Bool = false) -> (width: Double, height: Double) {
        guard let p = picture, p.width > 0, p.height > 0 else { return (0, 0) }
        let k = min(maxWidth / Double(p.width), maxHeight / Double(p.height))
        let (w, h) = (Double(p.width) * k, Double(p.height) * k)
        let dx = center ? x + (maxWidth - w) / 2 : alignRight ? x + maxWidth - w : x
        if drawing {
            cairo_save(cr)
            cairo_translate(cr, dx, y + (maxHeight - h) / 2)
            cairo_scale(cr, k, k)
            cairo_set_source_surface(cr, p.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
            cairo_restore(cr)
        }
        return (w, h)
    }

    /// Fills the box with `picture`, scaled to cover and cropped (Apple: "images fill their allotted space").
    func cover(_ picture: PassPicture?, x: Double, y: Double, width w: Double, height h: Double, blur: Bool = false) {
        guard drawing, let p = picture, p.width > 0, p.height > 0 else { return }
        let k = max(w / Double(p.width), h / Double(p.height))
        cairo_save(cr)
        cairo_rectangle(cr, x, y, w, h)
        cairo_clip(cr)
        if blur {
            // Wallet blurs the background image: shrink it to a few pixels, then let the
            // bilinear filter spread them back over the card.
            let sw = max(1, p.width / 12), sh = max(1, p.height / 12)
            let small = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(sw), Int32(sh))!
            let scr = cairo_create(small)!
            cairo_scale(scr, Double(sw) / Double(p.width), Double(sh) / Double(p.height))
            cairo_set_source_surface(scr, p.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(scr), CAIRO_FILTER_GOOD)
            cairo_paint(scr)
            cairo_destroy(scr)
            let kk = max(w / Double(sw), h / Double(sh)) * 1.1
            cairo_translate(cr, x + (w - Double(sw) * kk) / 2, y + (h - Double(sh) * kk) / 2)
            cairo_scale(cr, kk, kk)
            cairo_set_source_surface(cr, small, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
            cairo_paint(cr)
            cairo_surface_destroy(small)
        } else {
            cairo_translate(cr, x + (w - Double(p.width) * k) / 2, y + (h - Double(p.height) * k) / 2)
            cairo_scale(cr, k, k)
            cairo_set_source_surface(cr, p.surface, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
        }
        cairo_restore(cr)
    }

    // MARK: - Front

    /// The card's outline: rounded; a notch at the top for event tickets, a scalloped top edge for coupons.
    func cardPath(x: Double, y: Double, height h: Double) {
        let r = 10.0, w = width
        cairo_new_path(cr)
        switch model.kind {
        case .eventTicket:
            cairo_move_to(cr, x + r, y)
            cairo_line_to(cr, x + w / 2 - 16, y)
            cairo_arc_negative(cr, x + w / 2, y, 16, Double.pi, 0)
            cairo_line_to(cr, x + w - r, y)
            cairo_arc(cr, x + w - r, y + r, r, -Double.pi / 2, 0)
            cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
            cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
            cairo_arc(cr, x + r, y + r, r, Double.pi, 3 * Double.pi / 2)
            cairo_close_path(cr)
        case .coupon:
            let bump = 4.0
            let count = Int(w / (bump * 3))
            let step = w / Double(count)
            cairo_move_to(cr, x, y)
            for i in 0..<count {
                let cx = x + step * (Double(i) + 0.5)
                cairo_line_to(cr, cx - bump, y)
                cairo_arc_negative(cr, cx, y, bump, Double.pi, 0)
            }
            cairo_line_to(cr, x + w, y)
            cairo_arc(cr, x + w - r, y + h - r, r, 0, Double.pi / 2)
            cairo_arc(cr, x + r, y + h - r, r, Double.pi / 2, Double.pi)
            cairo_close_path(cr)
        default:
            roundedRect(x, y, w, h, r)
        }
    }

    /// Lays out (and when drawing, paints) the front at (x, y); returns its height.
    func front(x: Double, y top: Double, height knownHeight: Double?) -> Double {
        if let poster = model.poster { return posterFront(poster, x: x, y: top, height: knownHeight) }
        if let boarding = model.boarding { return boardingFront(boarding, x: x, y: top, height: knownHeight) }
        if let face = model.posterGeneric { return posterGenericFront(face, x: x, y: top, height: knownHeight) }
        let P = Self.padding, W = width, m = model
        if drawing, let h = knownHeight {
            cairo_save(cr)
            cardPath(x: x, y: top, height: h)
            cairo_clip_preserve(cr)
            color(m.colors.background)
            cairo_fill(cr)
            if let bg = pictures["background"] {
                cover(bg, x: x, y: top, width: W, height: h, blur: true)
            }
            cairo_restore(cr)
        }
        var y = top + P

        // Header: logo, logo text, header fields from the right.
        let headerHeight = 40.0
        var headerRight = x + W - P
        var headerCells: [(FieldCell, Double)] = []
        for cell in m.headerFields.reversed() {
            let w = min(150, max(measure(cell.label, size: 9, bold: true), measure(cell.value, size: 14)) + 2)
            guard headerRight - w > x + P + 60 else { break }
            headerRight -= w
            headerCells.append((cell, headerRight))
            headerRight -= 8
        }
        for (cell, cx) in headerCells {
            let w = min(150, max(measure(cell.label, size: 9, bold: true), measure(cell.value, size: 14)) + 2)
            let align: CellAlignment = cell.alignment == .natural ? .right : cell.alignment
            text(cell.label, x: cx, y: y + 4, width: w, size: 9, bold: true, color: m.colors.label, align: align)
            text(cell.value, x: cx, y: y + 16, width: w, size: 14, color: m.colors.foreground, align: align)
        }
        var lx = x + P
        let logoBox = min(120, headerRight - lx)
        let used = fit(pictures["logo"], x: lx, y: y, maxWidth: max(0, logoBox), maxHeight: headerHeight)
        if used.width > 0 { lx += used.width + 8 }
        let logoText = m.logoText ?? (pictures["logo"] == nil ? m.organization : nil)
        if let logoText, headerRight - lx > 60 {
            let lh = layoutHeight(logoText, size: 15, bold: true, width: headerRight - lx)
            text(logoText, x: lx, y: y + (headerHeight - lh) / 2, width: headerRight - lx, size: 15, bold: true,
                 color: m.colors.foreground)
        }
        y += headerHeight + 8

        // Marks: a band across the card for each reason not to trust it.
        drawMarks(m.marks, x: x, y: &y, width: W, padding: P)

        // Primary fields: over the strip, beside the thumbnail, or across the card (boarding pass).
        let thumb = pictures["thumbnail"]
        let thumbWidth = thumb == nil ? 0.0 : 90.0
        let fieldsRight = x + W - P - (thumb == nil ? 0 : thumbWidth + 8)
        let thumbTop = y
        if let strip = pictures["strip"] {
            let stripHeight = m.kind == .eventTicket ? 98.0 : (m.kind == .coupon || m.kind == .storeCard) ? 144.0 : 123.0
            cover(strip, x: x, y: y, width: W, height: stripHeight)
            if let p = m.primaryFields.first {
                let size = fittingSize([p.value], width: W - 2 * P, from: 36, to: 20)
                let vh = layoutHeight(p.value, size: size, width: W - 2 * P, lines: 1)
                let lh = layoutHeight(p.label, size: 11, bold: true, width: W - 2 * P)
                let ty = y + stripHeight - P - vh - lh
                text(p.value, x: x + P, y: ty, width: W - 2 * P, size: size, color: m.colors.stripText, lines: 1)
                text(p.label, x: x + P, y: ty + vh, width: W - 2 * P, size: 11, bold: true, color: m.colors.stripText)
            }
            y += stripHeight + 8
        } else if m.kind == .boardingPass, !m.primaryFields.isEmpty {
            let glyphWidth = 36.0
            let half = (W - 2 * P - glyphWidth) / 2
            let origin = m.primaryFields[0]
            let valueSize = fittingSize(m.primaryFields.map(\.value), width: half, from: 34, to: 18)
            text(origin.label, x: x + P, y: y, width: half, size: 9, bold: true, color: m.colors.label)
            let vh = text(origin.value, x: x + P, y: y + 12, width: half, size: valueSize, color: m.colors.foreground)
            if let icon = m.transitIcon {
                let side = 22.0
                draw(icon, x: x + P + half + (glyphWidth - side) / 2, y: y + 12 + (vh - side) / 2, size: side, color: m.colors.label)
            }
            if m.primaryFields.count > 1 {
                let dest = m.primaryFields[1]
                text(dest.label, x: x + P + half + glyphWidth, y: y, width: half, size: 9, bold: true,
                     color: m.colors.label, align: .right)
                text(dest.value, x: x + P + half + glyphWidth, y: y + 12, width: half, size: valueSize,
                     color: m.colors.foreground, align: .right)
            }
            y += 12 + max(vh, 30) + 8
        } else if let p = m.primaryFields.first {
            let w = fieldsRight - (x + P)
            let size = fittingSize([p.value], width: w, from: 28, to: 16)
            text(p.label, x: x + P, y: y, width: w, size: 9, bold: true, color: m.colors.label)
            let vh = text(p.value, x: x + P, y: y + 12, width: w, size: size, color: m.colors.foreground, lines: 1)
            y += 12 + vh + 8
        }

        // Field rows.
        for (i, row) in m.rows.enumerated() {
            let right = (i == 0 && thumb != nil && pictures["strip"] == nil) ? fieldsRight : x + W - P
            y += fieldRow(row, x: x + P, y: y, right: right) + 8
        }
        if let thumb {
            fit(thumb, x: x + W - P - thumbWidth, y: thumbTop, maxWidth: thumbWidth, maxHeight: 90, alignRight: true)
            y = max(y, thumbTop + 98)
        }

        // Footer image, above the barcode (boarding passes).
        if let footer = pictures["footer"] {
            let used = fit(footer, x: x + (W - 286) / 2, y: y, maxWidth: 286, maxHeight: 15, center: true)
            y += used.height + 8
        }

        if let barcode = m.barcode {
            y += barcodeBox(barcode, x: x, y: y) + P
        } else {
            y += P
        }
        if drawing, let h = knownHeight, m.colors.background.luminance > 0.9, pictures["background"] == nil {
            // A hairline so a white card does not melt into a white page.
            cairo_save(cr)
            cardPath(x: x + 0.25, y: top + 0.25, height: h - 0.5)
            cairo_set_line_width(cr, 0.5)
            color(RGB(0.75, 0.75, 0.75))
            cairo_stroke(cr)
            cairo_restore(cr)
        }
        return y - top
    }

    /// A transit icon (its 24-unit geometry) in a `size`-point square at (x, y); windows are cut out.
    func draw(_ icon: TransitIcon, x: Double, y: Double, size: Double, color c: RGB) {
        guard drawing else { return }
        cairo_save(cr)
        cairo_translate(cr, x, y)
        cairo_scale(cr, size / 24, size / 24)
        cairo_new_path(cr)
        let (body, holes) = icon.shapes
        for shape in body + holes {
            switch shape {
            case .polygon(let points):
                for (i, p) in points.enumerated() { i == 0 ? cairo_move_to(cr, p.0, p.1) : cairo_line_to(cr, p.0, p.1) }
                cairo_close_path(cr)
            case .rect(let rx, let ry, let w, let h, let r):
                if r <= 0 {
                    cairo_rectangle(cr, rx, ry, w, h)
                } else {
                    cairo_new_sub_path(cr)
                    cairo_arc(cr, rx + w - r, ry + r, r, -Double.pi / 2, 0)
                    cairo_arc(cr, rx + w - r, ry + h - r, r, 0, Double.pi / 2)
                    cairo_arc(cr, rx + r, ry + h - r, r, Double.pi / 2, Double.pi)
                    cairo_arc(cr, rx + r, ry + r, r, Double.pi, 3 * Double.pi / 2)
                    cairo_close_path(cr)
                }
            case .circle(let cx, let cy, let r):
                cairo_new_sub_path(cr)
                cairo_arc(cr, cx, cy, r, 0, 2 * Double.pi)
                cairo_close_path(cr)
            }
        }
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
        color(c)
        cairo_fill(cr)
        cairo_restore(cr)
    }

    /// The marks: a band across the card for each reason not to trust it (every layout draws them alike).
    func drawMarks(_ marks: [CardMark], x: Double, y: inout Double, width W: Double, padding P: Double) {
        for mark in marks {
            let band: RGB = mark.kind == .notVerified ? RGB(0.78, 0.16, 0.16) : mark.kind == .voided ? RGB(0.26, 0.26, 0.26) : RGB(0.85, 0.35, 0)
            let th = layoutHeight(mark.text, size: 10, bold: true, width: W - 2 * P, lines: 3)
            let bh = th + 8
            if drawing {
                color(band)
                cairo_rectangle(cr, x, y, W, bh)
                cairo_fill(cr)
            }
            text(mark.text, x: x + P, y: y + 4, width: W - 2 * P, size: 10, bold: true, color: .white, align: .center, lines: 3)
            y += bh + 6
        }
    }

    func layoutHeight(_ s: String, size: Double, bold: Bool = false, width: Double, lines: Int = 1) -> Double {
        guard !s.isEmpty else { return 0 }
        let l = layout(s, size: size, bold: bold, width: width, lines: lines)
        defer { g_object_unref(UnsafeMutableRawPointer(l)) }
        return self.size(of: l).height
    }

    /// The largest size, in steps, at which every text fits the width on one line.
    func fittingSize(_ texts: [String], width: Double, from: Double, to: Double) -> Double {
        var size = from
        while size > to, texts.contains(where: { measure($0, size: size) > width }) { size -= 4 }
        return max(size, to)
    }

    /// One row of fields, equally wide; the last of several sits right unless it says otherwise.
    func fieldRow(_ row: [FieldCell], x: Double, y: Double, right: Double) -> Double {
        let gap = 8.0
        let n = Double(row.count)
        let cw = (right - x - gap * (n - 1)) / n
        var h = 0.0
        for (i, cell) in row.enumerated() {
            let cx = x + Double(i) * (cw + gap)
            var align = cell.alignment
            if align == .natural, row.count > 1, i == row.count - 1 { align = .right }
            text(cell.label, x: cx, y: y, width: cw, size: 9, bold: true, color: model.colors.label, align: align)
            // Wallet keeps a value on one line: smaller type first, then "…" (never "01/01/20⏎20").
            let size = fittingSize([cell.value], width: cw, from: 14, to: 10)
            let vh = text(cell.value, x: cx, y: y + 12, width: cw, size: size, color: model.colors.foreground, align: align, lines: 1)
            h = max(h, 12 + vh)
        }
        return h
    }

    /// The white box with the barcode (or its text) and the altText; returns its height.
    func barcodeBox(_ barcode: CardBarcode, x: Double, y: Double) -> Double {
        let W = width, pad = 8.0
        var inner = 0.0
        var boxWidth = 0.0
        let geometry = Self.barcodeGeometry(barcode, pixelsPerPoint: pixelsPerPoint)
        let alt = barcode.altText.map { FieldCell.cut($0, to: 200) } ?? ""
        switch barcode.content {
        case .modules(let modules):
            guard let g = geometry else { return 0 }
            boxWidth = g.outerWidth + 2 * pad
            let bx = snap(x + (W - boxWidth) / 2)
            let altHeight = alt.isEmpty ? 0 : layoutHeight(alt, size: 11, width: max(boxWidth - 2 * pad, 120), lines: 2) + 4
            inner = g.outerHeight + altHeight
            if drawing {
                color(.white)
                roundedRect(bx, y, boxWidth, inner + 2 * pad, 6)
                cairo_fill(cr)
                // Whole pixels per module, no smoothing: scanners need hard edges.
                let ox = snap(bx + pad) + Double(modules.quietX) * g.module
                let oy = snap(y + pad) + Double(modules.quietY) * g.module
                cairo_save(cr)
                cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE)
                color(.black)
                for run in modules.runs {
                    cairo_rectangle(cr, ox + Double(run.x) * g.module, oy + Double(run.y) * g.moduleHeight,
                                    Double(run.length) * g.module, g.moduleHeight)
                }
                cairo_fill(cr)
                cairo_restore(cr)
            }
            if !alt.isEmpty {
                let aw = max(boxWidth - 2 * pad, 120)
                text(alt, x: x + (W - aw) / 2, y: y + pad + g.outerHeight + 4, width: aw, size: 11, color: .black,
                     align: .center, lines: 2)
            }
        case .text(let message, let reason):
            boxWidth = W - 2 * Self.padding
            let tw = boxWidth - 2 * pad
            let shown = FieldCell.cut(message, to: 600)
            let mh = layoutHeight(shown, size: 11, width: tw, lines: 6)
            let rh = layoutHeight(reason, size: 9, width: tw, lines: 3)
            let ah = alt.isEmpty ? 0 : layoutHeight(alt, size: 11, width: tw, lines: 2) + 4
            inner = mh + 4 + rh + ah
            if drawing {
                color(.white)
                roundedRect(x + Self.padding, y, boxWidth, inner + 2 * pad, 6)
                cairo_fill(cr)
            }
            text(shown, x: x + Self.padding + pad, y: y + pad, width: tw, size: 11, mono: true, color: .black, align: .center, lines: 6)
            text(reason, x: x + Self.padding + pad, y: y + pad + mh + 4, width: tw, size: 9, color: RGB(0.6, 0.1, 0.1),
                 align: .center, lines: 3)
            if !alt.isEmpty {
                text(alt, x: x + Self.padding + pad, y: y + pad + mh + 4 + rh + 4, width: tw, size: 11, color: .black,
                     align: .center, lines: 2)
            }
        }
        return inner + 2 * pad
    }

    // MARK: - Back

    /// The back: organization, description, back fields, change notices, and with `below` (PDF)
    /// what Wallet shows under the pass. `pageBottom` (PDF) starts a new page, via `newPage`, when
    /// a field would cross it. Returns the height used on the last page.
    func back(x: Double, y top: Double, width w: Double, height knownHeight: Double?,
              pageBottom: Double? = nil, below: Bool = false, newPage: (() -> Double)? = nil) -> Double {
        let P = Self.padding, m = model
        let ink = RGB(0.1, 0.1, 0.1), soft = RGB(0.4, 0.4, 0.4)
        if drawing, let h = knownHeight, pageBottom == nil {
            color(RGB(0.98, 0.98, 0.98))
            roundedRect(x, top, w, h, 10)
            cairo_fill_preserve(cr)
            cairo_set_line_width(cr, 0.5)
            color(RGB(0.75, 0.75, 0.75))
            cairo_stroke(cr)
        }
        var y = top + P
        let tw = w - 2 * P
        y += text(m.organization, x: x + P, y: y, width: tw, size: 15, bold: true, color: ink, lines: 2) + 2
        if !m.passDescription.isEmpty, m.passDescription != m.organization {
            y += text(m.passDescription, x: x + P, y: y, width: tw, size: 11, color: soft, lines: 3)
        }
        y += 10
        func block(_ label: String, _ value: String) {
            let lh = label.isEmpty ? 0 : layoutHeight(label, size: 9, bold: true, width: tw, lines: 3) + 2
            let vh = layoutHeight(value, size: 11, width: tw, lines: 0)
            if let pageBottom, let newPage, y + lh + vh > pageBottom, y > top + P + 40 {
                y = newPage()
            }
            if !label.isEmpty { text(label, x: x + P, y: y, width: tw, size: 9, bold: true, color: soft, lines: 3) }
            text(value, x: x + P, y: y + lh, width: tw, size: 11, color: ink, lines: 0)
            y += lh + vh + 10
        }
        for field in m.backFields {
            block(field.label, field.attributed.map(HTMLText.plainText) ?? field.value)
        }
        if m.omittedBackFields > 0 {
            block("", "\(m.omittedBackFields) more back fields are not shown.")
        }
        if below, !m.below.isEmpty {
            // Wallet's sections under the pass, each under its heading; links as their addresses
            // (a printed page cannot be tapped, and nothing is fetched).
            for section in m.below.sections {
                // The venue map at the text's width in its own proportions, at most 300 points
                // high, on the page of its heading.
                let map = section.title == BelowCard.venueMapTitle ? pictures["venueMap"].flatMap { $0.width > 0 ? $0 : nil } : nil
                let mapHeight = map.map { min(tw * Double($0.height) / Double($0.width), 300) } ?? 0
                if let pageBottom, let newPage, y + 40 + mapHeight > pageBottom { y = newPage() }
                y += text(section.title.uppercased(), x: x + P, y: y + 4, width: tw, size: 11, bold: true, color: ink) + 10
                if let map {
                    y += fit(map, x: x + P, y: y, maxWidth: tw, maxHeight: mapHeight).height + 10
                    continue
                }
                for line in section.lines { block(line.label, line.value) }
            }
            for sentence in m.below.leftOut { block("", sentence) }
        }
        return y - top
    }
}
