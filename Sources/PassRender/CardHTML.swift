import Foundation
import WalletPass

/// The card as one self-contained HTML page: images inlined as `data:` PNGs, the barcode as inline
/// SVG, no script, a Content-Security-Policy that forbids every fetch, all pass text escaped, and
/// links only where they are http, https, tel or mailto. Laid out from the same `CardModel` as
/// the cairo outputs, with CSS standing in for pango.
enum CardHTML {
    static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static func page(_ m: CardModel, side: RenderSide, images: [String: PassImage], width: Double, language: String?) -> String {
        let e = HTMLText.escape
        var h = """
        <!DOCTYPE html>
        <html lang="\(e(language ?? "en"))">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <meta name="referrer" content="no-referrer">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(e(m.organization))\(m.passDescription.isEmpty ? "" : " · " + e(m.passDescription))</title>
        <style>\(styleSheet(for: m))</style>
        </head>
        <body>
        <main>

        """
        if side != .back { h += front(m, images: images, width: width) + below(m, images: images, width: width) }
        if side != .front { h += back(m, width: width) }
        h += "</main>\n</body>\n</html>\n"
        return h
    }

    /// A value keeps to one line and ends in "…" when it does not fit, as Wallet's do (issue 26
    /// item 9: "01/01/20⏎20" was broken mid-token). Every line of the front has a whole-pixel
    /// height, so the barcode below the text starts on a whole CSS pixel and its modules fall on
    /// whole device pixels whatever the text above holds: at a fractional offset Chromium drew
    /// Aztec modules of uneven heights that zxing could no longer read.
    ///
    /// The card's style sheet, the back's issuer heading selected as `issuer` writes it.
    static func css(issuer: CardIssuerHeading) -> String {
        """

    :root { color-scheme: light dark; }
    body { margin: 0; padding: 24px 12px; background: #eceff1; color: #111;
      font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
    main { display: flex; flex-direction: column; align-items: center; gap: 24px; }
    .card { position: relative; overflow: hidden; border-radius: 10px; box-sizing: border-box; padding: 12px;
      background: var(--bg); color: var(--fg); box-shadow: 0 1px 4px rgba(0,0,0,.25); }
    .card.eventTicket { -webkit-mask: radial-gradient(circle 16px at 50% 0, transparent 15.5px, #000 16px);
      mask: radial-gradient(circle 16px at 50% 0, transparent 15.5px, #000 16px); }
    .card.coupon { border-top-left-radius: 0; border-top-right-radius: 0;
      -webkit-mask: radial-gradient(circle 4px at 6px 0, transparent 3.5px, #000 4px) 0 0 / 12px 100% repeat-x;
      mask: radial-gradient(circle 4px at 6px 0, transparent 3.5px, #000 4px) 0 0 / 12px 100% repeat-x; }
    .bgimg { position: absolute; inset: -20px; background-size: cover; background-position: center;
      filter: blur(12px); z-index: 0; }
    .card > *:not(.bgimg) { position: relative; z-index: 1; }
    header { display: flex; align-items: center; gap: 8px; min-height: 40px; margin-bottom: 8px; }
    header .logo { max-width: 120px; max-height: 40px; }
    header .logotext { font-weight: bold; font-size: 15px; line-height: 19px; flex: 1; overflow: hidden; white-space: nowrap;
      text-overflow: ellipsis; }
    header .hf { display: flex; gap: 8px; margin-left: auto; }
    .f { display: flex; flex-direction: column; min-width: 0; }
    .l { color: var(--label); font-size: 9px; line-height: 11px; font-weight: bold; letter-spacing: .02em; overflow-wrap: anywhere; }
    .v { font-size: 14px; line-height: 18px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    header .f { text-align: right; max-width: 150px; }
    header .v { font-size: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .mark { margin: 0 -12px 6px; padding: 4px 12px; font-size: 10px; line-height: 14px; font-weight: bold; text-align: center;
      color: #fff; }
    .mark.notVerified { background: #c72929; } .mark.voided { background: #424242; } .mark.expired { background: #d95900; }
    .strip { margin: 0 -12px 8px; background-size: cover; background-position: center; display: flex;
      align-items: flex-end; padding: 12px; color: var(--strip); }
    .strip .v { font-size: 36px; line-height: 44px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .strip .l { color: var(--strip); font-size: 11px; line-height: 14px; }
    .primary { margin-bottom: 8px; }
    .primary .v { font-size: 28px; line-height: 34px; }
    .boarding { display: flex; align-items: flex-end; margin-bottom: 8px; }
    .boarding .f { flex: 1; }
    .boarding .v { font-size: 30px; line-height: 36px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .boarding .glyph { width: 36px; text-align: center; font-size: 22px; color: var(--label); padding-bottom: 4px; }
    .boarding .glyph svg { display: block; margin: 0 auto; }
    .with-thumb { display: flex; gap: 8px; } .with-thumb > div { flex: 1; min-width: 0; }
    .thumb { max-width: 90px; max-height: 90px; align-self: flex-start; }
    .row { display: flex; gap: 8px; margin-bottom: 8px; }
    .row .f { flex: 1; }
    .footer { display: block; margin: 0 auto 8px; max-width: 286px; max-height: 15px; }
    figure { margin: 0 auto; background: #fff; color: #000; border-radius: 6px; padding: 8px; width: fit-content;
      text-align: center; }
    figure svg { display: block; image-rendering: pixelated; shape-rendering: crispEdges; }
    figcaption { font-size: 11px; margin-top: 4px; overflow-wrap: anywhere; }
    .nocode { font-family: "DejaVu Sans Mono", monospace; font-size: 11px; overflow-wrap: anywhere; }
    .nocode small { display: block; color: #9b1a1a; font-family: "DejaVu Sans", sans-serif; margin-top: 4px; }
    .back { background: #fafafa; color: #1a1a1a; border-radius: 10px; padding: 12px; box-sizing: border-box;
      box-shadow: 0 1px 4px rgba(0,0,0,.25); }
    \(issuer.selector) { font-size: 15px; margin: 0 0 2px; } .back p.d { font-size: 11px; color: #666; margin: 0 0 10px; }
    .back dt { font-size: 9px; font-weight: bold; color: #666; margin-top: 10px; }
    .back dd { margin: 2px 0 0; font-size: 11px; overflow-wrap: anywhere; }
    .back a { color: #0a58ca; }
    @media (prefers-color-scheme: dark) {
      body { background: #121212; color: #eee; }
      .back { background: #1e1e1e; color: #eee; } .back dt, .back p.d { color: #aaa; } .back a { color: #8ab4f8; }
    }
    @media print { body { background: #fff; } .card, .back { box-shadow: none; print-color-adjust: exact;
      -webkit-print-color-adjust: exact; } }

    """
    }

