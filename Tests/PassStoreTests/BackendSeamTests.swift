import Foundation
import GRDB
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

/// The library through its backend protocol, on a database the test made itself (an in-memory
/// GRDB queue): what Conduit, the filter and the CLI see.
final class BackendSeamTests: XCTestCase {
    func testAnInMemoryWriterIsAFullLibraryThroughTheProtocol() async throws {
        // Given a library on an in-memory database, used only as `any PassLibraryBackend`
        let library: any PassLibraryBackend = try PassLibrary(writer: DatabaseQueue(), name: ":memory:")
        let v1 = Synthetic.record("1"), v2 = Synthetic.record("1", version: 2)
        // When a pass is added, then replaced by a newer version
        let value1 = try await library.contains(v1)
        XCTAssertEqual(value1, .new)
        try await library.add(v1)
        let value2 = try await library.contains(v2)
        XCTAssertEqual(value2, .update)
        let changes = try await library.replace(with: v2)
        // Then the protocol answers as the file library does
        XCTAssertEqual(changes.map(\.newValue), ["G2"])
        let value3 = try await library.passes().map(\.sha256)
        XCTAssertEqual(value3, [v2.sha256])
        let value4 = try await library.export(v1.id)
        XCTAssertEqual(value4, v2.bytes)
        let value5 = try await library.changes(after: 0).map(\.kind)
        XCTAssertEqual(value5, [.add, .replace])
        let value6 = try await library.check()
        XCTAssertEqual(value6, [])
        XCTAssertEqual(library.location, ":memory:")
    }

    func testTheSameErrorValuesComeThroughTheProtocol() async throws {
        let library: any PassLibraryBackend = try PassLibrary(writer: DatabaseQueue(), name: ":memory:")
        do {
            try await library.remove(PassID(passTypeIdentifier: "pass.example", serialNumber: "none"))
            XCTFail("removing a pass that is not there must fail")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .notFound)
            XCTAssertEqual(error.path, ":memory:")
        }
    }

    func testTheChangeFeedGivesTheBacklogThenNewEntriesAsTheyAreCommitted() async throws {
        // Given a library with one change, and a feed from the start
        let library: any PassLibraryBackend = try PassLibrary(writer: DatabaseQueue(), name: ":memory:")
        try await library.add(Synthetic.record("1"))
        var feed = library.changeFeed(after: 0, wait: 0.05).makeAsyncIterator()
        // When the backlog is read and another pass is added afterwards
        let first = try await feed.next()
        try await library.add(Synthetic.record("2"))
        let second = try await feed.next()
        // Then the feed gives both, in order
        XCTAssertEqual(first?.sequence, 1)
        XCTAssertEqual(second?.sequence, 2)
        XCTAssertEqual(second?.passID.serialNumber, "2")
    }

    func testAnEmptyFeedEndsWhenItsTaskIsCancelled() async throws {
        let library: any PassLibraryBackend = try PassLibrary(writer: DatabaseQueue(), name: ":memory:")
        let reader = Task { () -> Int in
            var seen = 0
            for try await _ in library.changeFeed(after: 0, wait: 0.05) { seen += 1 }
            return seen
        }
        reader.cancel()
        let seen = try await reader.value
        XCTAssertEqual(seen, 0)
    }

    func testBlockingRunReturnsTheValueAndRethrowsTheError() throws {
        XCTAssertEqual(try Blocking.run { 42 }, 42)
        XCTAssertThrowsError(try Blocking.run { () async throws -> Int in throw LibraryError(.busy, "held") }) { error in
            XCTAssertEqual((error as? LibraryError)?.kind, .busy)
        }
    }
}
