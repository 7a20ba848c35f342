import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite
import Support

final class ReplaceTests: XCTestCase {
    private let id = PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1")

    func testReplaceReturnsEachChangedFieldWithItsChangeMessageFilled() throws {
        eachBackend { b in
            // Given a stored pass with a gate, a seat and a terminal
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1, fields: [
                StoredField(key: "gate", label: "Gate", value: "A1", changeMessage: "Gate changed to %@"),
                StoredField(key: "seat", label: "Seat", value: "14C", changeMessage: "Seat now %@"),
                StoredField(key: "terminal", label: "Terminal", value: "2"),
            ]))
            // When a newer version moves the gate, keeps the seat, drops the terminal, adds boarding
            let changes = try library.replace(with: Synthetic.record("1", version: 2, fields: [
                StoredField(key: "gate", label: "Gate", value: "B7", changeMessage: "Gate changed to %@"),
                StoredField(key: "seat", label: "Seat", value: "14C", changeMessage: "Seat now %@"),
                StoredField(key: "boarding", label: "Boarding", value: "10:40", changeMessage: "Boarding at %1$@ (100%%)"),
            ]))
            // Then exactly those changes are reported, in the new order, dropped fields last
            XCTAssertEqual(changes, [
                FieldChange(key: "gate", label: "Gate", oldValue: "A1", newValue: "B7", message: "Gate changed to B7"),
                FieldChange(key: "boarding", label: "Boarding", oldValue: nil, newValue: "10:40", message: "Boarding at 10:40 (100%)"),
                FieldChange(key: "terminal", label: "Terminal", oldValue: "2", newValue: nil, message: nil),
            ])
            XCTAssertEqual(try library.pass(id)?.fields.map(\.value), ["B7", "14C", "10:40"])
        }
    }

    func testChangeMessageFormatIsFilledLikeWallet() {
        XCTAssertEqual(ChangeMessage.fill("Gate changed to %@.", with: "B7"), "Gate changed to B7.")
        XCTAssertEqual(ChangeMessage.fill("%@ → %1$@, 50%% off", with: "X"), "X → X, 50% off")
        XCTAssertEqual(ChangeMessage.fill("no placeholder", with: "X"), "no placeholder")
        XCTAssertEqual(ChangeMessage.fill("trailing %", with: "X"), "trailing %")
        XCTAssertEqual(ChangeMessage.fill("%d stays", with: "X"), "%d stays")
    }

    func testReplaceKeepsAddedTimeAndMovesUpdatedTimeAndSource() throws {
        eachBackend { b in
            let clock = SteppingClock(start: 1_750_000_000)
            let library = try b.library(clock: clock)
            let added = try library.add(Synthetic.record("1", version: 1))
            var newer = Synthetic.record("1", version: 2)
            newer.source = PassSource(messageID: "<v2@x>", receivedAt: Date(timeIntervalSince1970: 1_760_000_000))
            try library.replace(with: newer)
            let stored = try XCTUnwrap(library.pass(id))
            XCTAssertEqual(stored.addedAt, added.addedAt)
            XCTAssertGreaterThan(stored.updatedAt, added.updatedAt)
            XCTAssertEqual(stored.source, newer.source)
            XCTAssertEqual(stored.sha256, newer.sha256)
            XCTAssertEqual(try library.export(id), newer.bytes)
        }
    }

    func testReplaceKeepsTheLastThreeVersionsAndDropsOlderBytes() throws {
        // Given a pass replaced five times
        let library = try makeLibrary(TempDir())
        try library.add(Synthetic.record("1", version: 1))
        for version in 2...6 { try library.replace(with: Synthetic.record("1", version: version)) }
        // Then three earlier versions are kept, and the bytes of versions 1 and 2 are gone
        XCTAssertEqual(try library.pass(id)?.previousVersions, 3)
        let blobs = try library.dbQueue.read { try String.fetchSet($0, sql: "SELECT sha256 FROM pass_blob") }
        XCTAssertEqual(blobs, Set((3...6).map { Synthetic.record("1", version: $0).sha256 }))
        assertSound(library)
    }

    func testKeptVersionsIsConfigurable() throws {
        eachBackend { b in
            let library = try b.library() { $0.keptVersions = 1 }
            try library.add(Synthetic.record("1", version: 1))
            for version in 2...4 { try library.replace(with: Synthetic.record("1", version: version)) }
            XCTAssertEqual(try library.pass(id)?.previousVersions, 1)
            assertSound(library)
        }
    }

    func testReplacingWithAStalePassIsRefusedAndChangesNothing() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 2))
            assertLibraryError(.refused, try library.replace(with: Synthetic.record("1", version: 1)))
            XCTAssertEqual(try library.pass(id)?.sha256, Synthetic.record("1", version: 2).sha256)
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.add])
        }
    }

    func testReplacingWithTheSameBytesChangesAndLogsNothing() throws {
        eachBackend { b in
            let library = try b.library()
            let stored = try library.add(Synthetic.record("1"))
            XCTAssertEqual(try library.replace(with: Synthetic.record("1")), [])
            XCTAssertEqual(try library.pass(id), stored)
            XCTAssertEqual(try library.changes(after: 0).count, 1)
        }
    }

    func testReplaceOfAnAbsentPassIsNotFound() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.notFound, try library.replace(with: Synthetic.record("1")))
            XCTAssertEqual(try library.passes(), [])
        }
    }

    func testReplaceByAnotherTeamIsRefused() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1, team: "TEAMAAAAAA"))
            assertLibraryError(.refused, try library.replace(with: Synthetic.record("1", version: 2, team: "TEAMBBBBBB")))
        }
    }

    func testReplaceRefusesInvalidAndUntrustedWithoutConsent() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1))
            assertLibraryError(.refused, try library.replace(with: Synthetic.record("1", version: 2, status: .invalid)))
            assertLibraryError(.refused, try library.replace(with: Synthetic.record("1", version: 2, status: .untrusted)))
            XCTAssertNoThrow(try library.replace(with: Synthetic.record("1", version: 2, status: .untrusted), allowUntrusted: true))
        }
    }
}