    /// The style sheet for `m`: the new layouts' rules only on their cards, so a classic card's page
    /// stays byte for byte what it was.
    static func styleSheet(for m: CardModel, issuer: CardIssuerHeading = .pageTitle) -> String {
        var sheet: String = css(issuer: issuer)
        if m.poster != nil {
            sheet += posterCSS + newLayoutMarkCSS
        } else if m.boarding != nil {
            sheet += boardingCSS + newLayoutMarkCSS
        } else if m.posterGeneric != nil {
            sheet += posterGenericCSS + newLayoutMarkCSS
        }
        guard !m.below.isEmpty else { return sheet }
        return sheet + belowCSS + (m.below.venueMap == nil ? "" : venueMapCSS)
    }

    /// The venue map: the section's width, its own proportions.
    static let venueMapCSS = """
    .below .vmap { display: block; width: 100%; height: auto; border-radius: 8px; }

    """

    /// The new layouts' "expired" band: white on #b04800 (5.6:1, WCAG AA for its 10 px bold text;
    /// axe-core found the classic #d95900 at 4.2:1). Classic cards keep theirs byte for byte.
    static let newLayoutMarkCSS = """
    .mark.expired { background: #b04800; }

    """

    /// The section under the card: Wallet's groups as small headed lists.
    static let belowCSS = """
    .below { background: #fafafa; color: #1a1a1a; border-radius: 10px; padding: 4px 12px 12px; box-sizing: border-box;
      box-shadow: 0 1px 4px rgba(0,0,0,.25); font-size: 11px; }
    .below .bt { font-size: 9px; font-weight: bold; color: #666; margin: 10px 0 4px; text-transform: uppercase; }
    .below ul { list-style: none; margin: 0; padding: 0; } .below li { margin: 0 0 4px; overflow-wrap: anywhere; }
    .below .acts { display: flex; gap: 8px; } .below .acts li { flex: 1; }
    .below .acts a { display: block; padding: 8px; border-radius: 8px; background: #e8eefc; text-decoration: none; font-weight: bold; }
    .below a { color: #0a58ca; } .below .lt { font-weight: bold; } .below .bd { color: #555; }
    .below dl { margin: 0; } .below dt { font-size: 9px; font-weight: bold; color: #666; margin-top: 6px; }
    .below dd { margin: 2px 0 0; overflow-wrap: anywhere; } .below .left { color: #666; font-size: 10px; margin: 8px 0 0; }
    @media (prefers-color-scheme: dark) {
      .below { background: #1e1e1e; color: #eee; } .below .bt, .below dt, .below .left, .below .bd { color: #aaa; }
      .below a { color: #8ab4f8; } .below .acts a { background: #2a3550; }
    }

    """

