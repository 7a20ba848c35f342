import Foundation
import Support
import XCTest
@testable import PassStore

final class AddTests: XCTestCase {
    func testAddStoresTheMetadataAndExportIsByteIdentical() throws {
        eachBackend { b in
            // Given a real pass
            let clock = SteppingClock(start: 1_750_000_000)
            let library = try b.library(clock: clock)
            let record = try Fixture.sata()
            // When it is added
            let stored = try library.add(record)
            // Then its metadata, source and fields are kept, and export gives back the same bytes
            XCTAssertEqual(stored.id, record.id)
            XCTAssertEqual(stored.sha256, "0fea1571c88a20dea147afa12bb0ddeaab7b41e037a672864cc01d54c74c03dd")
            XCTAssertEqual(stored.byteCount, 27355)
            XCTAssertEqual(stored.organizationName, "SATA")
            XCTAssertEqual(stored.description, "SATA Boarding Pass")
            XCTAssertEqual(stored.kind, "boardingPass")
            XCTAssertEqual(stored.teamIdentifier, "L7R69DBD7T")
            XCTAssertEqual(stored.status, .valid)
            XCTAssertEqual(stored.relevantDate, record.relevantDate)
            XCTAssertNil(stored.expirationDate)
            XCTAssertFalse(stored.voided)
            XCTAssertEqual(stored.signerSubject, record.signerSubject)
            XCTAssertEqual(stored.signingTime, record.signingTime)
            XCTAssertEqual(stored.fields, record.fields)
            XCTAssertEqual(stored.source, record.source)
            XCTAssertEqual(stored.addedAt, Date(timeIntervalSince1970: 1_750_000_001))
            XCTAssertEqual(stored.updatedAt, stored.addedAt)
            XCTAssertEqual(stored.previousVersions, 0)
            XCTAssertEqual(try library.export(record.id), record.bytes)
            assertSound(library)
        }
    }

    func testInvalidPassIsRefused() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.refused, try library.add(Synthetic.record("1", status: .invalid), allowUntrusted: true))
            XCTAssertEqual(try library.passes(), [])
            XCTAssertEqual(try library.changes(after: 0), [])
        }
    }

    func testUntrustedPassNeedsConsent() throws {
        eachBackend { b in
            let library = try b.library()
            let record = Synthetic.record("1", status: .untrusted)
            assertLibraryError(.refused, try library.add(record))
            XCTAssertEqual(try library.contains(record), .new)
            XCTAssertEqual(try library.add(record, allowUntrusted: true).status, .untrusted)
        }
    }

    /// A record's SHA-256 is made from its bytes when it is made (`HashedBytes`), so no record can
    /// carry a digest of other bytes; the library stores and reports that digest.
    func testARecordsDigestIsThatOfItsBytes() throws {
        eachBackend { b in
            let library = try b.library()
            let record = try Fixture.sata()
            XCTAssertEqual(record.sha256, Digest.sha256Hex(record.bytes))
            XCTAssertEqual(try library.add(record).sha256, Digest.sha256Hex(record.bytes))
            XCTAssertEqual(try library.export(record.id), record.bytes)
        }
    }

    func testPassLargerThanTheLimitIsRefused() throws {
        eachBackend { b in
            let library = try b.library() { $0.maxPassBytes = 10_000 }
            assertLibraryError(.refused, try library.add(Synthetic.record("big", size: 10_001)))
            XCTAssertNoThrow(try library.add(Synthetic.record("fits", size: 10_000)))
        }
    }

    func testIdentityWithoutSerialOrWithSlashInTypeIsRefused() throws {
        eachBackend { b in
            let library = try b.library()
            assertLibraryError(.refused, try library.add(Synthetic.record("pass.a", "")))
            assertLibraryError(.refused, try library.add(Synthetic.record("", "1")))
            assertLibraryError(.refused, try library.add(Synthetic.record("pass/a", "1")))
        }
    }

    func testAddingTheSameBytesAgainReturnsTheStoredPassAndLogsOnce() throws {
        eachBackend { b in
            let library = try b.library()
            let first = try library.add(try Fixture.sata())
            let second = try library.add(try Fixture.sata())
            XCTAssertEqual(first, second)
            XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.add])
        }
    }

    func testAddingOtherContentUnderAStoredIdIsExists() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1))
            assertLibraryError(.exists, try library.add(Synthetic.record("1", version: 2)))
            XCTAssertEqual(try library.pass(PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1"))?.description,
                           "Pass 1 v1")
        }
    }

    func testAddSettlesAPendingOfferOfTheSameBytes() throws {
        eachBackend { b in
            let library = try b.library()
            try library.stageOffer(try Fixture.sata())
            try library.add(try Fixture.sata())
            XCTAssertEqual(try library.offers(), [])
            assertSound(library)
        }
    }

    func testUnicodeIdentityAndTextRoundTrip() throws {
        eachBackend { b in
            let library = try b.library()
            var record = Synthetic.record("pass.example.ünï", "séríal/with slash 🎫")
            record.organizationName = "Café Zürich"
            record.fields = [StoredField(key: "name", label: "Név", value: "Árvíztűrő tükörfúrógép")]
            let stored = try library.add(record)
            XCTAssertEqual(stored.organizationName, "Café Zürich")
            XCTAssertEqual(stored.fields, record.fields)
            XCTAssertEqual(try library.resolve("pass.example.ünï/séríal/with slash 🎫"), record.id)
        }
    }
}
