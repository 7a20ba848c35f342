import Foundation
import PassStore
import PassStoreSQLite
import XCTest
@testable import DeliveryFilter
import Support

/// The filter's library policy on a real library: offers for new passes, updates applied only
/// for the same team, nothing ever added, nothing for invalid or untrusted passes.
final class FilterLibraryEffectsTests: XCTestCase {
    var library: PassLibrary!
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-effects-\(UUID().uuidString)")
        library = try PassLibrary(path: dir.appendingPathComponent("library.sqlite").path)
    }

    override func tearDownWithError() throws {
        library = nil
        try? FileManager.default.removeItem(at: dir)
    }

    private func record(_ serial: String = "S-1", team: String = "TEAM1", status: StoredStatus = .valid, content: String = "v1",
                        signed: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> PassRecord {
        let bytes = Array("pass bytes \(serial) \(team) \(content)".utf8)
        return PassRecord(id: PassID(passTypeIdentifier: "pass.com.example.test", serialNumber: serial), teamIdentifier: team,
                          status: status, hashed: HashedBytes(bytes), organizationName: "Example",
                          description: "Test", kind: "generic", signingTime: signed)
    }

    func testNewValidPassBecomesAnOfferAndIsNotAdded() throws {
        let r = record()
        XCTAssertEqual(try FilterLibraryEffects().apply(status: .valid, state: try library.contains(r), record: r, library: library), .offered)
        XCTAssertEqual(try library.offers().map(\.passID), [r.id])
        XCTAssertEqual(try library.passes().count, 0)
    }

    func testNewerVersionOfAStoredPassReplacesItOnlyForTheSameTeam() throws {
        let v1 = record()
        try library.add(v1)
        let v2 = record(content: "v2", signed: Date(timeIntervalSince1970: 1_700_100_000))
        let effects = FilterLibraryEffects()
        XCTAssertEqual(try library.contains(v2), .update)
        XCTAssertEqual(try effects.apply(status: .valid, state: .update, record: v2, library: library), .updated)
        XCTAssertEqual(try library.pass(v1.id)?.sha256, v2.sha256)

        // Another team's pass under the same id never replaces it: it waits for consent as an offer.
        let otherTeam = record(team: "TEAM2", content: "v3", signed: Date(timeIntervalSince1970: 1_700_200_000))
        XCTAssertEqual(try effects.apply(status: .valid, state: try library.contains(otherTeam), record: otherTeam, library: library), .offered)
        XCTAssertEqual(try library.pass(v1.id)?.sha256, v2.sha256)
    }

    func testUpdatesSwitchedOffBecomeOffersAndBothCanBeSwitchedOff() throws {
        try library.add(record())
        let v2 = record(content: "v2", signed: Date(timeIntervalSince1970: 1_700_100_000))
        XCTAssertEqual(try FilterLibraryEffects(stageOffers: true, applyUpdates: false).apply(status: .valid, state: .update, record: v2, library: library), .offered)
        XCTAssertEqual(try library.offers().count, 1)
        try library.declineOffer(try library.offers()[0].offerID)
        let off = FilterLibraryEffects(stageOffers: false, applyUpdates: false)
        XCTAssertEqual(try off.apply(status: .valid, state: .update, record: v2, library: library), .none)
        XCTAssertEqual(try off.apply(status: .valid, state: .new, record: record("S-2"), library: library), .none)
        XCTAssertEqual(try library.offers().count, 0)
        XCTAssertNotEqual(try library.pass(v2.id)?.sha256, v2.sha256)
    }

    func testInvalidUntrustedContainedAndStalePassesChangeNothing() throws {
        let effects = FilterLibraryEffects()
        XCTAssertEqual(try effects.apply(status: .invalid, state: .new, record: record(status: .invalid), library: library), .none)
        XCTAssertEqual(try effects.apply(status: .untrusted, state: .new, record: record(status: .untrusted), library: library), .none)
        let v2 = record(content: "v2", signed: Date(timeIntervalSince1970: 1_700_100_000))
        try library.add(v2)
        XCTAssertEqual(try effects.apply(status: .valid, state: .contained, record: v2, library: library), .none)
        let old = record(content: "v0", signed: Date(timeIntervalSince1970: 1_600_000_000))
        XCTAssertEqual(try library.contains(old), .stale)
        XCTAssertEqual(try effects.apply(status: .valid, state: .stale, record: old, library: library), .none)
        XCTAssertEqual(try library.offers().count, 0)
        XCTAssertEqual(try library.pass(v2.id)?.sha256, v2.sha256)
        XCTAssertEqual(try effects.apply(status: .valid, state: .new, record: record(), library: nil), .none)
    }

    func testLibraryWaitsAreBoundedByTheDeadline() {
        let o = FilterLibraryEffects.libraryOptions(deadlineSeconds: 5)
        XCTAssertLessThanOrEqual(o.busyTimeout, 1)
        XCTAssertLessThan(o.retryDeadline, 5)
        XCTAssertLessThan(FilterLibraryEffects.libraryOptions(deadlineSeconds: 0.001).retryDeadline, 0.1)
    }
}
