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
}
