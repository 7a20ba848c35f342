import CCairo
import CCairoLazy   // links the trampolines that load the library on first use (script/gen-lazy-shims)
import Foundation
import Support
import WalletPass

package enum RenderFormat: String, Sendable, CaseIterable {
    case png, pdf, svg, html
}

package enum RenderSide: String, Sendable, CaseIterable {
    case front, back, both
}

/// The printed page for PDF output.
package enum PaperSize: String, Sendable {
    case a4, letter

    /// Size in PDF points.
    var points: (width: Double, height: Double) { self == .a4 ? (595.276, 841.89) : (612, 792) }

    /// Letter where the locale's region uses it (LC_ALL, LC_PAPER, LANG, as glibc looks), A4 elsewhere.
    package static func forLocale(_ environment: [String: String]) -> PaperSize {
        let locale = [environment["LC_ALL"], environment["LC_PAPER"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty } ?? ""
        var region = Substring(locale)
        if let us = region.firstIndex(of: "_") { region = region[region.index(after: us)...] } else { return .a4 }
        region = region.prefix { $0.isLetter }
        let letterRegions: Set<String> = ["US", "CA", "MX", "CL", "CO", "VE", "PH", "CR", "GT", "SV", "NI", "PA", "PR", "DO", "BO"]
        return letterRegions.contains(region.uppercased()) ? .letter : .a4
    }
}

/// What to render and how.
package struct RenderRequest: Sendable {
    package var format: RenderFormat
    /// Device pixels per card point for PNG (1, 2 or 3).
    package var scale: Int
    package var side: RenderSide
    package var paper: PaperSize
    package var now: Date
    package var imageLimits: ImageLimits

    package init(format: RenderFormat, scale: Int = 2, side: RenderSide = .front, paper: PaperSize = .a4,
                 now: Date = Date(), imageLimits: ImageLimits = .init()) {
        self.format = format
        self.scale = scale
        self.side = side
        self.paper = paper
        self.now = now
        self.imageLimits = imageLimits
    }
}

package struct RenderOutput: Sendable {
    package var bytes: [UInt8]
    /// Things left out or changed on the way (skipped images, replaced colours), for --verbose.
    package var notes: [String]
}

/// A pass drawn: the `CardModel` laid out once, then painted on a cairo image (PNG), PDF or SVG
/// surface by the one `CardPainter`, or written as HTML.
package enum PassRenderer {
    /// PDF: card points to printed points, so the card comes out at a phone's true size
    /// (0.2 mm per point: a 320 pt card is 64 mm wide).
    static let printScale = 0.2 / 25.4 * 72
    static let pdfMargin = 48.0
    static let gap = 16.0
    /// A printer's dot (1/300 inch) in page points: 0.24 pt. 300, 600 and 1200 dpi all put a
    /// whole number of dots on it.
    static let printDot = 72.0 / 300
    /// PDF: printer dots per card point. Barcode modules are whole dots and start on a dot
    /// (the card's origin sits on the page's dot grid), so a PDF printed or rasterized at 300,
    /// 600 or 1200 dpi gets modules that are exact equal squares with hard edges. Snapping to
    /// quarter card points instead (0.142 pt on paper) left every module edge at an arbitrary
    /// fraction of a dot: rasterized at 300 dpi the modules came out 5 or 6 dots wide with grey
    /// edges, and a large Aztec symbol — whose readers extrapolate the whole grid from the small
    /// bullseye in its centre — no longer decoded (zxing-cpp read the same symbol from the PNG).
    static let printDotsPerCardPoint = printScale / printDot

    /// cairo and pango, loaded on first use (CCairoLazy): every format measures text with them.
    package static let library = NativeLibrary(purpose: "drawing cards", load: ccairolazy_load)

    package static func render(info: PassInfo, status: PassStatus, error: PassError?, barcode: CardBarcode?,
                               request: RenderRequest) throws -> RenderOutput {
        do { try library.load() } catch { throw RenderProblem.output(error.message) }
        let scale = min(max(request.scale, 1), 3)
        let (model, pictures, images) = prepare(info: info, status: status, error: error, barcode: barcode,
                                                scale: request.format == .png ? scale : 3, request: request)

        switch request.format {
        case .html:
            let width = measureWidth(model, pictures: pictures)
            let page = CardHTML.page(model, side: request.side, images: images, width: width, language: info.language)
            return RenderOutput(bytes: Array(page.utf8), notes: model.notes)
        case .png, .svg:
            var notes = model.notes
            let bytes = try drawImage(model, pictures: pictures, request: request, scale: scale, notes: &notes)
            return RenderOutput(bytes: bytes, notes: notes)
        case .pdf:
            var notes = model.notes
            let bytes = try drawPDF(model, pictures: pictures, request: request, title: info.description, notes: &notes)
            return RenderOutput(bytes: bytes, notes: notes)
        }
    }

    /// The card laid out, with the images its style uses decoded within the limits (a bad one is
    /// left out, with a note).
    static func prepare(info: PassInfo, status: PassStatus, error: PassError?, barcode: CardBarcode?, scale: Int,
                        request: RenderRequest, errorMessage: String? = nil) -> (CardModel, [String: PassPicture], [String: PassImage]) {
        var model = CardModel(info: info, status: status, error: error, barcode: barcode,
                              scale: scale, now: request.now, errorMessage: errorMessage)
        // Decode each image the style uses, within the limits; a bad one is left out, with a note.
        var budget = request.imageLimits.maxTotalPixels
        var pictures: [String: PassPicture] = [:]
        var images: [String: PassImage] = [:]
        let slots: [(String, PassImage?)] = [("logo", model.logo), ("strip", model.strip), ("background", model.background),
                                              ("thumbnail", model.thumbnail), ("footer", model.footer),
                                              ("artwork", model.artwork), ("secondaryLogo", model.secondaryLogo),
                                              ("primaryLogo", model.primaryLogo),
                                              // Last: the card's own images come first in the pixel budget;
                                              // only HTML and the PDF's back show what is below the card.
                                              ("venueMap", [.html, .pdf].contains(request.format) ? model.venueMap : nil)]
        for (name, image) in slots {
            guard let image else { continue }
            switch PassPicture.decode(image, limits: request.imageLimits, budget: &budget) {
            case .success(let p):
                pictures[name] = p
                images[name] = image
            case .failure(let problem):
                model.notes.append(problem.description)
            }
        }
        if let bg = pictures["background"] {
            model.colors = CardColors(document: info.document, backgroundImageLuminance: bg.meanLuminance)
        }
        model.logo = images["logo"]
        model.strip = images["strip"]
        model.background = images["background"]
        model.thumbnail = images["thumbnail"]
        model.footer = images["footer"]
        model.artwork = images["artwork"]
        model.secondaryLogo = images["secondaryLogo"]
        model.primaryLogo = images["primaryLogo"]
        model.venueMap = images["venueMap"]
        if model.venueMap == nil { model.below.venueMap = nil }
        if model.poster != nil {
            model.colors = CardColors(document: info.document, backgroundImageLuminance: pictures["artwork"]?.meanLuminance)
            model.poster?.chooseColors(colors: model.colors, artworkLuminance: pictures["artwork"]?.meanLuminance)
        }
        if model.posterGeneric != nil {
            let luminance = pictures["artwork"]?.meanLuminance
            model.colors = CardColors(document: info.document, backgroundImageLuminance: luminance)
            model.posterGeneric?.chooseColors(colors: model.colors, imageLuminance: luminance)
        }

        return (model, pictures, images)
    }

    /// The card for a page of someone else's (the web wallet's pass page): the style sheet and the
    /// `<section>`s that `render --format html` puts in its `<main>`, from the same layout and the
    /// same escaping. The page embedding them allows inline styles (issuer colours) and no script.
    /// `errorMessage`: the verdict's sentence in the page's words (the web wallet's: a web service,
    /// not "this computer"); nil for the error's own.
    package static func htmlCard(info: PassInfo, status: PassStatus, error: PassError?, barcode: CardBarcode?,
                                 side: RenderSide = .both, now: Date = Date(), imageLimits: ImageLimits = .init(),
                                 errorMessage: String? = nil, issuer: CardIssuerHeading = .pageTitle)
        -> (css: String, body: String, notes: [String]) {
        let request = RenderRequest(format: .html, side: side, now: now, imageLimits: imageLimits)
        let (model, pictures, images) = prepare(info: info, status: status, error: error, barcode: barcode, scale: 3, request: request,
                                                errorMessage: errorMessage)
        let width = measureWidth(model, pictures: pictures)
        var body = ""
        if side != .back { body += CardHTML.front(model, images: images, width: width) + CardHTML.below(model, images: images, width: width) }
        if side != .front { body += CardHTML.back(model, width: width, issuer: issuer) }
        return (CardHTML.styleSheet(for: model, issuer: issuer), body, model.notes)
    }

    /// A scratch context for the measuring pass.
    private static func withScratch<T>(_ body: (OpaquePointer) -> T) -> T {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)!
        let cr = cairo_create(surface)!
        defer {
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
        }
        return body(cr)
    }

    static func measureWidth(_ model: CardModel, pictures: [String: PassPicture]) -> Double {
        withScratch { CardPainter(cr: $0, model: model, pictures: pictures, pixelsPerPoint: 1, drawing: false).width }
    }

    /// PNG and SVG: front, back or both stacked, on a transparent background.
    static func drawImage(_ model: CardModel, pictures: [String: PassPicture], request: RenderRequest, scale: Int,
                          notes: inout [String]) throws -> [UInt8] {
        let s = request.format == .png ? Double(scale) : 1
        let (width, frontHeight, backHeight): (Double, Double, Double) = withScratch { cr in
            let p = CardPainter(cr: cr, model: model, pictures: pictures, pixelsPerPoint: s, drawing: false)
            let f = request.side == .back ? 0 : p.front(x: 0, y: 0, height: nil).rounded(.up)
            let b = request.side == .front ? 0 : p.back(x: 0, y: 0, width: p.width, height: nil).rounded(.up)
            return (p.width, f, b)
        }
        let height = frontHeight + backHeight + (request.side == .both ? gap : 0)
        let sink = ByteSink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        let surface: OpaquePointer
        if request.format == .png {
            // Bounded: a card is at most a few thousand pixels each way (fields and texts are capped).
            guard width * s <= 8192, height * s <= 32_768 else {
                throw RenderProblem.output("the card would be \(Int(width * s)) × \(Int(height * s)) pixels, too large to draw")
            }
            surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width * s), Int32(height * s))
        } else {
            surface = cairo_svg_surface_create_for_stream(writeToSink, unmanaged.toOpaque(), width, height)
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw RenderProblem.output("cannot create the drawing surface: " + String(cString: cairo_status_to_string(cairo_surface_status(surface))))
        }
        let cr = cairo_create(surface)!
        cairo_scale(cr, s, s)
        let painter = CardPainter(cr: cr, model: model, pictures: pictures, pixelsPerPoint: s, drawing: true)
        if request.side != .back { _ = painter.front(x: 0, y: 0, height: frontHeight) }
        if request.side != .front {
            _ = painter.back(x: 0, y: request.side == .both ? frontHeight + gap : 0, width: painter.width, height: backHeight)
        }
        cairo_destroy(cr)
        if let note = painter.missingGlyphNote { notes.append(note) }
        if request.format == .png {
            cairo_surface_flush(surface)
            return try encodePNG(surface)
        } else {
            cairo_surface_finish(surface)
        }
        return sink.bytes
    }

    /// The drawn ARGB32 surface as PNG, by libpng with the UP row filter at zlib level 1
    /// (`passconduit_png_encode_argb32` in CCairo's shim): cairo's own writer tries every row
    /// filter at zlib's default level, a quarter of a whole `render` process (issue 11's
    /// benchmark). A card is mostly flat colour; the file comes out about a third larger.
    static func encodePNG(_ surface: OpaquePointer) throws -> [UInt8] {
        let width = cairo_image_surface_get_width(surface), height = cairo_image_surface_get_height(surface)
        guard width > 0, height > 0, let data = cairo_image_surface_get_data(surface) else {
            throw RenderProblem.output("cannot encode the PNG: the drawing is empty")
        }
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = passconduit_png_encode_argb32(data, width, height, cairo_image_surface_get_stride(surface), &out, &count)
        defer { free(out) }
        guard status == 0, let out else { throw RenderProblem.output("cannot encode the PNG (libpng failed; out of memory?)") }
        return Array(UnsafeBufferPointer(start: out, count: count))
    }

    /// PDF: the card at true size at the top of an A4 or Letter page, the back fields below it
    /// at reading size, continuing on further pages as needed.
    static func drawPDF(_ model: CardModel, pictures: [String: PassPicture], request: RenderRequest, title: String,
                        notes: inout [String]) throws -> [UInt8] {
        let page = request.paper.points
        let k = printScale
        let frontHeight: Double = withScratch { cr in
            CardPainter(cr: cr, model: model, pictures: pictures, pixelsPerPoint: printDotsPerCardPoint, drawing: false)
                .front(x: 0, y: 0, height: nil)
        }
        let sink = ByteSink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        let surface = cairo_pdf_surface_create_for_stream(writeToSink, unmanaged.toOpaque(), page.width, page.height)!
        defer { cairo_surface_destroy(surface) }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, FieldCell.cut(title, to: 200))
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "passconduit")
        let cr = cairo_create(surface)!
        let painter = CardPainter(cr: cr, model: model, pictures: pictures, pixelsPerPoint: printDotsPerCardPoint, drawing: true)
        var y = pdfMargin
        if request.side != .back {
            cairo_save(cr)
            // Centred, on the dot grid (pdfMargin is 200 dots).
            let left = (((page.width - painter.width * k) / 2) / printDot).rounded() * printDot
            cairo_translate(cr, left, y)
            cairo_scale(cr, k, k)
            _ = painter.front(x: 0, y: 0, height: frontHeight)
            cairo_restore(cr)
            y += frontHeight * k + 24
        }
        if request.side != .front {
            let width = page.width - 2 * pdfMargin
            _ = painter.back(x: pdfMargin, y: y, width: width, height: nil, pageBottom: page.height - pdfMargin, below: true) {
                cairo_show_page(cr)
                return pdfMargin
            }
        }
        cairo_show_page(cr)
        cairo_destroy(cr)
        if let note = painter.missingGlyphNote { notes.append(note) }
        cairo_surface_finish(surface)
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            throw RenderProblem.output("cannot write the PDF: " + String(cString: cairo_status_to_string(cairo_surface_status(surface))))
        }
        return sink.bytes
    }
}

/// Collects what cairo writes.
final class ByteSink {
    var bytes: [UInt8] = []
}

private let writeToSink: cairo_write_func_t = { closure, data, length in
    guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
    let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
    if let data, length > 0 { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length))) }
    return CAIRO_STATUS_SUCCESS
}
