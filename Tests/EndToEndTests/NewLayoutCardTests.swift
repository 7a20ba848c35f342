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

    /// `expected.tsv` of the samples agrees with `show --verbose`, so the script and the scheme
    /// choice cannot drift apart: every sample is valid, drawn in the expected scheme, and a
    /// fallback names the missing key.
    func testTheSamplesAreDrawnInTheSchemeTheirScriptExpects() throws {
        let tsv = try String(contentsOfFile: Self.sample("expected.tsv"), encoding: .utf8)
        let rows = tsv.split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(rows.count, 10)
        let add = try sandbox.run("add", ["--yes"] + rows.map { Self.sample($0[0]) })
        XCTAssertEqual(add.status, 0, add.stdout + add.stderr)
        let names = ["posterEventTicket": "poster event ticket", "eventTicket": "event ticket",
                     "semanticBoardingPass": "semantic boarding pass", "boardingPass": "boarding pass"]
        for row in rows {
            let show = try sandbox.run("show", ["--verbose", row[1]])
            XCTAssertEqual(show.status, 0, show.stderr)
            let layout = row[2] == "boardingPass" ? "semantic layout" : "poster layout"
            let wanted = try XCTUnwrap(names[row[2]]) + (row[3].isEmpty ? "" : " (\(layout) not used: \(row[3]))")
            XCTAssertTrue(show.stdout.contains("\n  Drawn as    \(wanted)\n"), "\(row[0]): \(show.stdout)")
            XCTAssertTrue(show.stdout.contains("Status      valid"), "\(row[0]): \(show.stdout)")
        }
    }
}
