import Foundation
import XCTest
@testable import PassStore

final class ChangeLogTests: XCTestCase {
    func testEveryKindOfWriteIsLoggedInOrderWithGrowingSequenceNumbers() throws {
        eachBackend { b in
            // Given one of each write
            let clock = SteppingClock(start: 1_750_000_000)
            let library = try b.library(clock: clock)
            let id = PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1")
            try library.add(Synthetic.record("1", version: 1))
            try library.replace(with: Synthetic.record("1", version: 2))
            try library.revert(id)
            try library.remove(id)
            let offer = try library.stageOffer(Synthetic.record("2"))
            try library.declineOffer(offer.offerID)
            // Then the log has them all, in order, with the digest each one concerns
            let log = try library.changes(after: 0)
            XCTAssertEqual(log.map(\.kind), [.add, .replace, .revert, .remove, .offer, .decline])
            XCTAssertEqual(log.map(\.sequence), Array(1...6))
            XCTAssertEqual(log.map(\.sha256), [Synthetic.record("1", version: 1).sha256, Synthetic.record("1", version: 2).sha256,
                                               Synthetic.record("1", version: 1).sha256, Synthetic.record("1", version: 1).sha256,
                                               Synthetic.record("2").sha256, Synthetic.record("2").sha256])
            XCTAssertEqual(log.map(\.passID.serialNumber), ["1", "1", "1", "1", "2", "2"])
            XCTAssertTrue(zip(log, log.dropFirst()).allSatisfy { $0.at < $1.at })
            XCTAssertEqual(try library.lastSequence(), 6)
            assertSound(library)
        }
    }

    /// The web wallet keeps each user's pass list while the log's last entry stays the same
    /// (PassWeb's `WebListCache`): so every write that changes what `passes()` or `offers()`
    /// return must add to the log, and one that changes neither need not.
    func testEveryWriteThatChangesPassesOrOffersMovesTheLastSequence() throws {
        eachBackend { b in
            let library = try b.library()
            var changed: [String] = []
            func step(_ name: String, _ write: () throws -> Void) throws {
                let before = (try library.passes(), try library.offers(), try library.lastSequence())
                try write()
                let after = (try library.passes(), try library.offers(), try library.lastSequence())
                guard after.0 != before.0 || after.1 != before.1 else { return }
                changed.append(name)
                XCTAssertGreaterThan(after.2, before.2, "\(b.kind): \(name) changed passes or offers without a log entry")
            }
            let one = PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1")
            try step("add") { try library.add(Synthetic.record("1")) }
            try step("add the same bytes") { try library.add(Synthetic.record("1")) }
            try step("addIfNew") { _ = try library.addIfNew(Synthetic.record("2")) }
            try step("replace") { try library.replace(with: Synthetic.record("1", version: 2)) }
            try step("replaceIfChanged") { _ = try library.replaceIfChanged(with: Synthetic.record("2", version: 2)) }
            try step("replaceIfChanged, same bytes") { _ = try library.replaceIfChanged(with: Synthetic.record("2", version: 2)) }
            try step("revert") { try library.revert(one) }
            var offer: Offer?
            try step("stageOffer") { offer = try library.stageOffer(Synthetic.record("3")) }
            try step("stageOffer, newer") { offer = try library.stageOffer(Synthetic.record("3", version: 2)) }
            try step("acceptOffer") { try library.acceptOffer(try XCTUnwrap(offer).offerID, record: Synthetic.record("3", version: 2)) }
            try step("stageOffer, another") { offer = try library.stageOffer(Synthetic.record("4")) }
            try step("declineOffer") { try library.declineOffer(try XCTUnwrap(offer).offerID) }
            try step("remove") { try library.remove(one) }
            XCTAssertEqual(changed, ["add", "addIfNew", "replace", "replaceIfChanged", "revert", "stageOffer", "stageOffer, newer",
                                     "acceptOffer", "stageOffer, another", "declineOffer", "remove"], "\(b.kind)")
            // A copy into an empty library brings a log that ends after its passes.
            let empty = EitherFactory(b.kind)
            defer { empty.closeAll() }
            let copy = try empty.library()
            try copy.restore(try library.snapshot())
            XCTAssertEqual(try copy.passes(), try library.passes())
            XCTAssertEqual(try copy.lastSequence(), try library.lastSequence())
        }
    }

