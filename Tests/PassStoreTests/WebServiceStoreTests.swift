import Foundation
import GRDB
import XCTest
@testable import PassStore
@testable import PassStoreSQLite

/// Issue 12's library side: field changes in the change log, the web-service state, the device
/// id, registrations and tags, and the v1 → v2 migration.
final class WebServiceStoreTests: XCTestCase {
    private let id = PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "1")

    func testReplaceLogsItsFieldChangesAndALogReaderGetsThem() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1", version: 1, fields: [StoredField(key: "gate", label: "Gate", value: "A1", changeMessage: "Gate changed to %@")]))
            try library.replace(with: Synthetic.record("1", version: 2, fields: [StoredField(key: "gate", label: "Gate", value: "B22", changeMessage: "Gate changed to %@")]))
            let entries = try library.changes(after: 0)
            XCTAssertEqual(entries.map(\.kind), [.add, .replace])
            XCTAssertEqual(entries[0].changes, [])
            XCTAssertEqual(entries[1].changes, [FieldChange(key: "gate", label: "Gate", oldValue: "A1", newValue: "B22", message: "Gate changed to B22")])
            // The same bytes again: nothing replaced, nothing logged.
            XCTAssertNil(try library.replaceIfChanged(with: Synthetic.record("1", version: 2, fields: [StoredField(key: "gate", label: "Gate", value: "B22", changeMessage: "Gate changed to %@")])))
            XCTAssertEqual(try library.changes(after: 0).count, 2)
            assertSound(library)
        }
    }

    func testStateIsSavedOnlyForTheVersionItDescribes() throws {
        eachBackend { b in
            let library = try b.library()
            let stored = try library.add(Synthetic.record("1", version: 1))
            let state = WebServiceState(id: id, sha256: stored.sha256, webServiceURL: "https://x.example/", authenticationToken: "t",
                                        lastModified: "Wed, 25 Nov 2026 00:00:00 GMT", etag: "\"e\"", checkedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                        outcome: "unchanged", http: 304)
            var stale = state
            stale.id = PassID(passTypeIdentifier: "pass.example.synthetic", serialNumber: "gone")
            var otherVersion = state
            otherVersion.sha256 = String(repeating: "0", count: 64)
            try library.saveWebServiceStates([state, stale])
            XCTAssertEqual(try library.webServiceStates(), [id: state])
            try library.saveWebServiceStates([otherVersion])
            XCTAssertEqual(try library.webServiceState(id), state, "a state of another version is dropped")
            try library.remove(id)
            XCTAssertNil(try library.webServiceState(id))
        }
    }

    func testDeviceIdIsRandomAndKeptRegistrationsAndTagsRoundTrip() throws {
        eachBackend { b in
            let library = try b.library()
            let device = try library.deviceLibraryIdentifier()
            XCTAssertEqual(device.count, 32)
            XCTAssertEqual(try library.deviceLibraryIdentifier(), device)
            let another = EitherFactory(b.kind)   // another library on the same backend
            defer { another.closeAll() }
            XCTAssertNotEqual(try another.library().deviceLibraryIdentifier(), device)
            let r = WebServiceRegistration(id: id, webServiceURL: "https://x.example/p", authenticationToken: "t", registeredAt: Date(timeIntervalSince1970: 1_800_000_000))
            try library.saveRegistration(r)
            XCTAssertEqual(try library.registrations(), [r])
            try library.deleteRegistration(id)
            XCTAssertEqual(try library.registrations(), [])
            XCTAssertNil(try library.updateTag(webServiceURL: "u", passTypeIdentifier: "t"))
            try library.setUpdateTag("2026-11-23T19:45:45.518596+00:00", webServiceURL: "u", passTypeIdentifier: "t")
            XCTAssertEqual(try library.updateTag(webServiceURL: "u", passTypeIdentifier: "t"), "2026-11-23T19:45:45.518596+00:00")
            try library.setUpdateTag(nil, webServiceURL: "u", passTypeIdentifier: "t")
            XCTAssertNil(try library.updateTag(webServiceURL: "u", passTypeIdentifier: "t"))
        }
    }

    /// v7 makes notice_sent anew to take the chat channel: a library of schema 6 keeps its
    /// notices and their claims, and then takes a chat claim.
    func testAVersion6LibraryKeepsItsNoticeClaimsAndTakesAChatClaim() throws {
        let dir = TempDir()
        try LibraryFile.ensureFolder(of: dir.library)
        do {
            let queue = try DatabaseQueue(path: dir.library)
            try LibrarySchema.migrator.migrate(queue, upTo: "v6-notices")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO notice (passTypeIdentifier, serialNumber, kind, text, dueAt, eventAt, createdAt)
                    VALUES ('pass.example.synthetic', '1', 'changed', 'Gate changed to G2', 10, NULL, 10);
                    INSERT INTO notice_sent (notice, channel, sentAt) VALUES (1, 'mail', 11), (1, 'web', 12)
                    """)
            }
        }
        let library = try makeLibrary(dir)
        let notices = try library.notices(since: Date(timeIntervalSince1970: 0), limit: 10)
        XCTAssertEqual(notices.map(\.sent), [["mail", "web"]])
        XCTAssertEqual(notices.map(\.text), ["Gate changed to G2"])
        XCTAssertTrue(try library.claimNotice(1, channel: .chat))
        XCTAssertFalse(try library.claimNotice(1, channel: .mail))
        XCTAssertEqual(try library.notices(since: Date(timeIntervalSince1970: 0), limit: 10).first?.sent, ["mail", "web", "chat"])
        XCTAssertEqual(try library.dbQueue.read { try Int32.fetchOne($0, sql: "PRAGMA user_version") }, 7)
        XCTAssertEqual(try library.check(), [])
    }

    func testAVersion1LibraryIsMigratedWithItsPassesAndLog() throws {
        // Given a library made by the v1 schema only
        let dir = TempDir()
        try LibraryFile.ensureFolder(of: dir.library)
        do {
            let queue = try DatabaseQueue(path: dir.library)
            var v1 = DatabaseMigrator()
            v1.registerMigration("v1-passes-offers-changes") { db in try db.execute(sql: LibrarySchema.v1) }
            try v1.migrate(queue)
            try queue.write { db in
                try db.execute(sql: "INSERT INTO change_log (kind, passTypeIdentifier, serialNumber, sha256, at) VALUES ('decline', 'a', 'b', NULL, 0)")
            }
        }
        // When this build opens it
        let library = try makeLibrary(dir)
        // Then the old log is there, v2's tables work, v3 takes an unsigned pass, and the file says schema 7 (v4: share links, v6: notices, v7: notice settings)
        XCTAssertEqual(try library.changes(after: 0).map(\.kind), [.decline])
        try library.add(Synthetic.record("1", version: 1))
        try library.add(Synthetic.record("2", status: .unsigned), allowUntrusted: true)
        XCTAssertEqual(try library.passes().map(\.status), [.valid, .unsigned])
        XCTAssertEqual(try library.dbQueue.read { try Int32.fetchOne($0, sql: "PRAGMA user_version") }, 7)
        XCTAssertNoThrow(try library.deviceLibraryIdentifier())
    }
}
