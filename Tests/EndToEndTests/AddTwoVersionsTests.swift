import Foundation
import XCTest

/// Issue 9 item 2: one `add` run that meets two versions of one pass decides each against the
/// library as it is at that moment (new, then update or stale) and carries on with the rest.
final class AddTwoVersionsTests: XCTestCase {
    var sandbox: Sandbox!

    override func setUpWithError() throws {
        sandbox = try Sandbox()
    }

    func storedSHA(_ id: String) throws -> String? {
        try sandbox.run("list", ["--json"]).objects.first { $0["id"] as? String == id }?["sha256"] as? String
    }

    static let event = "pass.org.passconduit.event/EVT-2026-0001"

    func testMailboxWithATicketAndItsUpdateAddsThenUpdates() throws {
        // An mbox: the ticket, its later update, then an unrelated boarding pass.
        var mbox: [UInt8] = []
        mbox += FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))], fromLine: true, subject: "Your ticket")
        mbox += Array("\n".utf8)
        mbox += FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket-v2.pkpass"))], fromLine: true, subject: "Seat change")
        mbox += Array("\n".utf8)
        mbox += FilterMail.message(passes: [("boarding.pkpass", try FilterMail.samplePass("boarding-pass.pkpass"))], fromLine: true, subject: "Boarding")
        let path = sandbox.dir.appendingPathComponent("inbox.mbox")
        try Data(mbox).write(to: path)

        let run = try sandbox.run("add", ["--yes", path.path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertFalse(run.stderr.contains("replace it instead"), run.stderr)
        let cards = run.stdout.components(separatedBy: "\n\n")
        XCTAssertEqual(cards.count, 3, run.stdout)
        XCTAssertTrue(cards[0].contains("new, not in your library yet") && cards[0].contains("Added to your library."), cards[0])
        XCTAssertTrue(cards[1].contains("a newer version of a pass in your library") && cards[1].contains("Updated in your library."), cards[1])
        XCTAssertTrue(cards[2].contains("Added to your library."), cards[2])
        XCTAssertEqual(try storedSHA(Self.event), try sha256(ofSample: "passes/event-ticket-v2.pkpass"))
        XCTAssertEqual(try sandbox.run("list", ["--json"]).objects.count, 2)
    }

    func testPassesNamedTogetherAreDecidedInTurnAndTheRunGoesOn() throws {
        // The later version first: the earlier one is then stale (refused, 65), and the
        // boarding pass after it is still added.
        let run = try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket-v2.pkpass"),
                                          Run.sample("passes/event-ticket.pkpass"), Run.sample("passes/boarding-pass.pkpass")])
        XCTAssertEqual(run.status, 65, run.stdout + run.stderr)
        let cards = run.stdout.components(separatedBy: "\n\n")
        XCTAssertEqual(cards.count, 3, run.stdout)
        XCTAssertTrue(cards[0].contains("Added to your library."), cards[0])
        XCTAssertTrue(cards[1].contains("older than the version in your library") && cards[1].contains("newer version"), cards[1])
        XCTAssertTrue(cards[2].contains("Added to your library."), cards[2])
        XCTAssertEqual(try storedSHA(Self.event), try sha256(ofSample: "passes/event-ticket-v2.pkpass"))

        // In order: added, then updated, exit 0.
        let fresh = try Sandbox()
        let inOrder = try fresh.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass"), Run.sample("passes/event-ticket-v2.pkpass")])
        XCTAssertEqual(inOrder.status, 0, inOrder.stdout + inOrder.stderr)
        XCTAssertTrue(inOrder.stdout.contains("Updated in your library."), inOrder.stdout)
    }
}
