import Foundation
import Support
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

final class OfferTests: XCTestCase {
    func testStagedOfferIsListedWithItsSourceAndBytes() throws {
        eachBackend { b in
            let clock = SteppingClock(start: 1_750_000_000)
            let library = try b.library(clock: clock)
            let record = try Fixture.sata()
            let offer = try library.stageOffer(record)
            XCTAssertEqual(offer.passID, record.id)
            XCTAssertEqual(offer.sha256, record.sha256)
            XCTAssertEqual(offer.organizationName, "SATA")
            XCTAssertEqual(offer.description, "SATA Boarding Pass")
            XCTAssertEqual(offer.kind, "boardingPass")
            XCTAssertEqual(offer.source, record.source)
            XCTAssertEqual(offer.createdAt, Date(timeIntervalSince1970: 1_750_000_001))
            XCTAssertEqual(try library.offers(), [offer])
            XCTAssertEqual(try library.offer(offer.offerID), offer)
            XCTAssertEqual(try library.offerBytes(offer.offerID), record.bytes)
            XCTAssertEqual(try library.contains(record), .new)    // an offer is not in the library
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.offer])
        }
    }

    /// Issue 42 item 3: a pass a bot handed over keeps the network, room, event and sender it was
    /// sent with: on the offer, on the pass once accepted, on its earlier version after an update
    /// (revert brings it back), and in a copy of the library.
    func testChatProvenanceTravelsFromOfferToPassToVersionAndCopy() throws {
        eachBackend { b in
            let library = try b.library()
            let chat = PassSource(file: "ticket.pkpass", receivedAt: Date(timeIntervalSince1970: 1_800_000_000), network: "matrix",
                                  room: "!abc:example.org", eventID: "$xyz", sender: "@alice:example.org")
            var v1 = Synthetic.record("1", version: 1)
            v1.source = chat
            let offer = try library.stageOffer(v1)
            XCTAssertEqual(offer.source, chat, "\(b.kind)")
            XCTAssertEqual(try library.offers().first?.source, chat, "\(b.kind)")
            let stored = try library.acceptOffer(offer.offerID, record: v1)
            XCTAssertEqual(stored.source, chat, "\(b.kind)")
            XCTAssertEqual(try library.pass(v1.id)?.source, chat, "\(b.kind)")
            // A mail update replaces it: the chat provenance moves to the kept version and comes back on revert.
            var v2 = Synthetic.record("1", version: 2)
            v2.source = PassSource(messageID: "<m@example.org>", subject: "Your ticket", receivedAt: Date(timeIntervalSince1970: 1_800_000_500))
            try library.replace(with: v2)
            XCTAssertEqual(try library.pass(v1.id)?.source, v2.source, "\(b.kind)")
            XCTAssertEqual(try library.pass(v1.id)?.source?.isChat, false, "\(b.kind)")
            XCTAssertEqual(try library.snapshot().versions.map(\.pass.source), [chat], "\(b.kind)")
            XCTAssertEqual(try library.revert(v1.id).source, chat, "\(b.kind)")
            // A mail offer next to it says nothing of chat.
            var mail = Synthetic.record("2")
            mail.source = PassSource(messageID: "<n@example.org>", subject: "Another", receivedAt: Date(timeIntervalSince1970: 1_800_000_600))
            let mailOffer = try library.stageOffer(mail)
            XCTAssertEqual(mailOffer.source, mail.source, "\(b.kind)")
            XCTAssertNil(mailOffer.source?.sender, "\(b.kind)")
            let empty = EitherFactory(b.kind)
            defer { empty.closeAll() }
            let copy = try empty.library()
            try copy.restore(try library.snapshot())
            XCTAssertEqual(try copy.pass(v1.id)?.source, chat, "\(b.kind)")
            XCTAssertEqual(try copy.offers().map(\.source), [mail.source], "\(b.kind)")
            assertSound(library)
        }
    }

    func testTheSamePassOfferedTwiceIsOneOffer() throws {
        eachBackend { b in
            let library = try b.library()
            let first = try library.stageOffer(try Fixture.sata())
            let second = try library.stageOffer(try Fixture.sata())
            XCTAssertEqual(first, second)
            XCTAssertEqual(try library.offers().count, 1)
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.offer])
        }
    }

    func testANewerVersionReplacesThePendingOfferAndAnOlderOneDoesNot() throws {
        eachBackend { b in
            let library = try b.library()
            let first = try library.stageOffer(Synthetic.record("1", version: 2))
            let older = try library.stageOffer(Synthetic.record("1", version: 1))
            XCTAssertEqual(older, first)
            let newer = try library.stageOffer(Synthetic.record("1", version: 3))
            XCTAssertEqual(newer.offerID, first.offerID)
            XCTAssertEqual(newer.sha256, Synthetic.record("1", version: 3).sha256)
            XCTAssertEqual(try library.offers(), [newer])
            XCTAssertEqual(try library.offerBytes(newer.offerID), Synthetic.record("1", version: 3).bytes)
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.offer, .offer])
            assertSound(library)   // the bytes of version 2 are gone
        }
    }

    func testInvalidPassIsNeverOfferedButUntrustedIs() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.refused, try library.stageOffer(Synthetic.record("1", status: .invalid)))
            XCTAssertEqual(try library.stageOffer(Synthetic.record("2", status: .untrusted)).status, .untrusted)
        }
    }

    func testAcceptAddsThePassAndSettlesTheOffer() throws {
        eachBackend { b in
            // Given a staged offer
            let library = try b.library()
            let record = try Fixture.sata()
            let offer = try library.stageOffer(record)
            // When the user accepts it with the pass opened again from the offer's bytes
            var reopened = record
            reopened.hashed = HashedBytes(try library.offerBytes(offer.offerID))
            let stored = try library.acceptOffer(offer.offerID, record: reopened)
            // Then the pass is in the library, the offer is gone, and the log says offer then add
            XCTAssertEqual(stored.sha256, record.sha256)
            XCTAssertEqual(try library.contains(record), .contained)
            XCTAssertEqual(try library.offers(), [])
            assertLibraryError(.notFound, try library.offerBytes(offer.offerID))
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.offer, .add])
            assertSound(library)
        }
    }

    func testAcceptOfAnUpdateReplacesTheStoredPass() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1))
            let offer = try library.stageOffer(Synthetic.record("1", version: 2))
            let stored = try library.acceptOffer(offer.offerID, record: Synthetic.record("1", version: 2))
            XCTAssertEqual(stored.sha256, Synthetic.record("1", version: 2).sha256)
            XCTAssertEqual(stored.previousVersions, 1)
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.add, .offer, .replace])
            assertSound(library)
        }
    }

    func testAcceptOfAStaleOfferIsRefusedAndTheOfferStays() throws {
        eachBackend { b in
            let library = try b.library()
            let offer = try library.stageOffer(Synthetic.record("1", version: 1))
            try library.add(Synthetic.record("1", version: 2))
            assertLibraryError(.refused, try library.acceptOffer(offer.offerID, record: Synthetic.record("1", version: 1)))
            XCTAssertEqual(try library.offers().map(\.offerID), [offer.offerID])
            XCTAssertEqual(try library.pass(offer.passID)?.sha256, Synthetic.record("1", version: 2).sha256)
        }
    }

    func testAcceptWithAnotherPassThanTheOfferedOneIsRefused() throws {
        eachBackend { b in
            let library = try b.library()
            let offer = try library.stageOffer(Synthetic.record("1", version: 1))
            assertLibraryError(.refused, try library.acceptOffer(offer.offerID, record: Synthetic.record("1", version: 2)))
            assertLibraryError(.refused, try library.acceptOffer(offer.offerID, record: Synthetic.record("2", version: 1)))
            XCTAssertEqual(try library.passes(), [])
        }
    }

    func testAcceptOfAnUntrustedOfferNeedsConsent() throws {
        eachBackend { b in
            let library = try b.library()
            let record = Synthetic.record("1", status: .untrusted)
            let offer = try library.stageOffer(record)
            assertLibraryError(.refused, try library.acceptOffer(offer.offerID, record: record))
            XCTAssertEqual(try library.acceptOffer(offer.offerID, record: record, allowUntrusted: true).status, .untrusted)
        }
    }

    func testDeclineRemovesTheOfferAndItsBytesAndIsLogged() throws {
        let library = try makeLibrary(TempDir())
        let offer = try library.stageOffer(try Fixture.sata())
        try library.declineOffer(offer.offerID)
        XCTAssertEqual(try library.offers(), [])
        XCTAssertEqual(try library.dbQueue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM pass_blob") }, 0)
        let log = try library.changes(after: 0)
        XCTAssertEqual(log.map(\.kind), [.offer, .decline])
        XCTAssertEqual(log.last?.sha256, offer.sha256)
        assertLibraryError(.notFound, try library.declineOffer(offer.offerID))
        assertLibraryError(.notFound, try library.acceptOffer(offer.offerID, record: try Fixture.sata()))
    }

    func testOfferIDsAreNeverReused() throws {
        eachBackend { b in
            let library = try b.library()
            let first = try library.stageOffer(Synthetic.record("1"))
            try library.declineOffer(first.offerID)
            let second = try library.stageOffer(Synthetic.record("1"))
            XCTAssertGreaterThan(second.offerID, first.offerID)
        }
    }

    func testDecliningAnOfferKeepsBytesAStoredPassShares() throws {
        let library = try makeLibrary(TempDir())
        let offer = try library.stageOffer(Synthetic.record("1"))
        try library.dbQueue.write { db in   // the same bytes stored as a pass under the same id meanwhile
            try db.execute(sql: "UPDATE offer SET serialNumber = 'other' WHERE id = ?", arguments: [offer.offerID])
        }
        try library.add(Synthetic.record("1"))
        try library.declineOffer(offer.offerID)
        XCTAssertEqual(try library.export(PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1")),
                       Synthetic.record("1").bytes)
    }

    func testOffersAreListedOldestFirst() throws {
        eachBackend { b in
            let library = try b.library()
            for serial in ["c", "a", "b"] { try library.stageOffer(Synthetic.record(serial)) }
            XCTAssertEqual(try library.offers().map(\.passID.serialNumber), ["c", "a", "b"])
        }
    }
}