    /// What Wallet shows under the pass, after the card; nothing when the pass has none of it.
    /// Every text escaped; links only `https:` (and `tel:` for a call action), never fetched.
    static func below(_ m: CardModel, images: [String: PassImage], width: Double) -> String {
        let b = m.below
        guard !b.isEmpty else { return "" }
        let e = HTMLText.escape
        func anchor(_ link: BelowCard.Link) -> String {
            guard let href = link.href else {
                return "<span class=\"lt\">" + e(link.title) + "</span> <span dir=\"auto\">" + e(link.value) + "</span>"
            }
            return "<a href=\"" + e(href) + "\" rel=\"noreferrer noopener\" title=\"" + e(link.value) + "\">" + e(link.title) + "</a>"
        }
        var h = "<section class=\"below\" aria-label=\"below the pass\" style=\"width:\(Int(width))px\">\n"
        if !b.actions.isEmpty {
            h += "<p class=\"bt\">Featured Actions</p><ul class=\"acts\">"
            for action in b.actions { h += "<li>" + anchor(action) + "</li>" }
            h += "</ul>\n"
        }
        if !b.upcoming.isEmpty {
            h += "<p class=\"bt\">Upcoming Events</p><ul class=\"upcoming\">"
            for u in b.upcoming {
                let venue: String = u.venue.map { " · <span dir=\"auto\">" + e($0) + "</span>" } ?? ""
                h += "<li><span class=\"lt\" dir=\"auto\">" + e(u.name) + "</span> <span class=\"bd\">" + e(u.date) + venue + "</span></li>"
            }
            h += "</ul>\n"
        }
        if b.venueMap != nil, let map = images["venueMap"] {
            h += "<p class=\"bt\">\(BelowCard.venueMapTitle)</p><img class=\"vmap\" alt=\"Venue map\" width=\"\(map.width)\" "
                + "height=\"\(map.height)\" src=\"\(dataURL(map))\">\n"
        }
        for group in b.linkGroups {
            h += "<p class=\"bt\">" + e(group.title) + "</p><ul>"
            for link in group.links { h += "<li>" + anchor(link) + "</li>" }
            h += "</ul>\n"
        }
        if !b.additionalInfo.isEmpty {
            h += "<p class=\"bt\">Additional Info</p><dl>"
            for f in b.additionalInfo {
                let value: String = e(f.value).replacingOccurrences(of: "\n", with: "<br>")
                h += "<dt dir=\"auto\">" + e(f.label) + "</dt><dd dir=\"auto\">" + value + "</dd>"
            }
            h += "</dl>\n"
        }
        for sentence in b.leftOut { h += "<p class=\"left\">\(e(sentence))</p>\n" }
        h += "</section>\n"
        return h
    }

