import Foundation
import XCTest

/// Offers staged by the delivery filter, then reviewed with `offers` and accepted with `add`.
final class OffersTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    /// Delivers a sample message through `passconduit filter`, which stages new passes as offers.
    func deliver(_ sample: String) throws {
        let message = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/" + sample)))
        let run = try sandbox.run("filter", ["--log", "none"], stdin: message)
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    func offers() throws -> [[String: Any]] {
        try sandbox.run("offers", ["--json"]).objects
    }

    func testFilteredPassesBecomeOffersAndAreNotAdded() throws {
        try deliver("two-passes.eml")
        let pending = try offers()
        XCTAssertEqual(pending.compactMap { $0["kind"] as? String }.sorted(), ["boardingPass", "coupon"])
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 0)
        let text = try sandbox.run("offers")
        XCTAssertTrue(text.stdout.contains("Passconduit Air · Boarding pass"), text.stdout)
    }

    func testAcceptingAnOfferAddsThePassAndClearsTheOffer() throws {
        try deliver("type.eml")
        let offer = try XCTUnwrap(try offers().first?["offer"] as? Int)
        let run = try sandbox.run("add", ["--yes", "--offer", String(offer)])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("Added to your library."), run.stdout)
        XCTAssertEqual(try offers().count, 0)
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.first?["serialNumber"] as? String, "EVT-2026-0001")
        XCTAssertEqual(try sandbox.run("log", ["--json"]).objects.map { $0["kind"] as? String }, ["offer", "add"])
    }

    func testDecliningAnOfferDropsIt() throws {
        try deliver("type.eml")
        let offer = try XCTUnwrap(try offers().first?["offer"] as? Int)
        XCTAssertEqual(try sandbox.run("offers", ["--decline", String(offer)]).status, 0)
        XCTAssertEqual(try offers().count, 0)
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 0)
    }

    func testUnknownOfferIsNamed() throws {
        let run = try sandbox.run("add", ["--yes", "--offer", "99"])
        XCTAssertEqual(run.status, 66)
        XCTAssertTrue(run.stderr.contains("no pending offer 99"), run.stderr)
    }

    func testReviewingAllOffersOnATerminalAsksForEach() throws {
        try deliver("two-passes.eml")
        let run = try sandbox.runOnTerminal("add", ["--offers"], answers: ["y", "n"])
        XCTAssertEqual(run.status, 0, run.stdout)
        XCTAssertEqual(run.stdout.components(separatedBy: "Add to your library? [y/N]").count - 1, 2, run.stdout)
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 1)
        XCTAssertEqual(try offers().count, 1, "a declined answer leaves the offer pending")
    }

    /// Issue 42 item 3: `passconduit offer` stages a pass with where a chat message carried it;
    /// `offers` and `show` say so; one offer per pass; nothing is ever added by it.
    func testOfferStagesAPassWithItsChatProvenanceShownByOffersAndShow() throws {
        let chat = ["--from-network", "matrix", "--room", "!abc:example.org", "--event-id", "$xyz", "--sender", "@alice:example.org"]
        let first = try sandbox.run("offer", chat + ["--name", "ticket.pkpass", Run.sample("passes/event-ticket.pkpass")])
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
        XCTAssertTrue(first.stdout.hasSuffix(": offered as #1.\n"), first.stdout)
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 0, "an offer is not a pass of the library")
        let pending = try offers()
        XCTAssertEqual(pending.count, 1)
        let source = try XCTUnwrap(pending.first?["source"] as? [String: Any])
        XCTAssertEqual(source["network"] as? String, "matrix")
        XCTAssertEqual(source["room"] as? String, "!abc:example.org")
        XCTAssertEqual(source["eventId"] as? String, "$xyz")
        XCTAssertEqual(source["sender"] as? String, "@alice:example.org")
        XCTAssertEqual(source["file"] as? String, "ticket.pkpass")
        let listed = try sandbox.run("offers")
        XCTAssertTrue(listed.stdout.contains("Sent by @alice:example.org in room !abc:example.org (Matrix), event $xyz, "), listed.stdout)

        // The same bytes again are the same offer; a newer version replaces it; --json says which.
        let again = try sandbox.run("offer", chat + [Run.sample("passes/event-ticket.pkpass")])
        XCTAssertTrue(again.stdout.hasSuffix(": already offered as #1.\n"), again.stdout)
        let newer = try sandbox.run("offer", chat + ["--json", Run.sample("passes/event-ticket-v2.pkpass")])
        XCTAssertEqual(newer.status, 0, newer.stderr)
        XCTAssertEqual(newer.objects.map { $0["result"] as? String }, ["updated"])
        XCTAssertEqual((newer.objects.first?["offer"] as? [String: Any])?["offer"] as? Int, 1)
        XCTAssertEqual(try offers().count, 1)

        // Accepted, the pass keeps where it was sent: show says so.
        XCTAssertEqual(try sandbox.run("add", ["--yes", "--offer", "1"]).status, 0)
        let sha256 = try XCTUnwrap(try sandbox.run("list", ["--json"]).objects.first?["sha256"] as? String)
        let show = try sandbox.run("show", ["--no-barcode", String(sha256.prefix(12))])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("Sent by @alice:example.org in room !abc:example.org (Matrix), event $xyz"), show.stdout)
        let shown = try sandbox.run("show", ["--json", String(sha256.prefix(12))]).objects.first?["source"] as? [String: Any]
        XCTAssertEqual(shown?["sender"] as? String, "@alice:example.org")
        // Now in the library: not offered again.
        let held = try sandbox.run("offer", [Run.sample("passes/event-ticket-v2.pkpass")])
        XCTAssertEqual(held.status, 0, held.stderr)
        XCTAssertTrue(held.stdout.hasSuffix(": already in your library.\n"), held.stdout)
        XCTAssertEqual(try offers().count, 0)
    }

    func testOfferRefusesAnInvalidPassAndNamesAMissingFile() throws {
        let bad = try sandbox.run("offer", [Run.sample("passes/bad-manifest-mismatch.pkpass")])
        XCTAssertEqual(bad.status, 65, bad.stdout + bad.stderr)
        XCTAssertTrue(bad.stdout.contains("Not offered:"), bad.stdout)
        XCTAssertEqual(try offers().count, 0)
        let missing = try sandbox.run("offer", ["/nonexistent/ticket.pkpass"])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("/nonexistent/ticket.pkpass: no such file"), missing.stderr)
        let control = try sandbox.run("offer", ["--sender", "a\u{1B}[31mb", Run.sample("passes/coupon.pkpass")])
        XCTAssertEqual(control.status, 64, control.stderr)
        XCTAssertEqual(try offers().count, 0)
    }
}

