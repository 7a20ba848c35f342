import Foundation
import XCTest
@testable import PassStore

final class ContainsTests: XCTestCase {
    func testUnknownIdIsNew() throws {
        eachBackend { b in
            let library = try b.library()
            XCTAssertEqual(try library.contains(try Fixture.sata()), .new)
        }
    }

    func testSameIdAndSameBytesIsContained() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(try Fixture.sata())
            XCTAssertEqual(try library.contains(try Fixture.sata()), .contained)
        }
    }

    func testDifferentContentSignedLaterIsUpdate() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1))
            XCTAssertEqual(try library.contains(Synthetic.record("1", version: 2)), .update)
        }
    }

    func testDifferentContentSignedEarlierIsStale() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 2))
            XCTAssertEqual(try library.contains(Synthetic.record("1", version: 1)), .stale)
        }
    }

    func testIncomingPassWithoutSigningTimeIsUpdate() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 2))
            XCTAssertEqual(try library.contains(Synthetic.record("1", version: 1, withoutSigningTime: true)), .update)
        }
    }

    func testStoredPassWithoutSigningTimeMakesAnyNewContentAnUpdate() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 2, withoutSigningTime: true))
            XCTAssertEqual(try library.contains(Synthetic.record("1", version: 1)), .update)
        }
    }

    func testDifferentContentSignedAtTheSameInstantIsUpdateNotStale() throws {
        eachBackend { b in
            let library = try b.library()
            let instant = Date(timeIntervalSince1970: 1_700_000_000)
            try library.add(Synthetic.record("1", version: 1, signed: instant))
            XCTAssertEqual(try library.contains(Synthetic.record("1", version: 2, signed: instant)), .update)
        }
    }

    func testSameSerialUnderAnotherPassTypeIsNew() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("pass.a", "1"))
            XCTAssertEqual(try library.contains(Synthetic.record("pass.b", "1")), .new)
        }
    }
}