    /// The poster event ticket: the artwork area 320 × 400 (Apple's 358 × 448 artwork), the
    /// title and date on a darkening gradient, the footer ("chin") over its bottom edge.
    static let posterCSS = """
    .card.poster { padding: 0; }
    .card.poster > .art { position: relative; height: \(Int(CardPainter.posterArtHeight))px; background-size: cover;
      background-position: center; display: flex; flex-direction: column; }
    .art .shade { position: absolute; left: 0; right: 0; top: 0; height: 120px;
      background: linear-gradient(rgba(0,0,0,.55), rgba(0,0,0,0)); }
    .art .ptop { position: relative; display: flex; gap: 8px; padding: 12px; color: var(--ptext); }
    .ptop .ptitle { flex: 1; min-width: 0; font-weight: bold; font-size: 20px; line-height: 24px; overflow-wrap: anywhere; }
    .ptop .pteams { display: block; font-size: 22px; line-height: 26px; }
    .ptop .pteams + .pname { font-size: 13px; line-height: 16px; }
    .ptop .pdate { width: 128px; text-align: right; font-size: 12px; line-height: 15px; }
    .ptop .pdate b { display: block; }
    .art .mark { margin: 0 0 6px; position: relative; }
    .art .pfoot { position: relative; margin-top: auto; padding: 12px; color: var(--pfoot); overflow: hidden; }
    .pfoot .chin { position: absolute; inset: -20px; background-size: cover; background-position: center bottom;
      filter: blur(12px) brightness(.65); z-index: 0; }
    .pfoot > *:not(.chin) { position: relative; z-index: 1; }
    .pfoot .section { position: absolute; left: 0; right: 0; top: 0; height: 4px; }
    .pfoot .row { margin: 0; } .pfoot .l { color: var(--pfoot); } .pfoot .v { font-size: 18px; line-height: 22px; font-weight: bold; }
    .pfoot .slogo { display: block; max-width: 135px; max-height: 12px; margin-top: 6px; }
    .card.poster > figure { margin: 12px auto; }

    """

    static func posterFront(_ m: CardModel, _ p: PosterFace, images: [String: PassImage], width: Double) -> String {
        let e = HTMLText.escape
        let c = m.colors
        var h = "<section class=\"card poster\" aria-label=\"front of the pass\" data-scheme=\"\(m.scheme.scheme.rawValue)\" "
            + "style=\"width:\(Int(width))px;--bg:\(c.background.css);--fg:\(c.foreground.css);--label:\(c.label.css);"
            + "--ptext:\(p.headerText.css);--pfoot:\(p.footerText.css)\">\n"
        let art = images["artwork"]
        h += "<div class=\"art\"" + (art.map { " style=\"background-image:url(\(dataURL($0)))\"" } ?? "") + ">"
        if p.darkensHeader { h += "<div class=\"shade\"></div>" }
        h += "<header class=\"ptop\"><span class=\"ptitle\" dir=\"auto\">"
        if let teams = p.teams { h += "<span class=\"pteams\">\(e(teams))</span><span class=\"pname\">\(e(p.title))</span>" } else { h += e(p.title) }
        h += "</span>"
        if p.date != nil || p.time != nil {
            h += "<span class=\"pdate\">" + (p.date.map { "<b>\(e($0))</b>" } ?? "") + (p.time.map { e($0) } ?? "") + "</span>"
        }
        h += "</header>\n"
        for mark in m.marks { h += "<div class=\"mark \(mark.kind.rawValue)\" role=\"alert\">\(e(mark.text))</div>\n" }
        h += "<div class=\"pfoot\"" + (p.footerColor.map { " style=\"background:\($0.css)\"" } ?? "") + ">"
        if p.footerColor == nil, let art { h += "<div class=\"chin\" style=\"background-image:url(\(dataURL(art)))\"></div>" }
        if let section = p.sectionColor { h += "<div class=\"section\" style=\"background:\(section.css)\"></div>" }
        if !p.footerCells.isEmpty {
            h += "<div class=\"row\">" + p.footerCells.enumerated().map { i, cell in
                Self.cell(cell, align: p.footerCells.count > 1 && i == p.footerCells.count - 1 ? .right : .left)
            }.joined() + "</div>"
        }
        if let logo = images["secondaryLogo"] { h += "<img class=\"slogo\" alt=\"\" src=\"\(dataURL(logo))\">" }
        h += "</div></div>\n"
        if let barcode = m.barcode { h += figure(barcode) }
        h += "</section>\n"
        return h
    }

