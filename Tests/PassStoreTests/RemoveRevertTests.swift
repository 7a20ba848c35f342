import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

final class RemoveRevertTests: XCTestCase {
    private let id = PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1")

    func testRemoveDeletesThePassItsVersionsAndItsBytes() throws {
        // Given a pass with two earlier versions, and another pass
        let library = try makeLibrary(TempDir())
        try library.add(Synthetic.record("1", version: 1))
        try library.replace(with: Synthetic.record("1", version: 2))
        try library.replace(with: Synthetic.record("1", version: 3))
        try library.add(try Fixture.skyport())
        // When the first is removed
        try library.remove(id)
        // Then it is gone with its versions and bytes; the other pass stays
        XCTAssertNil(try library.pass(id))
        XCTAssertEqual(try library.contains(Synthetic.record("1", version: 3)), .new)
        assertLibraryError(.notFound, try library.export(id))
        XCTAssertEqual(try library.passes().map(\.id), [try Fixture.skyport().id])
        XCTAssertEqual(try library.dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pass_blob") }, 1)
        XCTAssertEqual(try library.changes(after: 0).last?.kind, .remove)
        XCTAssertEqual(try library.changes(after: 0).last?.sha256, Synthetic.record("1", version: 3).sha256)
        assertSound(library)
    }

    func testRemoveOfAnAbsentPassIsNotFound() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.notFound, try library.remove(id))
            XCTAssertEqual(try library.changes(after: 0), [])
        }
    }

    func testRemovedPassCanBeAddedAgainWithoutHistory() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1))
            try library.replace(with: Synthetic.record("1", version: 2))
            try library.remove(id)
            let again = try library.add(Synthetic.record("1", version: 1))
            XCTAssertEqual(again.previousVersions, 0)
            assertSound(library)
        }
    }

    func testRevertRestoresThePreviousBytesAndMetadata() throws {
        eachBackend { b in
            // Given a pass replaced by a newer version
            let library = try b.library()
            let v1 = Synthetic.record("1", version: 1)
            let added = try library.add(v1)
            try library.replace(with: Synthetic.record("1", version: 2))
            // When the replace is reverted
            let reverted = try library.revert(id)
            // Then version 1 is current again, byte for byte, and the log says revert
            XCTAssertEqual(reverted.sha256, v1.sha256)
            XCTAssertEqual(reverted.description, "Pass 1 v1")
            XCTAssertEqual(reverted.fields, v1.fields)
            XCTAssertEqual(reverted.signingTime, v1.signingTime)
            XCTAssertEqual(reverted.addedAt, added.addedAt)
            XCTAssertEqual(reverted.previousVersions, 0)
            XCTAssertEqual(try library.export(id), v1.bytes)
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.add, .replace, .revert])
            XCTAssertEqual(try library.contains(Synthetic.record("1", version: 2)), .update)
            assertSound(library)
        }
    }

    func testRevertWalksBackThroughTheKeptVersionsThenStops() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1))
            for version in 2...5 { try library.replace(with: Synthetic.record("1", version: version)) }
            XCTAssertEqual(try library.revert(id).sha256, Synthetic.record("1", version: 4).sha256)
            XCTAssertEqual(try library.revert(id).sha256, Synthetic.record("1", version: 3).sha256)
            XCTAssertEqual(try library.revert(id).sha256, Synthetic.record("1", version: 2).sha256)
            assertLibraryError(.notFound, try library.revert(id))
            XCTAssertEqual(try library.export(id), Synthetic.record("1", version: 2).bytes)
            assertSound(library)
        }
    }

    func testRevertOfAPassNeverReplacedOrAbsentIsNotFound() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.notFound, try library.revert(id))
            try library.add(Synthetic.record("1"))
            assertLibraryError(.notFound, try library.revert(id))
        }
    }
}