    func testChangesAfterReturnsOnlyLaterEntriesAndHonoursTheLimit() throws {
        eachBackend { b in
            let library = try b.library()
            for serial in 0..<10 { try library.add(Synthetic.record("\(serial)")) }
            XCTAssertEqual(try library.changes(after: 7).map(\.sequence), [8, 9, 10])
            XCTAssertEqual(try library.changes(after: 2, limit: 3).map(\.sequence), [3, 4, 5])
            XCTAssertEqual(try library.changes(after: 10), [])
            XCTAssertEqual(try library.changes(after: 0, limit: 0).count, 1)   // limit clamps to at least 1
        }
    }

    func testAFollowerInAnotherConnectionSeesNewEntries() throws {
        eachBackend { b in
            // Given a follower that read everything so far through its own connection
            let writer = try b.library()
            let follower = try b.library()
            try writer.add(Synthetic.record("1"))
            let seen = try follower.lastSequence()
            // When another connection writes
            try writer.stageOffer(Synthetic.record("2"))
            // Then the follower gets exactly the new entry
            XCTAssertEqual(try follower.changes(after: seen).map(\.kind), [.offer])
        }
    }

    /// What the web wallet asks on every request before serving a kept list or pass page: true
    /// only for the log's newest entry, by number and time, on both backends (SQLite answers it
    /// with one statement of its own, PostgreSQL from `changes(after:limit:)`).
    func testIsLatestChangeIsTrueOnlyForTheNewestEntryByNumberAndTime() throws {
        eachBackend { b in
            let library = try b.library()
            let other = try b.library()
            XCTAssertTrue(try library.isLatestChange(sequence: 0, at: nil), "\(b.kind): an empty log")
            XCTAssertFalse(try library.isLatestChange(sequence: 1, at: Date()), "\(b.kind)")
            try library.add(Synthetic.record("1"))
            try library.add(Synthetic.record("2"))
            let log = try library.changes(after: 0)
            let (first, last) = (try XCTUnwrap(log.first), try XCTUnwrap(log.last))
            XCTAssertTrue(try library.isLatestChange(sequence: last.sequence, at: last.at), "\(b.kind)")
            XCTAssertFalse(try library.isLatestChange(sequence: first.sequence, at: first.at), "\(b.kind): an older entry")
            XCTAssertFalse(try library.isLatestChange(sequence: last.sequence, at: last.at.addingTimeInterval(1)), "\(b.kind): another time")
            XCTAssertFalse(try library.isLatestChange(sequence: last.sequence, at: nil), "\(b.kind): no time")
            XCTAssertFalse(try library.isLatestChange(sequence: 0, at: nil), "\(b.kind): the log is not empty")
            XCTAssertFalse(try library.isLatestChange(sequence: last.sequence + 1, at: last.at), "\(b.kind): a number not yet given")
            // Written through another connection: the old newest entry is no longer the newest.
            try other.stageOffer(Synthetic.record("3"))
            XCTAssertFalse(try library.isLatestChange(sequence: last.sequence, at: last.at), "\(b.kind)")
            let newest = try XCTUnwrap(try library.changes(after: last.sequence).last)
            XCTAssertTrue(try library.isLatestChange(sequence: newest.sequence, at: newest.at), "\(b.kind)")
        }
    }

    func testEmptyLogHasSequenceZero() throws {
        eachBackend { b in
            XCTAssertEqual(try b.library().lastSequence(), 0)
        }
    }

    func testFailedWritesLeaveNoLogEntry() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.refused, try library.add(Synthetic.record("1", status: .invalid)))
            assertLibraryError(.notFound, try library.remove(PassID(passTypeIdentifier: "pass.x", serialNumber: "1")))
            XCTAssertEqual(try library.lastSequence(), 0)
        }
    }
}

final class ChangeFollowTests: XCTestCase {
    func testWaitForChangesReturnsAsSoonAsAnotherConnectionWrites() throws {
        eachBackend { b in
            // Given a follower waiting at the end of the log
            let follower = try b.library()
            let writer = try b.library()
            let start = try follower.lastSequence()
            // When another connection adds a pass 200 ms later
            let thread = Thread {
                usleep(200_000)
                _ = try? writer.add(Synthetic.record("1"))
            }
            thread.start()
            let began = Date()
            let entries = try follower.waitForChanges(after: start, timeout: 10, pollInterval: 0.02)
            // Then the follower wakes with that entry, long before its timeout
            XCTAssertEqual(entries.map(\.kind), [.add])
            XCTAssertLessThan(Date().timeIntervalSince(began), 5)
        }
    }

    func testWaitForChangesGivesUpEmptyAfterTheTimeout() throws {
        eachBackend { b in
            let library = try b.library()
            let began = Date()
            XCTAssertEqual(try library.waitForChanges(after: 0, timeout: 0.1, pollInterval: 0.02), [])
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(began), 0.1)
        }
    }
}