    /// The semantic boarding pass: airports side by side, the boarding time large, badges as pills.
    static let boardingCSS = """
    .card.semantic .bday { margin-left: auto; color: var(--label); font-size: 12px; font-weight: bold; white-space: nowrap; }
    .airports { display: flex; align-items: flex-start; margin-bottom: 8px; }
    .airports .ap { flex: 1; min-width: 0; display: flex; flex-direction: column; }
    .airports .ap.r { text-align: right; }
    .airports .code { font-size: 34px; line-height: 40px; font-weight: bold; }
    .airports .city { font-size: 11px; line-height: 14px; margin-bottom: 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .airports .v { font-size: 16px; line-height: 20px; }
    .airports .glyph { width: 36px; padding-top: 9px; color: var(--label); } .airports .glyph svg { display: block; margin: 0 auto; }
    .semantic .boards .v { font-size: 28px; line-height: 34px; font-weight: bold; }
    .badges { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 0 0 8px; padding: 0; }
    .badges li { border: 1px solid var(--label); border-radius: 9px; padding: 1px 7px; font-size: 10px; line-height: 14px; font-weight: bold; }
    .offline { font-size: 8px; line-height: 10px; color: var(--label); margin: 0 0 8px; }

    """

    static func boardingFront(_ m: CardModel, _ b: BoardingFace, images: [String: PassImage], width: Double) -> String {
        let e = HTMLText.escape
        let c = m.colors
        var h = "<section class=\"card boardingPass semantic\" aria-label=\"front of the pass\" data-scheme=\"\(m.scheme.scheme.rawValue)\" "
            + "style=\"width:\(Int(width))px;--bg:\(c.background.css);--fg:\(c.foreground.css);--label:\(c.label.css)\">\n<header>"
        if let logo = images["logo"] { h += "<img class=\"logo\" alt=\"\" src=\"\(dataURL(logo))\">" }
        h += "<span class=\"logotext\" dir=\"auto\">\(e(b.flight))</span>"
        if let day = b.day { h += "<span class=\"bday\">\(e(day))</span>" }
        h += "</header>\n"
        for mark in m.marks { h += "<div class=\"mark \(mark.kind.rawValue)\" role=\"alert\">\(e(mark.text))</div>\n" }
        func airport(_ a: BoardingFace.Airport, _ side: String, right: Bool) -> String {
            "<div class=\"ap\(right ? " r" : "")\"><span class=\"code\">\(e(a.code))</span><span class=\"city\" dir=\"auto\">\(e(a.city))</span>"
                + (a.time.map { "<span class=\"l\">\(side)</span><span class=\"v\">\(e($0))</span>" } ?? "") + "</div>"
        }
        h += "<div class=\"airports\">" + airport(b.departure, "DEPARTS", right: false)
            + "<div class=\"glyph\" role=\"img\" aria-label=\"flight\">\(TransitIcon.air.svg(size: 22))</div>"
            + airport(b.destination, "ARRIVES", right: true) + "</div>\n"
        if let boarding = b.boardingTime {
            h += "<div class=\"primary boards\">" + cell(FieldCell(label: "BOARDING", value: boarding, alignment: .natural)) + "</div>\n"
        }
        if !b.cells.isEmpty { h += row(b.cells) }
        if let passenger = b.passenger {
            h += "<div class=\"row\">" + cell(FieldCell(label: "PASSENGER", value: passenger, alignment: .natural)) + "</div>\n"
        }
        if !b.badges.isEmpty { h += "<ul class=\"badges\">" + b.badges.map { "<li dir=\"auto\">\(e($0))</li>" }.joined() + "</ul>\n" }
        h += "<p class=\"offline\">\(e(BoardingFace.offlineNote))</p>\n"
        if let barcode = m.barcode { h += figure(barcode) }
        h += "</section>\n"
        return h
    }

