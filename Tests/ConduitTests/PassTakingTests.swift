import Foundation
import XCTest
@testable import Conduit
import PassStore
import PassStorePostgres
import PassStoreSQLite
import PostgresTestKit
import WalletPass

/// Issue 39 item 5: the one way a person's pass is taken (`add`, the web upload, the offer
/// buttons), on real sample passes and a real library on each backend: decided by the intake
/// policy, written by the race-safe calls, so a pass stored by someone else between the plan and
/// the write is "already", never "added" twice.
final class PassTakingTests: XCTestCase {
    func libraries() async throws -> [(String, any PassLibraryBackend)] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pc-taking-\(UUID().uuidString).sqlite").path
        addTeardownBlock { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let server = try PostgresTestServer.shared
        var options = LibraryOptions()
        options.user = "taking@example.org"
        let postgres = try await PostgresLibrary.open(server.location(database: try server.database()), options: options)
        return [("SQLite", try PassLibrary(path: path)), ("PostgreSQL", postgres)]
    }

    func arrival(_ sample: String) throws -> (PassVerdict, PassRecord?) {
        let trust = try TrustStore.load(directories: [Samples.path("ca/trust")])
        let bytes = try Samples.bytes("passes/" + sample)
        let verdict = PassOpener(trust: trust).open(bytes)
        let record = PassRecordMapping.record(verdict: verdict, bytes: bytes, source: PassSourceInfo(input: sample), receivedAt: Date())
        return (verdict, record)
    }

    func testANewPassIsAddedOnceAndAnUpdateReplacesOnceWhateverTheRace() async throws {
        for (kind, library) in try await libraries() {
            let taking = PassTaking(library: library, intake: Intake(.user(allowUntrusted: false)))
            let (verdict, record) = try arrival("event-ticket.pkpass")
            // Two requests plan the same pass before either writes (two tabs, a double tap).
            let first = try await taking.plan(verdict, record: record)
            let second = try await taking.plan(verdict, record: record)
            XCTAssertEqual(first.decision, .add, kind)
            XCTAssertEqual(first.state, .new, kind)
            guard case .added(let stored) = try await taking.take(first) else { return XCTFail(kind) }
            XCTAssertEqual(stored.sha256, record?.sha256, kind)
            let raced = try await taking.take(second)
            XCTAssertEqual(raced, .already, "the second write finds it stored: not added twice, \(kind)")
            let count = try await library.count()
            XCTAssertEqual(count, 1, kind)
            // The same bytes again: nothing to do.
            let again = try await taking.plan(verdict, record: record)
            XCTAssertEqual(again.decision, .nothing(.contained), kind)

            // A newer version: a replacement the person is asked about, with what it changes.
            let (newer, newRecord) = try arrival("event-ticket-v2.pkpass")
            let update = try await taking.plan(newer, record: newRecord)
            let updateRaced = try await taking.plan(newer, record: newRecord)
            XCTAssertEqual(update.decision, .replace(askFirst: true), kind)
            XCTAssertEqual(update.stored?.sha256, record?.sha256, kind)
            XCTAssertFalse(update.changes.isEmpty, "the person sees what changes, \(kind)")
            let taken = try await taking.take(update)
            XCTAssertEqual(taken, .updated(sha256: newRecord!.sha256, stored: nil), kind)
            let racedUpdate = try await taking.take(updateRaced)
            XCTAssertEqual(racedUpdate, .already, kind)
            // The older version is refused now, and nothing is written.
            let older = try await taking.plan(verdict, record: record)
            guard case .refuse(let code, _, _) = older.decision else { return XCTFail("\(older.decision) \(kind)") }
            XCTAssertEqual(code, .olderVersion, kind)
            let refused = try await taking.take(older)
            XCTAssertEqual(refused, .refused, kind)
            let current = try await library.pass(newRecord!.id)
            XCTAssertEqual(current?.sha256, newRecord?.sha256, kind)
            await library.close()
        }
    }

    func testAnInvalidPassIsRefusedAndAStagedOfferIsAcceptedOrDeclined() async throws {
        for (kind, library) in try await libraries() {
            let taking = PassTaking(library: library, intake: Intake(.user(allowUntrusted: false)))
            let (bad, badRecord) = try arrival("bad-encrypted.pkpass")
            let plan = try await taking.plan(bad, record: badRecord)
            guard case .refuse = plan.decision else { return XCTFail("\(plan.decision) \(kind)") }
            XCTAssertNil(plan.state, "an invalid pass has no place in a library, \(kind)")
            let refused = try await taking.take(plan)
            XCTAssertEqual(refused, .refused, kind)

            // An offer staged (as the filter or a chat bot does), then accepted: written with the
            // offer settled in the same transaction.
            let (verdict, record) = try arrival("coupon.pkpass")
            let found = FoundPass(source: PassSourceInfo(input: "coupon.pkpass"), verdict: verdict, library: nil, record: record)
            guard case .staged(let offer, _) = try await OfferIntake.stage(found, chat: nil, library: library) else { return XCTFail(kind) }
            let accept = try await taking.plan(verdict, record: record)
            guard case .added(let stored) = try await taking.take(accept, offerID: offer.offerID) else { return XCTFail(kind) }
            XCTAssertEqual(stored.sha256, record?.sha256, kind)
            let pending = try await library.offers()
            XCTAssertEqual(pending.count, 0, kind)
            // An offer whose pass someone else added meanwhile (another window, `add`): the
            // library settled it with that write, and taking it is refused by the library (the
            // web's offer buttons say "settled a moment ago"), writing nothing.
            let (store, storeRecord) = try arrival("store-card.pkpass")
            let storeFound = FoundPass(source: PassSourceInfo(input: "store-card.pkpass"), verdict: store, library: nil, record: storeRecord)
            guard case .staged(let second, _) = try await OfferIntake.stage(storeFound, chat: nil, library: library) else { return XCTFail(kind) }
            let stale = try await taking.plan(store, record: storeRecord)
            _ = try await library.add(storeRecord!, allowUntrusted: false)
            let left = try await library.offers()
            XCTAssertEqual(left.count, 0, "settled by the add, \(kind)")
            do {
                let taken = try await taking.take(stale, offerID: second.offerID)
                XCTFail("\(taken) \(kind)")
            } catch let error as LibraryError {
                XCTAssertTrue(error.message.contains("no pending offer"), "\(error.message) \(kind)")
            }
            let count = try await library.count()
            XCTAssertEqual(count, 2, kind)
            await library.close()
        }
    }
}
