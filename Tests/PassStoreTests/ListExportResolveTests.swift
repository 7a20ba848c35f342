import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

final class ListExportResolveTests: XCTestCase {
    func testPassesAreSortedByRelevantDateThenAddedTimeWithUndatedLast() throws {
        eachBackend { b in
            // Given passes added in this order, with these relevant dates
            let library = try b.library()
            let day: TimeInterval = 86_400
            let base = Date(timeIntervalSince1970: 1_800_000_000)
            try library.add(Synthetic.record("undated-1"))
            try library.add(Synthetic.record("day-3", relevant: base + 3 * day))
            try library.add(Synthetic.record("day-1-first", relevant: base + day))
            try library.add(Synthetic.record("undated-2"))
            try library.add(Synthetic.record("day-1-second", relevant: base + day))
            try library.add(Synthetic.record("day-2", relevant: base + 2 * day))
            // Then they list by relevant date, ties by added time, undated last in added order
            XCTAssertEqual(try library.passes().map(\.id.serialNumber),
                           ["day-1-first", "day-1-second", "day-2", "day-3", "undated-1", "undated-2"])
            XCTAssertEqual(try library.count(), 6)
        }
    }

    func testEmptyLibraryListsNothing() throws {
        eachBackend { b in
            XCTAssertEqual(try b.library().passes(), [])
        }
    }

    func testExportOfEachRealPassIsByteIdenticalToTheFile() throws {
        eachBackend { b in
            let library = try b.library()
            for record in [try Fixture.sata(), try Fixture.skyport()] {
                try library.add(record)
            }
            XCTAssertEqual(try library.export(try Fixture.sata().id), try Fixture.bytes("Kryst0r-Wallet__BoardingPass.pkpass"))
            XCTAssertEqual(try library.export(try Fixture.skyport().id), try Fixture.bytes("NSCoconut__BoardingPass.pkpass"))
        }
    }

    func testExportOfBytesDamagedInTheFileIsAnErrorNotWrongBytes() throws {
        let library = try makeLibrary(TempDir())
        let record = try Fixture.sata()
        try library.add(record)
        try library.dbQueue.write { db in
            try db.execute(sql: "UPDATE pass_blob SET bytes = zeroblob(27355)")
        }
        assertLibraryError(.notALibrary, try library.export(record.id))
        XCTAssertFalse(try library.check().isEmpty)
    }

    func testPassByTypeIdentifierAndSerialLikePassKit() throws {
        eachBackend { b in
            let library = try b.library()
            let stored = try library.add(try Fixture.skyport())
            XCTAssertEqual(try library.pass(typeIdentifier: "pass.com.sebastiandobrincu.BoardingPass", serial: "1234567"), stored)
            XCTAssertNil(try library.pass(typeIdentifier: "pass.com.sebastiandobrincu.BoardingPass", serial: "7654321"))
        }
    }

    func testPassOfAnAbsentIdIsNil() throws {
        eachBackend { b in
            XCTAssertNil(try b.library().pass(PassID(passTypeIdentifier: "pass.x", serialNumber: "1")))
        }
    }

    func testResolveTypeSlashSerialSplitsAtTheFirstSlash() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("pass.example.a", "2024/05/seat-1"))
            XCTAssertEqual(try library.resolve("pass.example.a/2024/05/seat-1"),
                           PassID(passTypeIdentifier: "pass.example.a", serialNumber: "2024/05/seat-1"))
            assertLibraryError(.notFound, try library.resolve("pass.example.a/2024"))
        }
    }

    func testResolveUniqueSHA256PrefixLikeGit() throws {
        eachBackend { b in
            let library = try b.library()
            let sata = try Fixture.sata()
            try library.add(sata)
            try library.add(try Fixture.skyport())
            XCTAssertEqual(try library.resolve("0fea"), sata.id)
            XCTAssertEqual(try library.resolve("0FEA1571"), sata.id)
            XCTAssertEqual(try library.resolve(" \(sata.sha256)\n"), sata.id)
            assertLibraryError(.notFound, try library.resolve("0fe"))          // shorter than 4 digits
            assertLibraryError(.notFound, try library.resolve("ffff"))         // matches nothing
            assertLibraryError(.notFound, try library.resolve("0fez"))         // not hex
            assertLibraryError(.notFound, try library.resolve(sata.sha256 + "0"))  // longer than a digest
        }
    }

    func testResolveOfAPrefixSharedByTwoPassesIsAmbiguousAndNamesThem() throws {
        eachBackend { b in
            // Given two passes whose digests share their first four hex digits (found by search)
            let library = try b.library()
            var byPrefix: [String: PassRecord] = [:]
            var pair: (PassRecord, PassRecord)?
            for serial in 0..<100_000 where pair == nil {
                let record = Synthetic.record("\(serial)", size: 32)
                let prefix = String(record.sha256.prefix(4))
                if let other = byPrefix[prefix] { pair = (other, record) } else { byPrefix[prefix] = record }
            }
            let (a, b) = try XCTUnwrap(pair)
            try library.add(a)
            try library.add(b)
            // When the shared prefix is resolved, it is ambiguous and both are named
            XCTAssertThrowsError(try library.resolve(String(a.sha256.prefix(4)))) { error in
                XCTAssertEqual((error as? LibraryError)?.kind, .ambiguousID)
                XCTAssertTrue("\(error)".contains(a.id.description) && "\(error)".contains(b.id.description), "\(error)")
            }
            // And a longer prefix tells them apart
            let common = zip(a.sha256, b.sha256).prefix { $0 == $1 }.count
            XCTAssertEqual(try library.resolve(String(a.sha256.prefix(common + 1))), a.id)
            XCTAssertEqual(try library.resolve(String(b.sha256.prefix(common + 1))), b.id)
        }
    }
}