    /// The poster generic pass: the image across the whole card, at least 320 × 468 (345 × 505),
    /// the logo and header field at the top, the rest pushed to the bottom, gradients behind both.
    static let posterGenericCSS = """
    .card.pgen { padding: 0; display: flex; flex-direction: column; min-height: \(Int(CardPainter.posterGenericHeight))px;
      background-color: var(--bg); background-size: cover; background-position: center; color: var(--ptext); }
    .pgen .shade { position: absolute; left: 0; right: 0; top: 0; height: 110px; z-index: 0;
      background: linear-gradient(rgba(0,0,0,.55), rgba(0,0,0,0)); }
    .pgen .shade.b { top: auto; bottom: 0; height: 60%; background: linear-gradient(rgba(0,0,0,0), rgba(0,0,0,.55)); }
    .pgen > *:not(.shade) { position: relative; z-index: 1; }
    .pgen header { padding: 12px 12px 0; min-height: 30px; margin-bottom: 10px; }
    .pgen header .plogo { max-width: 126px; max-height: 30px; }
    .pgen .l { color: var(--plabel); }
    .pgen .mark { margin: 0 0 6px; }
    .pgen .pbody { margin-top: auto; padding: 16px 12px 4px; }
    .pgen .ptitle { font-size: 24px; line-height: 29px; font-weight: bold; margin-bottom: 8px; overflow-wrap: anywhere; }
    .pgen .pbody .f { margin-bottom: 8px; }
    .pgen .pbody .pp .v { font-size: 20px; line-height: 24px; font-weight: bold; }
    .card.pgen > figure { margin: 4px auto 12px; }

    """

    static func posterGenericFront(_ m: CardModel, _ p: PosterGenericFace, images: [String: PassImage], width: Double) -> String {
        let e = HTMLText.escape
        let c = m.colors
        let art = images["artwork"]
        let image: String = art.map { ";background-image:url(" + dataURL($0) + ")" } ?? ""
        var h = "<section class=\"card pgen\" aria-label=\"front of the pass\" data-scheme=\"\(m.scheme.scheme.rawValue)\" "
        h += "style=\"width:\(Int(width))px;--bg:\(c.background.css);--fg:\(c.foreground.css);--label:\(c.label.css);"
        h += "--ptext:\(p.text.css);--plabel:\(p.label.css)" + image + "\">\n"
        if p.darkensHeader, art != nil { h += "<div class=\"shade\"></div><div class=\"shade b\"></div>\n" }
        h += "<header>"
        if let logo = images["primaryLogo"] {
            h += "<img class=\"plogo\" alt=\"\" src=\"\(dataURL(logo))\">"
        } else {
            h += "<span class=\"logotext\" dir=\"auto\">\(e(p.logoText))</span>"
        }
        if let header = p.header { h += "<div class=\"hf\">" + cell(header, align: .right) + "</div>" }
        h += "</header>\n"
        for mark in m.marks { h += "<div class=\"mark \(mark.kind.rawValue)\" role=\"alert\">\(e(mark.text))</div>\n" }
        h += "<div class=\"pbody\">"
        if let title = p.title { h += "<div class=\"ptitle\" dir=\"auto\">\(e(title))</div>" }
        for field in p.primary { h += "<div class=\"pp\">" + cell(field, align: .natural) + "</div>" }
        if let footer = p.footer { h += "<div class=\"pfooter\">" + cell(footer, align: .natural) + "</div>" }
        h += "</div>\n"
        if let barcode = m.barcode { h += figure(barcode) }
        h += "</section>\n"
        return h
    }

