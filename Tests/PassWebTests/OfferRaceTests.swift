import Conduit
import Foundation
import PassStore
import PassStoreSQLite
import WalletPass
import XCTest
@testable import PassWeb

/// Issue 37 defect 12: two requests settle one offer at once (a double tap, two windows). The one
/// that comes second finds the offer already settled when it writes; it must say so, not fail as
/// a library problem (500).
final class OfferRaceTests: XCTestCase {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    func stagedOffer() throws -> (library: PassLibrary, offer: Offer, opener: PassOpener) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("offer-race-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let library = try PassLibrary(path: dir.appendingPathComponent("library.sqlite").path)
        let opener = PassOpener(trust: try TrustStore.load(directories: [Self.samples.appendingPathComponent("ca/trust").path]))
        let bytes = Array(try Data(contentsOf: Self.samples.appendingPathComponent("passes/generic.pkpass")))
        let record = try XCTUnwrap(PassRecordMapping.record(verdict: opener.open(bytes), bytes: bytes, source: nil, receivedAt: Date()))
        let offer = try library.stageOffer(record)
        return (library, offer, opener)
    }

    func testTheSecondOfTwoDecisionsOnOneOfferSaysItIsSettled() async throws {
        for (first, second) in [(true, true), (true, false), (false, true), (false, false)] {
            let (library, offer, opener) = try stagedOffer()
            // Both requests read the offer; the first settles it.
            let done = try await OfferDecision.decide(offer, accept: first, library: library, opener: opener)
            switch done {
            case .added, .declined: break
            default: XCTFail("first decision: \(done)")
            }
            let late = try await OfferDecision.decide(offer, accept: second, library: library, opener: opener)
            guard case .settled = late else { return XCTFail("accept \(first) then \(second): \(late)") }
            XCTAssertEqual(try library.offers().count, 0)
            XCTAssertEqual(try library.passes().count, first ? 1 : 0)
        }
    }
}
