import Foundation
import XCTest

/// The card a person reads for real passes (Tests/WalletPassTests/Fixtures/pkpass-real, copies of
/// the project's corpus pkpass-real): nothing cut, nothing blank, expiry said plainly.
final class RealPassCardTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    static func realPass(_ name: String) -> String {
        Run.root.appendingPathComponent("Tests/WalletPassTests/Fixtures/pkpass-real/" + name).path
    }

    /// SATA's boarding pass expired on 17 Jun 2023; `show` said so, the scan/add card did not.
    func testExpiredPassIsSaidToBeExpiredOnItsCard() throws {
        let run = try sandbox.run("scan", [Self.realPass("Kryst0r-Wallet__BoardingPass.pkpass")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("  Expires     Sat 17 Jun 2023, 14:30 UTC (expired)\n"), run.stdout)
    }

    /// Field labels longer than the label column ("PONTA DELGADA JOAO PAULO II", "NAME OF
    /// PASSENGER") were cut to 11 characters: "PONTA DELGA PDL".
    func testLongFieldLabelsAreNotCut() throws {
        let run = try sandbox.run("scan", ["--verbose", Self.realPass("Kryst0r-Wallet__BoardingPass.pkpass")])
        XCTAssertEqual(run.status, 0, run.stderr)
        // Issue 9 item 8: a long label never runs into its value; the value sits below, in the value column.
        XCTAssertTrue(run.stdout.contains("    PONTA DELGADA JOAO PAULO II\n                PDL\n"), run.stdout)
        XCTAssertFalse(run.stdout.contains("PONTA DELGA PDL"), run.stdout)
        XCTAssertTrue(run.stdout.contains("    Seat        3B\n"), "short labels keep their column: \(run.stdout)")
    }

    /// Issue 26 item 9: a front value stays on one line, as Wallet keeps it (smaller type, then "…"):
    /// the card broke "01/01/20⏎20" and "dominic.drees@live.⏎de". pdftotext reads the drawn card back.
    func testFrontValuesAreNeverBrokenMidToken() throws {
        for (name, values) in [("JohannBernard__CarteTP.pkpass", ["01/01/2020", "31/12/2020", "M. Pierre-Alain de Malleray"]),
                               ("BusinessWallet__StoreCard.pkpass", ["dominic.drees@live.de", "+49 151 651 43990"]),
                               ("catima__Eurowings.pkpass", ["08/09/2019", "COLOGNE-BONN"])] {
            let pdf = sandbox.dir.appendingPathComponent(name + ".pdf").path
            let render = try sandbox.run("render", ["--format", "pdf", "-o", pdf, Self.realPass(name)])
            XCTAssertEqual(render.status, 0, render.stderr)
            let text = try HandOn.run("/usr/bin/pdftotext", ["-layout", pdf, "-"])
            XCTAssertEqual(text.status, 0, text.stderr)
            for value in values { XCTAssertTrue(text.stdout.contains(value), "\(name): \(value) not on one line in\n\(text.stdout)") }
        }
    }

    /// Deltasiege's store card has the description " ": the card printed a line of blanks and
    /// `list` printed "Deltasiege.eu ·  ".
    func testBlankDescriptionGetsNoLineAndNoDot() throws {
        let pass = Self.realPass("BusinessWallet__StoreCard.pkpass")
        let scan = try sandbox.run("scan", [pass])
        XCTAssertEqual(scan.status, 0, scan.stderr)
        XCTAssertTrue(scan.stdout.hasPrefix("Store Card · Deltasiege.eu\n  Status      valid\n"), scan.stdout)
        XCTAssertEqual(try sandbox.run("add", ["--yes", pass]).status, 0)
        let list = try sandbox.run("list")
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.hasSuffix("Deltasiege.eu\n"), list.stdout)
    }

    /// Eurowings' boarding pass has a field labelled "Status" valued "-": on the add card it
    /// read as a second verdict row under "Status  invalid: …".
    func testPassFieldsAreSetApartFromTheVerdictRows() throws {
        let run = try sandbox.run("scan", ["--verbose", Self.realPass("catima__Eurowings.pkpass")])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.filter { $0.hasPrefix("  Status ") }.count, 1, run.stdout)
        XCTAssertTrue(lines.contains("  Status      invalid: This pass's signature is broken, so it can't be trusted."), run.stdout)
        XCTAssertTrue(run.stdout.contains("\n  On the pass\n    Gate        B61\n"), run.stdout)
        XCTAssertTrue(lines.contains("    Status      -"), run.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  Barcode     M1DOE/JOHN") }, run.stdout)
    }

    /// `show` printed "Transit  PKTransitTypeAir", the PassKit constant, and must still say
    /// the pass has expired.
    func testShowNamesTheTransitTypeAndTheExpiry() throws {
        XCTAssertEqual(try sandbox.run("add", ["--yes", Self.realPass("Kryst0r-Wallet__BoardingPass.pkpass")]).status, 0)
        let run = try sandbox.run("show", ["pass.com.amadeus.ssci.Cert4/SP50216JUN5"])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("\n  Transit     Air\n"), run.stdout)
        XCTAssertTrue(run.stdout.contains("\n  Expires     Sat 17 Jun 2023, 14:30 UTC (expired)\n"), run.stdout)
    }

    /// A Maildir message was placed twice: "Found in  …/Maildir, …/Maildir/cur/1…:2,S, part 2".
    func testMaildirMessageIsPlacedByItsFileAlone() throws {
        let maildir = Run.sample("messages/Maildir")
        let run = try sandbox.run("scan", [maildir])
        XCTAssertEqual(run.status, 0, run.stderr)
        let places = run.stdout.split(separator: "\n").filter { $0.hasPrefix("  Found in    ") }
        XCTAssertEqual(places.count, 2, run.stdout)
        for place in places {
            XCTAssertTrue(place.hasPrefix("  Found in    \(maildir)/cur/") || place.hasPrefix("  Found in    \(maildir)/new/"), String(place))
            XCTAssertFalse(place.contains("\(maildir), "), String(place))
        }
    }
}