    static func dataURL(_ image: PassImage) -> String {
        "data:image/png;base64," + Data(image.bytes).base64EncodedString()
    }

    static func cell(_ c: FieldCell, align: CellAlignment? = nil) -> String {
        let a = align ?? c.alignment
        let style: String
        switch a {
        case .natural: style = ""
        case .left: style = " style=\"text-align:left\""
        case .center: style = " style=\"text-align:center\""
        case .right: style = " style=\"text-align:right\""
        }
        return "<div class=\"f\" dir=\"auto\"\(style)><span class=\"l\">\(HTMLText.escape(c.label))</span>"
            + "<span class=\"v\">\(HTMLText.escape(c.value))</span></div>"
    }

    static func front(_ m: CardModel, images: [String: PassImage], width: Double) -> String {
        if let poster = m.poster { return posterFront(m, poster, images: images, width: width) }
        if let boarding = m.boarding { return boardingFront(m, boarding, images: images, width: width) }
        if let face = m.posterGeneric { return posterGenericFront(m, face, images: images, width: width) }
        let e = HTMLText.escape
        let c = m.colors
        var h = "<section class=\"card \(m.kind.rawValue)\" aria-label=\"front of the pass\" style=\"width:\(Int(width))px;"
            + "--bg:\(c.background.css);--fg:\(c.foreground.css);--label:\(c.label.css);--strip:\(c.stripText.css)\">\n"
        if let bg = images["background"] {
            h += "<div class=\"bgimg\" style=\"background-image:url(\(dataURL(bg)))\"></div>\n"
        }
        h += "<header>"
        if let logo = images["logo"] { h += "<img class=\"logo\" alt=\"\" src=\"\(dataURL(logo))\">" }
        if let text = m.logoText ?? (images["logo"] == nil ? m.organization : nil) {
            h += "<span class=\"logotext\" dir=\"auto\">\(e(text))</span>"
        }
        if !m.headerFields.isEmpty {
            h += "<div class=\"hf\">" + m.headerFields.map { cell($0, align: $0.alignment == .natural ? .right : $0.alignment) }.joined() + "</div>"
        }
        h += "</header>\n"
        for mark in m.marks { h += "<div class=\"mark \(mark.kind.rawValue)\" role=\"alert\">\(e(mark.text))</div>\n" }
        let thumb = images["thumbnail"]
        var rows = m.rows
        if let strip = images["strip"] {
            let height = m.kind == .eventTicket ? 98 : (m.kind == .coupon || m.kind == .storeCard) ? 144 : 123
            h += "<div class=\"strip\" style=\"height:\(height - 24)px;background-image:url(\(dataURL(strip)))\">"
            if let p = m.primaryFields.first {
                h += "<div class=\"f\" dir=\"auto\"><span class=\"v\">\(e(p.value))</span><span class=\"l\">\(e(p.label))</span></div>"
            }
            h += "</div>\n"
        } else if m.kind == .boardingPass, !m.primaryFields.isEmpty {
            h += "<div class=\"boarding\">" + cell(m.primaryFields[0])
            if let icon = m.transitIcon {
                h += "<div class=\"glyph\" role=\"img\" aria-label=\"\(e(icon.name))\">\(icon.svg(size: 22))</div>"
            }
            if m.primaryFields.count > 1 { h += cell(m.primaryFields[1], align: .right) }
            h += "</div>\n"
        } else {
            var inner = ""
            if let p = m.primaryFields.first { inner += "<div class=\"primary\">" + cell(p, align: .natural) + "</div>" }
            if thumb != nil, !rows.isEmpty { inner += row(rows.removeFirst()) }
            if let thumb {
                h += "<div class=\"with-thumb\"><div>\(inner)</div><img class=\"thumb\" alt=\"\" src=\"\(dataURL(thumb))\"></div>\n"
            } else {
                h += inner
            }
        }
        for r in rows { h += row(r) }
        if let footer = images["footer"] { h += "<img class=\"footer\" alt=\"\" src=\"\(dataURL(footer))\">\n" }
        if let barcode = m.barcode { h += figure(barcode) }
        h += "</section>\n"
        return h
    }

