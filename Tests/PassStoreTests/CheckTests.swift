import Foundation
import GRDB
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

/// `check()` is what the crash test trusts, so each kind of damage it looks for must show.
final class CheckTests: XCTestCase {
    private func damaged(_ sql: String) throws -> [String] {
        let library = try makeLibrary(TempDir())
        try library.add(Synthetic.record("1", version: 1))
        try library.replace(with: Synthetic.record("1", version: 2))
        try library.stageOffer(Synthetic.record("2"))
        XCTAssertEqual(try library.check(), [])
        try library.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: sql)
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        return try library.check()
    }

    func testAWriteWithoutItsLogEntryIsFound() throws {
        let problems = try damaged("DELETE FROM change_log WHERE kind = 'replace'")
        XCTAssertTrue(problems.contains { $0.contains("but the change log says") }, "\(problems)")
    }

    func testALoggedPassThatIsMissingIsFound() throws {
        let problems = try damaged("DELETE FROM pass")
        XCTAssertTrue(problems.contains { $0.contains("is in the change log but not in the library") }, "\(problems)")
    }

    func testAnOfferTheLogNeverOfferedIsFound() throws {
        let problems = try damaged("DELETE FROM change_log WHERE kind = 'offer'")
        XCTAssertTrue(problems.contains { $0.contains("not what the change log last offered") }, "\(problems)")
    }

    func testBytesThatNoLongerHashToTheirDigestAreFound() throws {
        let problems = try damaged("UPDATE pass_blob SET bytes = x'00'")
        XCTAssertTrue(problems.contains { $0.contains("does not hash to its SHA-256") }, "\(problems)")
    }

    func testUnusedBytesAndDanglingReferencesAreFound() throws {
        let problems = try damaged("INSERT INTO pass_blob VALUES ('\(String(repeating: "a", count: 64))', x'01'); DELETE FROM pass_blob WHERE sha256 IN (SELECT sha256 FROM offer)")
        XCTAssertTrue(problems.contains { $0.contains("used by nothing") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("foreign_key_check") }, "\(problems)")
    }

    func testVersionsBeyondTheLimitOrWithoutAPassAreFound() throws {
        let problems = try damaged("""
            INSERT INTO pass_version SELECT NULL, passTypeIdentifier, 'gone', teamIdentifier, status, sha256, byteCount,
              organizationName, description, kind, relevantDate, expirationDate, voided, signerSubject, signingTime, fields,
              sourceMessageID, sourceSubject, sourceFile, sourceReceivedAt, addedAt, updatedAt, 0, NULL, NULL, NULL, NULL FROM pass;
            INSERT INTO pass_version SELECT NULL, passTypeIdentifier, serialNumber, teamIdentifier, status, sha256, byteCount,
              organizationName, description, kind, relevantDate, expirationDate, voided, signerSubject, signingTime, fields,
              sourceMessageID, sourceSubject, sourceFile, sourceReceivedAt, addedAt, updatedAt, 0, NULL, NULL, NULL, NULL FROM pass, (SELECT 1 UNION SELECT 2 UNION SELECT 3);
            """)
        XCTAssertTrue(problems.contains { $0.contains("keeps 4 versions") }, "\(problems)")
        XCTAssertTrue(problems.contains { $0.contains("belong to no pass") }, "\(problems)")
    }

    func testAStatusTheLibraryDoesNotKnowIsNamedRatherThanShown() throws {
        // Given a library whose pass and offer rows were given statuses no passconduit writes
        // (SQLite's CHECK switched off, as a damaged or hand-edited file may have them)
        let library = try makeLibrary(TempDir())
        try library.add(Synthetic.record("1"))
        try library.stageOffer(Synthetic.record("2"))
        try library.dbQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            try db.execute(sql: "UPDATE pass SET status = 'forged'")
            try db.execute(sql: "UPDATE offer SET status = 'unsigned'")
            try db.execute(sql: "PRAGMA ignore_check_constraints = OFF")
        }
        // Then reading them is an error that names the status, not a pass or an offer that says it
        XCTAssertThrowsError(try library.passes()) { error in
            XCTAssertEqual((error as? LibraryError)?.kind, .notALibrary, "\(error)")
            XCTAssertTrue("\(error)".contains("unknown status “forged”"), "\(error)")
        }
        XCTAssertThrowsError(try library.offers()) { error in
            XCTAssertEqual((error as? LibraryError)?.kind, .notALibrary, "\(error)")
            XCTAssertTrue("\(error)".contains("unknown status “unsigned”"), "\(error)")
        }
    }
}
