import Foundation
import XCTest

/// Issue 40 item 2, the poster event ticket and the semantic boarding pass: what the card shows,
/// read back from the outputs — pdftotext of the PDF, the HTML's text, and pixels of the PNG (the
/// footer's colour, the seat section strip) — for each sample of Samples/layout-passes (made by
/// make-layout-passes.sh) and each fallback, which must draw the classic style instead.
final class NewLayoutCardTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws { sandbox = try Sandbox() }
    override func tearDown() { sandbox = nil }

    static func sample(_ name: String) -> String { Run.sample("layout-passes/" + name) }

    /// Renders `name` in `format` (front and back for PDF and HTML) and returns the file.
    func render(_ name: String, _ format: String, side: String? = nil) throws -> String {
        let out = sandbox.dir.appendingPathComponent("\(name).\(side ?? "default").\(format)").path
        let run = try sandbox.run("render", ["--format", format, "-o", out] + (side.map { ["--side", $0] } ?? []) + [Self.sample(name)])
        XCTAssertEqual(run.status, 0, "\(name) \(format): \(run.stderr)")
        return out
    }

    func pdfText(_ name: String) throws -> String {
        let text = try HandOn.run("/usr/bin/pdftotext", ["-layout", try render(name, "pdf", side: "front"), "-"])
        XCTAssertEqual(text.status, 0, text.stderr)
        return text.stdout
    }

    func html(_ name: String) throws -> String {
        try String(contentsOfFile: try render(name, "html", side: "front"), encoding: .utf8)
    }

    /// The visible text of an HTML card: tags out, entities of the escaper back.
    func htmlText(_ page: String) -> String {
        var text = page.replacingOccurrences(of: "<style>[^<]*</style>", with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        for (entity, ch) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'")] {
            text = text.replacingOccurrences(of: entity, with: ch)
        }
        return text.replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
    }

    /// Rows of the PNG (scale 2) where more than a quarter of the pixels are within 6 of `rgb`,
    /// and the PNG's height in card points.
    func rows(near rgb: (Int, Int, Int), in name: String) throws -> (rows: [Int], height: Int) {
        let png = try render(name, "png")
        let r = try RenderKit.python(["-c", """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1]).convert("RGB")
            w, h = im.size
            want = tuple(int(v) for v in sys.argv[2:5])
            near = lambda p: all(abs(p[i] - want[i]) <= 6 for i in range(3))
            rows = [y // 2 for y in range(0, h, 2) if sum(1 for x in range(0, w, 2) if near(im.getpixel((x, y)))) > w // 8]
            print(h // 2, " ".join(str(y) for y in sorted(set(rows))))
            """, png, String(rgb.0), String(rgb.1), String(rgb.2)])
        XCTAssertEqual(r.status, 0, r.stderr)
        let parts = r.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        return (Array(parts.dropFirst()), parts.first ?? 0)
    }

    func testPosterEventTicketShowsLogoTextDateSeatsAndSectionColour() throws {
        let text = try pdfText("poster-event.pkpass")
        for shown in ["SPRING GALA", "Fri 1 May 2026", "19:30", "SECTION", "Stalls", "ROW", "SEATS", "12, 13", "GALA-1"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the poster:\n\(text)")
        }
        for classic in ["VENUE", "Royal Festival Hall", "EVENT"] {
            XCTAssertFalse(text.contains(classic), "the classic rows are not drawn on a poster (\(classic)):\n\(text)")
        }
        let page = try html("poster-event.pkpass")
        XCTAssertTrue(page.contains("data-scheme=\"posterEventTicket\""), page)
        XCTAssertTrue(page.contains("class=\"art\" style=\"background-image:url(data:image/png;base64,"), "artwork inlined")
        XCTAssertTrue(page.contains("<div class=\"shade\">"), "the header is darkened by default")
        XCTAssertTrue(page.contains("class=\"slogo\""), "secondary logo")
        let words = htmlText(page)
        for shown in ["SPRING GALA", "Fri 1 May 2026", "19:30", "SECTION Stalls", "ROW H", "SEATS 12, 13"] {
            XCTAssertTrue(words.contains(shown), "\(shown) not in the HTML card: \(words)")
        }
        XCTAssertFalse(words.contains("Royal Festival Hall"), words)
        // The seat section colour #FFD700 is the strip along the footer's top edge, 4 pt high,
        // within the artwork's 400 pt.
        let gold = try rows(near: (255, 215, 0), in: "poster-event.pkpass")
        XCTAssertFalse(gold.rows.isEmpty, "no gold strip")
        XCTAssertTrue(gold.rows.allSatisfy { (300..<400).contains($0) }, "\(gold)")
        XCTAssertLessThanOrEqual(gold.rows.count, 5, "\(gold)")
    }

    func testSportsPosterShowsTheTeamsFourSeatElementsAndTheFooterColour() throws {
        let text = try pdfText("poster-sports.pkpass")
        for shown in ["NBR vs HBC", "Coastal League", "Sat 15 Aug 2026", "15:00", "SECTION", "112", "ROW", "K", "SEAT", "7", "LEVEL", "Upper"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the poster:\n\(text)")
        }
        XCTAssertFalse(text.contains("AISLE"), "four seat elements at most:\n\(text)")
        let page = try html("poster-sports.pkpass")
        XCTAssertFalse(page.contains("<div class=\"shade\">"), "suppressHeaderDarkening")
        XCTAssertTrue(page.contains("class=\"pfoot\" style=\"background:#c8102e\""), "footerBackgroundColor")
        let red = try rows(near: (200, 16, 46), in: "poster-sports.pkpass")
        XCTAssertGreaterThan(red.rows.count, 40, "the footer is rgb(200, 16, 46): \(red)")
        XCTAssertTrue(red.rows.allSatisfy { (300..<400).contains($0) }, "\(red)")
    }

    func testLivePosterShowsTheAdmissionLevelAndTheDateSpan() throws {
        let text = try pdfText("poster-live.pkpass")
        for shown in ["South Bay Jazz", "10 – 12 Jul 2026", "17:00", "ADMISSION", "VIP Access"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the poster:\n\(text)")
        }
        let words = htmlText(try html("poster-live.pkpass"))
        XCTAssertTrue(words.contains("ADMISSION VIP Access"), words)
        XCTAssertTrue(words.contains("10 – 12 Jul 2026"), words)
    }

    /// Each fallback draws the classic event ticket: its field rows, no poster footer, and the
    /// footer colour and section strip a poster would use are nowhere.
    func testEveryFallbackDrawsTheClassicEventTicket() throws {
        let fallbacks = ["fallback-no-venue.pkpass", "fallback-semantics-string.pkpass", "fallback-no-artwork.pkpass",
                         "fallback-sports-no-team.pkpass"]
        for name in fallbacks {
            let text = try pdfText(name)
            XCTAssertTrue(text.contains("VENUE") && text.contains("Royal Festival Hall"), "\(name): classic rows missing:\n\(text)")
            XCTAssertFalse(text.contains("SECTION"), "\(name): poster footer drawn:\n\(text)")
            let page = try html(name)
            XCTAssertFalse(page.contains("card poster"), name)
            XCTAssertTrue(page.contains("class=\"card eventTicket\""), name)
        }
        XCTAssertTrue(try rows(near: (255, 215, 0), in: "fallback-no-venue.pkpass").rows.isEmpty, "no section strip on a classic card")
        XCTAssertTrue(try rows(near: (200, 16, 46), in: "fallback-sports-no-team.pkpass").rows.isEmpty, "footerBackgroundColor is poster-only")
    }

    func testSemanticBoardingPassShowsFlightAirportsLocalTimesSeatAndBadges() throws {
        let text = try pdfText("semantic-boarding.pkpass")
        for shown in ["UA 987", "Wed 9 Dec 2026", "ORD", "CDG", "Chicago", "Paris", "DEPARTS", "17:00", "ARRIVES", "08:01",
                      "BOARDING", "16:10", "GATE", "C10", "TERMINAL", "SEAT", "52C", "ZONE", "GROUP", "PASSENGER", "Lani Martinez",
                      "Economy", "Premier Silver", "TSA PreCheck", "Travel Ready", "WCHR", "Times as the airline issued them"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the semantic boarding pass:\n\(text)")
        }
        for classic in ["PASSENGER NAME", "BOARDING TIME", "SEAT NUMBER"] {
            XCTAssertFalse(text.contains(classic), "the classic fields are not drawn (\(classic)):\n\(text)")
        }
        let page = try html("semantic-boarding.pkpass")
        XCTAssertTrue(page.contains("data-scheme=\"semanticBoardingPass\""), page)
        let words = htmlText(page)
        for shown in ["UA 987", "ORD Chicago DEPARTS 17:00", "CDG Paris ARRIVES 08:01", "BOARDING 16:10", "GATE C10", "SEAT 52C",
                      "PASSENGER Lani Martinez", "TSA PreCheck"] {
            XCTAssertTrue(words.contains(shown), "\(shown) not in the HTML card: \(words)")
        }
    }

    func testEveryBoardingFallbackDrawsTheClassicBoardingPass() throws {
        for name in ["fallback-boarding-no-city.pkpass", "fallback-boarding-train.pkpass"] {
            let text = try pdfText(name)
            XCTAssertTrue(text.contains("PASSENGER NAME") && text.contains("BOARDING TIME"), "\(name): classic fields missing:\n\(text)")
            XCTAssertFalse(text.contains("Times as the airline issued them"), "\(name):\n\(text)")
            XCTAssertFalse(try html(name).contains("data-scheme"), name)
        }
    }

    /// Rows of a PNG (scale 2) in card points: the image's height, and the mean colour of the
    /// row band [y0, y1) across the card's middle half.
    func meanColour(_ name: String, rows y0: Int, _ y1: Int) throws -> (height: Int, rgb: [Int]) {
        let png = try render(name, "png")
        let r = try RenderKit.python(["-c", """
            import sys
            from PIL import Image
            im = Image.open(sys.argv[1]).convert("RGB")
            w, h = im.size
            y0, y1 = int(sys.argv[2]) * 2, int(sys.argv[3]) * 2
            px = [im.getpixel((x, y)) for y in range(y0, y1) for x in range(w // 4, 3 * w // 4, 3)]
            print(h // 2, *[sum(p[i] for p in px) // len(px) for i in range(3)])
            """, png, String(y0), String(y1)])
        XCTAssertEqual(r.status, 0, r.stderr)
        let parts = r.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        return (parts.first ?? 0, Array(parts.dropFirst()))
    }

    /// Issue 40: the poster generic pass (iOS 27) is drawn as Wallet 27 draws it, from its own
    /// style dictionary, also beside a classic `generic` dict: the background image full-bleed,
    /// the primary logo instead of the logo text, the header field (label localized from the
    /// UTF-16 pass.strings), the first primary field without a label as the title, the other
    /// primary field, the first footer field only, the barcode; none of the classic fields.
    func testPosterGenericPassIsDrawnFromItsOwnStyle() throws {
        let text = try pdfText("poster-generic.pkpass")
        for shown in ["MEMBER SINCE", "2019", "Family Membership", "MEMBER", "Alex Sample", "VALID UNTIL", "31 Dec 2027", "MUSEUM-1"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the poster generic pass:\n\(text)")
        }
        for hidden in ["member_since", "GUESTS", "2 per visit", "LEVEL", "City Museum"] {
            XCTAssertFalse(text.contains(hidden), "\(hidden) is not on the face (second footer field, classic dict, logo text):\n\(text)")
        }
        let page = try html("poster-generic.pkpass")
        XCTAssertTrue(page.contains("class=\"card pgen\"") && page.contains("data-scheme=\"posterGeneric\""), page)
        XCTAssertTrue(page.contains(";background-image:url(data:image/png;base64,"), "the background image is inlined")
        XCTAssertTrue(page.contains("<img class=\"plogo\""), "the primary logo")
        XCTAssertTrue(page.contains("<div class=\"shade\"></div>"), "the header is darkened by default")
        let words = htmlText(page)
        for shown in ["MEMBER SINCE 2019", "Family Membership", "MEMBER Alex Sample", "VALID UNTIL 31 Dec 2027"] {
            XCTAssertTrue(words.contains(shown), "\(shown) not in the HTML card: \(words)")
        }
        XCTAssertFalse(words.contains("2 per visit"), words)
        for format in ["svg"] {
            let svg = try String(contentsOfFile: try render("poster-generic.pkpass", format), encoding: .utf8)
            XCTAssertTrue(svg.contains("<image"), "the SVG draws the background image")
        }
        // The PNG: at least Apple's 345 × 505 proportion (468 pt on a 320 pt card), the image's
        // sun disc (240, 200, 120) visible in the middle, and the top darkened by the gradient.
        let middle = try meanColour("poster-generic.pkpass", rows: 150, 200)
        XCTAssertGreaterThanOrEqual(middle.height, 468, "\(middle)")
        XCTAssertGreaterThan(middle.rgb[0], 120, "the background image fills the card: \(middle)")
        let top = try meanColour("poster-generic.pkpass", rows: 0, 8)
        XCTAssertLessThan(top.rgb.reduce(0, +), 3 * 40, "the image's dark top under the gradient: \(top)")
    }

    /// posterGeneric alone, without an image: the card's own colour, the texts in its foreground
    /// colour, no gradient (suppressHeaderDarkening); the footer field; valid (it was refused).
    func testPosterGenericOnlyPassWithoutImage() throws {
        let text = try pdfText("poster-generic-only.pkpass")
        for shown in ["City Museum", "MEMBER SINCE", "2021", "MEMBER", "Sam Example", "LEVEL", "Student", "VALID UNTIL", "30 Sep 2027"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the card:\n\(text)")
        }
        XCTAssertFalse(text.contains("NOT VERIFIED"), text)
        let page = try html("poster-generic-only.pkpass")
        XCTAssertTrue(page.contains("class=\"card pgen\""), page)
        XCTAssertFalse(page.contains("class=\"shade"), "no image, no gradient")
        XCTAssertFalse(page.contains("background-image"), page)
        // The card is the background colour rgb(40, 30, 70) all the way down.
        let band = try meanColour("poster-generic-only.pkpass", rows: 60, 120)
        XCTAssertEqual(band.rgb, [40, 30, 70], "\(band)")
    }

    /// `show --verbose` agrees with the picture, and lists what is under the pass.
    func testShowNamesThePosterGenericLayoutAndListsWhatIsBelowThePass() throws {
        let add = try sandbox.run("add", ["--yes", Self.sample("poster-generic.pkpass"), Self.sample("hostile-below.pkpass")])
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        let show = try sandbox.run("show", ["--verbose", "pass.org.passconduit.generic/MUSEUM-1"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("\n  Drawn as    poster generic pass\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("\nBelow the pass\n  Featured Actions\n    View Schedule\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("https://museum.example/visit\n    Shop        https://museum.example/shop\n"), show.stdout)
        XCTAssertTrue(show.stdout.contains("1 more featured action is not shown (Wallet shows two)."), show.stdout)

        let hostile = try sandbox.run("show", ["pass.org.passconduit.generic/MUSEUM-666"])
        XCTAssertEqual(hostile.status, 0, hostile.stderr)
        XCTAssertTrue(hostile.stdout.contains("    Book a Stay https://safe.example/stay?a=1&b=<2>\n"), hostile.stdout)
        XCTAssertTrue(hostile.stdout.contains("    Call        tel:+1-555-0100\n"), hostile.stdout)
        XCTAssertTrue(hostile.stdout.contains("  Upcoming Events\n    <script>alert(5)</script> Night\n"), hostile.stdout)
        XCTAssertTrue(hostile.stdout.contains("Fri 15 Jan 2027, 19:00 · Hall <b>B</b>"), hostile.stdout)
        XCTAssertTrue(hostile.stdout.contains("    Matinee     TBD\n"), hostile.stdout)
        // The additional info value shows its markup as text; the left-out links appear nowhere.
        for unsafe in ["javascript:alert(3)", "javascript:alert(4)", "javascript:alert(6)", "http://insecure", "third.example"] {
            XCTAssertFalse(hostile.stdout.contains(unsafe), "\(unsafe) shown: \(hostile.stdout)")
        }
        XCTAssertTrue(hostile.stdout.contains("2 featured actions are left out"), hostile.stdout)
        XCTAssertTrue(hostile.stdout.contains("2 links are left out: not https."), hostile.stdout)
    }

    /// Below the card in HTML and on the PDF's back: featured actions (two, https), Additional
    /// Info (from the poster generic dict, localized), and nothing of the pass ever as markup.
    func testBelowTheCardInHTMLAndPDF() throws {
        let page = try String(contentsOfFile: try render("poster-generic.pkpass", "html", side: "both"), encoding: .utf8)
        XCTAssertTrue(page.contains("<section class=\"below\" aria-label=\"below the pass\""), page)
        XCTAssertTrue(page.contains("<a href=\"https://museum.example/visit\" rel=\"noreferrer noopener\""), page)
        XCTAssertTrue(page.contains(">Shop</a>"), page)
        XCTAssertFalse(page.contains("tel:+44"), "a third action is not shown")
        let words = htmlText(page)
        for shown in ["Featured Actions View Schedule Shop", "Additional Info OPENING HOURS Tue-Sun 10:00-18:00 CLOAKROOM Free for members"] {
            XCTAssertTrue(words.contains(shown), "\(shown) not below the card: \(words)")
        }
        let front = try html("poster-generic.pkpass")
        XCTAssertTrue(front.contains("<section class=\"below\""), "the section follows the front")

        let pdf = try render("poster-generic.pkpass", "pdf", side: "both")
        let text = try HandOn.run("/usr/bin/pdftotext", ["-layout", pdf, "-"]).stdout
        for shown in ["FEATURED ACTIONS", "View Schedule", "https://museum.example/visit", "ADDITIONAL INFO", "OPENING HOURS",
                      "Tue-Sun 10:00-18:00", "1 more featured action is not shown"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the PDF's back:\n\(text)")
        }

        let hostile = try String(contentsOfFile: try render("hostile-below.pkpass", "html", side: "both"), encoding: .utf8)
        for markup in ["<script", "<img src=x", "<b>", "<i>", "href=\"javascript", "href=\"http:", "javascript:alert(3)",
                       "javascript:alert(4)", "javascript:alert(6)", "http://insecure"] {
            XCTAssertFalse(hostile.contains(markup), "\(markup) in the page")
        }
        let hostileWords = htmlText(hostile)
        for shown in ["<b>Bold</b> & \"quoted\"", "<I>FOOT</I> <script>alert(1)</script>", "<img src=x onerror=alert(1)>",
                      "Upcoming Events <script>alert(5)</script> Night Fri 15 Jan 2027, 19:00 · Hall <b>B</b> Matinee TBD",
                      "Email Venue <b>box@venue.example</b>", "2 links are left out: not https."] {
            XCTAssertTrue(hostileWords.contains(shown), "\(shown) not shown as text: \(hostileWords)")
        }
        XCTAssertTrue(hostile.contains("<a href=\"https://safe.example/stay?a=1&amp;b=&lt;2&gt;\""), hostile)
        XCTAssertTrue(hostile.contains("<a href=\"tel:+1-555-0100\""), hostile)
        XCTAssertTrue(hostile.contains("<a href=\"https://venue.example/?q=&lt;x&gt;\""), hostile)
        // Exactly the three allowed links are links.
        XCTAssertEqual(hostile.components(separatedBy: "<section class=\"below\"")[1].components(separatedBy: "<a href=").count - 1, 3)
        let hostilePDF = try HandOn.run("/usr/bin/pdftotext", ["-layout", try render("hostile-below.pkpass", "pdf", side: "both"), "-"]).stdout
        for shown in ["<script>alert(5)</script> Night", "Book a Stay", "https://safe.example/stay?a=1&b=<2>"] {
            XCTAssertTrue(hostilePDF.contains(shown), "\(shown) not on the PDF:\n\(hostilePDF)")
        }
        XCTAssertTrue(hostilePDF.contains("<a href=\"javascript:alert(2)\">click</a>"), "markup is text:\n\(hostilePDF)")
        for unsafe in ["javascript:alert(3)", "javascript:alert(4)", "http://insecure"] {
            XCTAssertFalse(hostilePDF.contains(unsafe), "\(unsafe):\n\(hostilePDF)")
        }
    }

    /// The web wallet's pass page embeds the same card and the section under it, escaped, with its
    /// links only https/tel; the section adds no heading (the page keeps one h1 and its h2s).
    func testTheWebWalletPassPageShowsTheSectionEscaped() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Self.sample("hostile-below.pkpass")]).status, 0)
        let sha = try XCTUnwrap(try sandbox.run("list", ["--json"]).objects.first?["sha256"] as? String)
        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0"])
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        XCTAssertEqual(try WebServeTests.curl(server.signIn, jar: jar).status, 303)
        let reply = try WebServeTests.passPage(server.base, sha, jar: jar)
        XCTAssertEqual(reply.status, 200, reply.text + server.text)
        let page = reply.text
        XCTAssertTrue(page.contains("class=\"card pgen\""), "drawn as a poster generic pass")
        let below = try XCTUnwrap(page.components(separatedBy: "<section class=\"below\"").dropFirst().first, page)
        XCTAssertTrue(below.contains("&lt;script&gt;alert(5)&lt;/script&gt; Night"), below)
        XCTAssertTrue(below.contains("<a href=\"https://safe.example/stay?a=1&amp;b=&lt;2&gt;\""), below)
        // (The page's own app.js is its one script element.)
        for markup in ["<script>", "href=\"javascript", "javascript:alert(3)", "http://insecure", "<img src=x"] {
            XCTAssertFalse(page.contains(markup), "\(markup) in the web page")
        }
        XCTAssertEqual(page.components(separatedBy: "<h1").count - 1, 1, "one h1")
        XCTAssertFalse(below.components(separatedBy: "</section>")[0].contains("<h"), "no heading in the section")
    }

    /// `show` says what a new layout's face shows (the pass's classic fields, listed after it, are
    /// not on that card); a classic pass gets no such section.
    func testShowListsTheFaceOfEachNewLayout() throws {
        let names = ["poster-event.pkpass", "semantic-boarding.pkpass", "poster-generic.pkpass", "fallback-no-venue.pkpass"]
        XCTAssertEqual(try sandbox.run("add", ["--yes"] + names.map(Self.sample)).status, 0)
        let poster = try sandbox.run("show", ["pass.org.passconduit.event/GALA-1"]).stdout
        XCTAssertTrue(poster.contains("\nOn the card (poster event ticket)\n  Title       SPRING GALA\n  Date        Fri 1 May 2026, 19:30\n"
                                      + "  SECTION     Stalls\n  ROW         H\n  SEATS       12, 13\n"), poster)
        let boarding = try sandbox.run("show", ["pass.org.passconduit.boarding/UA987-1"]).stdout
        XCTAssertTrue(boarding.contains("\nOn the card (semantic boarding pass)\n  Flight      UA 987, Wed 9 Dec 2026\n"), boarding)
        XCTAssertTrue(boarding.contains("  From        ORD Chicago, departs 17:00\n  To          CDG Paris, arrives 08:01\n  BOARDING    16:10\n"), boarding)
        let generic = try sandbox.run("show", ["pass.org.passconduit.generic/MUSEUM-1"]).stdout
        XCTAssertTrue(generic.contains("\nOn the card (poster generic pass)\n  MEMBER SINCE\n"), generic)
        XCTAssertTrue(generic.contains("  Title       Family Membership\n  MEMBER      Alex Sample\n  VALID UNTIL 31 Dec 2027\n"), generic)
        let classic = try sandbox.run("show", ["pass.org.passconduit.event/GALA-2"]).stdout
        XCTAssertFalse(classic.contains("On the card"), classic)
    }

    /// United's real semantic boarding pass (KDE kpkpass autotests): its https links under
    /// "Airline Services" with Wallet's labels, the guide's keys among them; its phone number as
    /// text; no featured action section (none on a semantic boarding pass).
    func testUnitedsLinksAreListedAsAirlineServices() throws {
        let pass = Run.root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real/kpkpass__apple-store-UA-sample-unsigned-scrubbed.pkpass").path
        let out = sandbox.dir.appendingPathComponent("united.html").path
        XCTAssertEqual(try sandbox.run("render", ["--format", "html", "-o", out, pass]).status, 0)
        let page = try String(contentsOfFile: out, encoding: .utf8)
        let words = htmlText(try XCTUnwrap(page.components(separatedBy: "<section class=\"below\"").dropFirst().first, page))
        XCTAssertTrue(words.contains("Airline Services Order Food Bag Policy Accessibility Manage Booking Change Seat Upgrade"), words)
        XCTAssertTrue(words.contains("Call Airline"), words)
        XCTAssertFalse(words.contains("Event Guide") || words.contains("Featured Actions"), words)
        XCTAssertTrue(page.contains("<a href=\"https://www.united.com/en/us/manageres/mytrips\""), page)
    }

    /// A classic card without anything below it gets no section and no extra style.
    func testClassicCardHasNoBelowSection() throws {
        let page = try html("fallback-no-venue.pkpass")
        XCTAssertFalse(page.contains("class=\"below\"") || page.contains(".below {"), page)
    }

    /// `expected.tsv` of the samples agrees with `show --verbose`, so the script and the scheme
    /// choice cannot drift apart: every sample is valid, drawn in the expected scheme, and a
    /// fallback names the missing key.
    func testTheSamplesAreDrawnInTheSchemeTheirScriptExpects() throws {
        let tsv = try String(contentsOfFile: Self.sample("expected.tsv"), encoding: .utf8)
        let rows = tsv.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.count, 15)
        let add = try sandbox.run("add", ["--yes"] + rows.map { Self.sample($0[0]) })
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        let names = ["posterEventTicket": "poster event ticket", "eventTicket": "event ticket",
                     "semanticBoardingPass": "semantic boarding pass", "boardingPass": "boarding pass",
                     "posterGeneric": "poster generic pass"]
        for row in rows {
            let show = try sandbox.run("show", ["--verbose", row[1]])
            XCTAssertEqual(show.status, 0, show.stderr)
            let layout = row[2] == "boardingPass" ? "semantic layout" : "poster layout"
            let wanted = try XCTUnwrap(names[row[2]]) + (row[3].isEmpty ? "" : " (\(layout) not used: \(row[3]))")
            XCTAssertTrue(show.stdout.contains("\n  Drawn as    \(wanted)\n"), "\(row[0]): \(show.stdout)")
            XCTAssertTrue(show.stdout.contains("Status      valid"), "\(row[0]): \(show.stdout)")
        }
    }

    /// Issue 40, the event guide of a poster event ticket: the venue map the pass ships is drawn
    /// under "Venue Map" (HTML inlined, the PDF's back), the upcoming events' names and venues go
    /// through the pass's pass.strings as its fields do, and `show` names both; a classic ticket
    /// (the poster declined) shows no venue map, as Wallet has no event guide for it.
    func testTheEventGuideShowsTheVenueMapAndTranslatedUpcomingEvents() throws {
        let page = try String(contentsOfFile: try render("poster-event-guide.pkpass", "html", side: "both"), encoding: .utf8)
        let below = try XCTUnwrap(page.components(separatedBy: "<section class=\"below\"").dropFirst().first, page)
        XCTAssertTrue(below.contains("<p class=\"bt\">Venue Map</p><img class=\"vmap\" alt=\"Venue map\" width=\"686\" height=\"458\" "
                                     + "src=\"data:image/png;base64,"), below)
        XCTAssertTrue(page.contains(".below .vmap {"), "the map's style is on the page")
        let words = htmlText(below)
        XCTAssertTrue(words.contains("Upcoming Events Spring Gala: Family Matinee Sat 2 May 2026, 14:00 · Clore Ballroom "
                                     + "Spring Gala: Closing Night Sun 3 May 2026, 19:30 · Royal Festival Hall"), words)
        for key in ["UPCOMING_MATINEE", "UPCOMING_CLOSING", "VENUE_CLORE"] {
            XCTAssertFalse(page.contains(key), "\(key) is translated")
        }
        XCTAssertTrue(words.contains("Event Guide"), words)

        // The PDF's back: the heading, the names, and the map's pixels (its red seat block).
        let pdf = try render("poster-event-guide.pkpass", "pdf", side: "both")
        let text = try HandOn.run("/usr/bin/pdftotext", ["-layout", pdf, "-"]).stdout
        for shown in ["VENUE MAP", "Spring Gala: Family Matinee", "Clore Ballroom", "UPCOMING EVENTS"] {
            XCTAssertTrue(text.contains(shown), "\(shown) not on the PDF:\n\(text)")
        }
        XCTAssertFalse(text.contains("venueMap@2x.png"), "the map is drawn, not named:\n\(text)")
        XCTAssertGreaterThan(try redPixels(pdf: pdf), 200, "the venue map's red block is on the PDF")
        XCTAssertEqual(try redPixels(pdf: try render("poster-event.pkpass", "pdf", side: "both")), 0, "no map without one")

        let classic = try String(contentsOfFile: try render("fallback-venue-room-number.pkpass", "html", side: "both"), encoding: .utf8)
        XCTAssertFalse(classic.contains("vmap") || classic.contains("Venue Map"), "a classic ticket has no event guide")

        XCTAssertEqual(try sandbox.run("add", ["--yes", Self.sample("poster-event-guide.pkpass")]).status, 0)
        let show = try sandbox.run("show", ["pass.org.passconduit.event/GALA-5"])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("\n  Upcoming Events\n    Spring Gala: Family Matinee\n                Sat 2 May 2026, 14:00 · Clore Ballroom\n"),
                      show.stdout)
        XCTAssertTrue(show.stdout.contains("\n  Venue Map\n    Image       venueMap@2x.png, 686 × 458 pixels\n"), show.stdout)
    }

    /// A venue map of a lying size meets the image guards: left out with the guard's note, no
    /// empty heading, the rest of the section drawn.
    func testAVenueMapOfALyingSizeIsLeftOutByTheImageGuards() throws {
        let lying = try RenderKit.python(["-c", """
            import base64, struct, zlib
            def chunk(k, d): return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xFFFFFFFF)
            png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 6, 0, 0, 0)) \\
                + chunk(b"IDAT", zlib.compress(b"\\0" * 64)) + chunk(b"IEND", b"")
            print(base64.b64encode(png).decode())
            """])
        XCTAssertEqual(lying.status, 0, lying.stderr)
        let pass = sandbox.dir.appendingPathComponent("lying-map.pkpass")
        try HandOn.forge("../layout-passes/poster-event-guide.pkpass", set: [
            "serialNumber": "GALA-7", "__files__": ["venueMap@2x.png": lying.text.trimmingCharacters(in: .whitespacesAndNewlines)]], to: pass)
        let out = sandbox.dir.appendingPathComponent("lying.html").path
        let run = try sandbox.run("render", ["--verbose", "--format", "html", "--side", "both", "-o", out, pass.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains("venueMap@2x.png declares 30000 × 30000 pixels"), run.stderr)
        let page = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertFalse(page.contains("Venue Map") || page.contains("class=\"vmap\""), "no map, no heading")
        XCTAssertTrue(htmlText(page).contains("Spring Gala: Family Matinee"), "the rest is there")
    }

    /// Pixels of the PDF's pages (100 dpi) within 30 of the venue map's red (220, 40, 60), and
    /// the red on the same page as the heading "VENUE MAP" (pdftotext of each page).
    func redPixels(pdf: String) throws -> Int {
        let r = try RenderKit.python(["-c", """
            import glob, subprocess, sys, tempfile
            from PIL import Image
            d = tempfile.mkdtemp()
            subprocess.run(["pdftoppm", "-r", "100", "-png", sys.argv[1], d + "/p"], check=True)
            total = 0
            for i, f in enumerate(sorted(glob.glob(d + "/p-*.png"))):
                im = Image.open(f).convert("RGB")
                red = sum(1 for p in im.getdata() if abs(p[0] - 220) < 30 and abs(p[1] - 40) < 30 and abs(p[2] - 60) < 30)
                text = subprocess.run(["pdftotext", "-f", str(i + 1), "-l", str(i + 1), sys.argv[1], "-"], capture_output=True, text=True).stdout
                if red and "VENUE MAP" not in text:
                    print(-1)
                    sys.exit(0)
                total += red
            print(total)
            """, pdf])
        XCTAssertEqual(r.status, 0, r.stderr)
        return Int(r.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// `scan` and `add` name a new layout ("Drawn as", show --verbose's words) and, in detail,
    /// list what its face shows — the lines `show` gives under "On the card" — instead of the
    /// classic rows; a classic card and a fallback keep "On the pass", the fallback's reason with
    /// --verbose only; a pass that asks for no newer layout prints what it printed before.
    func testScanAndAddNameTheLayoutAndListItsFace() throws {
        let cases = [("poster-event.pkpass", "pass.org.passconduit.event/GALA-1", "poster event ticket"),
                     ("semantic-boarding.pkpass", "pass.org.passconduit.boarding/UA987-1", "semantic boarding pass"),
                     ("poster-generic.pkpass", "pass.org.passconduit.generic/MUSEUM-1", "poster generic pass")]
        XCTAssertEqual(try sandbox.run("add", ["--yes"] + cases.map { Self.sample($0.0) }).status, 0)
        for (file, id, layout) in cases {
            let plain = try sandbox.run("scan", [Self.sample(file)])
            XCTAssertEqual(plain.status, 0, plain.stderr)
            XCTAssertTrue(plain.stdout.contains("\n  Drawn as    \(layout)\n"), "\(file): \(plain.stdout)")
            XCTAssertFalse(plain.stdout.contains("On the card"), "details only with --verbose: \(plain.stdout)")

            let verbose = try sandbox.run("scan", ["--verbose", Self.sample(file)])
            XCTAssertEqual(verbose.status, 0, verbose.stderr)
            XCTAssertFalse(verbose.stdout.contains("On the pass"), "\(file): \(verbose.stdout)")
            // Every line show lists under "On the card" is on the scan card, one level in.
            let show = try sandbox.run("show", [id]).stdout
            let section = try XCTUnwrap(show.components(separatedBy: "\nOn the card (\(layout))\n").dropFirst().first, show)
            let faceLines = section.components(separatedBy: "\n\n")[0].split(separator: "\n").map(String.init)
            XCTAssertGreaterThan(faceLines.count, 2, section)
            let expected = "\n  On the card (\(layout))\n" + faceLines.map { "  " + $0 }.joined(separator: "\n") + "\n"
            XCTAssertTrue(verbose.stdout.contains(expected), "\(file): wanted\n\(expected)\nin\n\(verbose.stdout)")
        }
        let add = try sandbox.run("add", ["--yes", Self.sample("poster-live.pkpass")])
        XCTAssertTrue(add.stdout.contains("\n  Drawn as    poster event ticket\n"), add.stdout)
        XCTAssertTrue(add.stdout.contains("\n  On the card (poster event ticket)\n    Title       South Bay Jazz\n"), add.stdout)
        XCTAssertTrue(add.stdout.contains("    ADMISSION   VIP Access\n"), add.stdout)

        let fallback = try sandbox.run("scan", [Self.sample("fallback-no-venue.pkpass")])
        XCTAssertFalse(fallback.stdout.contains("Drawn as"), fallback.stdout)
        let fallbackVerbose = try sandbox.run("scan", ["--verbose", Self.sample("fallback-no-venue.pkpass")])
        XCTAssertTrue(fallbackVerbose.stdout.contains("\n  Drawn as    event ticket (poster layout not used: semantics.venueName is missing)\n"),
                      fallbackVerbose.stdout)
        XCTAssertTrue(fallbackVerbose.stdout.contains("\n  On the pass\n    EVENT       Spring Gala\n"), fallbackVerbose.stdout)
        let classic = try sandbox.run("scan", ["--verbose", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertFalse(classic.stdout.contains("Drawn as") || classic.stdout.contains("On the card"), classic.stdout)
    }
}