    static func row(_ r: [FieldCell]) -> String {
        "<div class=\"row\">" + r.enumerated().map { i, c in
            cell(c, align: c.alignment == .natural && r.count > 1 && i == r.count - 1 ? .right : c.alignment)
        }.joined() + "</div>\n"
    }

    /// The barcode as an SVG of whole CSS pixels per module, with its quiet zone, on white.
    static func figure(_ b: CardBarcode) -> String {
        let e = HTMLText.escape
        var h = "<figure>"
        switch b.content {
        case .modules(let m):
            guard let g = CardPainter.barcodeGeometry(b, pixelsPerPoint: 1) else { return "" }
            let rowScale = g.moduleHeight / g.module
            var d = ""
            for run in m.runs {
                let y = Double(run.y) * rowScale + Double(m.quietY)
                d += "M\(run.x + m.quietX) \(fmt(y))h\(run.length)v\(fmt(rowScale))h-\(run.length)z"
            }
            h += "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"\(e(b.spokenLabel))\" data-format=\"\(e(b.format))\" "
                + "width=\"\(fmt(g.outerWidth))\" height=\"\(fmt(g.outerHeight))\" "
                + "viewBox=\"0 0 \(m.outerWidth) \(fmt(g.outerHeight / g.module))\" shape-rendering=\"crispEdges\">"
                + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(d)\"/></svg>"
        case .text(let message, let reason):
            h += "<div class=\"nocode\">\(e(FieldCell.cut(message, to: 600)))<small>\(e(reason))</small></div>"
        }
        if let alt = b.altText, !alt.isEmpty { h += "<figcaption dir=\"auto\">\(e(FieldCell.cut(alt, to: 200)))</figcaption>" }
        h += "</figure>\n"
        return h
    }

    static func fmt(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%.4f", v)
    }

    static func back(_ m: CardModel, width: Double, issuer: CardIssuerHeading = .pageTitle) -> String {
        let e = HTMLText.escape
        var h = "<section class=\"back\" aria-label=\"back of the pass\" style=\"width:\(Int(width))px\">\n"
        h += "\(issuer.open)\(e(m.organization))\(issuer.close)"
        if !m.passDescription.isEmpty, m.passDescription != m.organization {
            h += "<p class=\"d\" dir=\"auto\">\(e(m.passDescription))</p>"
        }
        h += "\n<dl>\n"
        for f in m.backFields {
            let value = f.attributed.map(HTMLText.attributed) ?? HTMLText.linkified(f.value)
            h += "<dt dir=\"auto\">\(e(f.label))</dt><dd dir=\"auto\">\(value)</dd>\n"
        }
        if m.omittedBackFields > 0 { h += "<dt></dt><dd>\(m.omittedBackFields) more back fields are not shown.</dd>\n" }
        h += "</dl>\n</section>\n"
        return h
    }
}

/// How the back of an HTML card heads the issuer's name: the page's title (`<h1>`, a card page of
/// its own), or one level below a page that has its own title (`<h2 class="issuer">`, the web
/// wallet's pass page).
package enum CardIssuerHeading: Sendable, Equatable {
    case pageTitle
    case section

    var open: String { self == .pageTitle ? "<h1 dir=\"auto\">" : "<h2 class=\"issuer\" dir=\"auto\">" }
    var close: String { self == .pageTitle ? "</h1>" : "</h2>" }
    var selector: String { self == .pageTitle ? ".back h1" : ".back h2.issuer" }
}
