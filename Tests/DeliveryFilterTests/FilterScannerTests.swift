import Conduit
import Foundation
import GRDB
import PassStore
import PassStoreSQLite
import WalletPass
import XCTest
@testable import DeliveryFilter

/// The real scanner behind `passconduit filter` (PassScanner + PassLibrary + the filter policy)
/// on the sample messages, in-process through DeliveryFilter.
final class FilterScannerTests: XCTestCase {
    var dir: URL!

    override func setUp() {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-filterscanner-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    var options: FilterOptions {
        var o = FilterOptions()
        o.libraryPath = dir.appendingPathComponent("library.sqlite").path
        o.trustDirectories = [FilterCorpus.repositoryRoot.appendingPathComponent("Samples/ca/trust").path]
        return o
    }

    static func sample(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: FilterCorpus.repositoryRoot.appendingPathComponent("Samples/messages/\(name)")))
    }

    func run(_ message: [UInt8], options: FilterOptions? = nil) -> (String, FilterPlan) {
        let o = options ?? self.options
        let (out, plan) = DeliveryFilter(options: o).filter(message, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 30)) {
            FilterScanner(options: o, environment: ["HOME": "/nonexistent"], openLibrary: { try PassLibrary(path: $0, options: $1) })
        }
        XCTAssertNil(plan.error, "\(plan.error.map(String.init(describing:)) ?? "")")
        NothingLost.check(input: message, output: out)
        return (String(decoding: out ?? [], as: UTF8.self), plan)
    }

    func testALibraryThatCannotSayWhatItHoldsFailsTheScanInsteadOfLosingTheOffer() throws {
        // Given a library whose pass table another program has damaged (it opens, but cannot answer)
        let o = options
        _ = try PassLibrary(path: o.libraryPath!)
        try DatabaseQueue(path: o.libraryPath!).write { try $0.execute(sql: "ALTER TABLE pass RENAME TO pass_elsewhere") }
        // When a message with a new pass goes through the filter
        let message = try Self.sample("type.eml")
        let (out, plan) = DeliveryFilter(options: o).filter(message, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 30)) {
            FilterScanner(options: o, environment: ["HOME": "/nonexistent"], openLibrary: { try PassLibrary(path: $0, options: $1) })
        }
        // Then the scan fails with the library's reason (logged; 75 with --fail-closed) and the
        // message passes unchanged, rather than being announced as a pass the library lacks
        XCTAssertEqual(out, message)
        XCTAssertEqual(plan.error?.code, .libraryFailed)
        XCTAssertTrue(plan.error?.detail.contains("the library could not say") ?? false, "\(String(describing: plan.error))")
        XCTAssertEqual(plan.reports, [])
    }

    func testALibraryTooBusyToTakeTheOfferFailsTheScanInsteadOfLosingIt() throws {
        // Given a library another process holds the write lock of for the whole filter run
        var settings = options
        settings.deadlineSeconds = 1   // library waits: busy timeout 0.25 s, retries until 0.6 s
        let o = settings
        _ = try PassLibrary(path: o.libraryPath!)
        let holder = try DatabaseQueue(path: o.libraryPath!)
        let locked = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0)
        Thread {
            try? holder.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                release.wait()
                try db.execute(sql: "COMMIT")
            }
            released.signal()
        }.start()
        locked.wait()
        // When a message with a new pass goes through the filter (it can read, not write)
        let message = try Self.sample("type.eml")
        let (out, plan) = DeliveryFilter(options: o).filter(message, runner: FilterScanRunner(isolation: .inline, deadlineSeconds: 30)) {
            FilterScanner(options: o, environment: ["HOME": "/nonexistent"], openLibrary: { try PassLibrary(path: $0, options: $1) })
        }
        release.signal()
        released.wait()
        // Then the scan fails with the library's reason (logged; 75 with --fail-closed, so the host
        // retries) and the message passes unchanged, rather than announcing a pass with no offer
        XCTAssertEqual(out, message)
        XCTAssertEqual(plan.error?.code, .libraryFailed)
        XCTAssertTrue(plan.error?.detail.contains("could not take a pass") ?? false, "\(String(describing: plan.error))")
        XCTAssertTrue(plan.error?.detail.contains("locked") ?? false, "\(String(describing: plan.error))")
        XCTAssertEqual(try PassLibrary(path: o.libraryPath!).offers(), [])
    }

    func testNewPassIsOfferedAndAnnounced() throws {
        let (out, plan) = run(try Self.sample("type.eml"))
        XCTAssertTrue(out.hasPrefix("""
            X-Passconduit: 1 pass (1 new)
            X-Passconduit-Pass: valid; new; action=offered;
             type=pass.org.passconduit.event; serial=EVT-2026-0001;
             org="Passconduit Arena"
            From: 
            """), String(out.prefix(300)))
        XCTAssertEqual(plan.reports.map(\.action), [.offered])
        let library = try PassLibrary(path: options.libraryPath!)
        XCTAssertEqual(try library.offers().count, 1)
        XCTAssertEqual(try library.passes().count, 0)
    }

    func testNewerVersionReplacesTheStoredPass() throws {
        // Put v1 in the library the way a user would (accepting the filter's offer).
        _ = run(try Self.sample("type.eml"))
        let library = try PassLibrary(path: options.libraryPath!)
        let offer = try XCTUnwrap(try library.offers().first)
        let v1 = try XCTUnwrap(try Self.record(library.offerBytes(offer.offerID)))
        _ = try library.acceptOffer(offer.offerID, record: v1)

        let (out, plan) = run(try Self.sample("update.eml"))
        XCTAssertEqual(plan.reports.map(\.category), ["update"])
        XCTAssertEqual(plan.reports.map(\.action), [.updated])
        XCTAssertTrue(out.hasPrefix("X-Passconduit: 1 pass (1 update)\n"), String(out.prefix(200)))
        XCTAssertNotEqual(try library.pass(v1.id)?.sha256, v1.sha256)

        var noUpdates = options
        noUpdates.applyUpdates = false
        XCTAssertEqual(run(try Self.sample("update.eml"), options: noUpdates).1.reports.map(\.category), ["contained"])
    }

    func testInvalidAndUntrustedPassesAreAnnouncedButNeverStored() throws {
        let (bad, badPlan) = run(try Self.sample("invalid.eml"))
        XCTAssertTrue(bad.contains("X-Passconduit-Pass: invalid;"), String(bad.prefix(300)))
        XCTAssertEqual(badPlan.reports.first?.errorCode, "manifest-mismatch")
        let (_, untrusted) = run(try Self.sample("untrusted.eml"))
        XCTAssertEqual(untrusted.reports.map(\.status), [.untrusted])
        let library = try PassLibrary(path: options.libraryPath!)
        XCTAssertEqual(try library.offers().count, 0)
    }

    func testMessageWithoutCandidatesNeverOpensTheLibrary() throws {
        let (out, plan) = run(try Self.sample("no-pass.eml"))
        XCTAssertEqual(Array(out.utf8), try Self.sample("no-pass.eml"))
        XCTAssertEqual(plan.reports, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: options.libraryPath!), "the library was opened for a message without candidates")
    }

    func testEverySampleMessageComesThroughIntactAndIdempotent() throws {
        let dir = FilterCorpus.repositoryRoot.appendingPathComponent("Samples/messages")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".eml") }.sorted()
        XCTAssertGreaterThan(names.count, 10)
        var withHeaders = 0
        for name in names {
            let m = try Self.sample(name)
            let (out, _) = run(m)
            if Array(out.utf8) != m { withHeaders += 1 }
            XCTAssertEqual(run(Array(out.utf8)).0, out, "not idempotent: \(name)")
        }
        XCTAssertGreaterThan(withHeaders, 10)
    }

    static func record(_ bytes: [UInt8]) throws -> PassRecord? {
        let trust = try TrustStore.load(directories: [FilterCorpus.repositoryRoot.appendingPathComponent("Samples/ca/trust").path])
        let verdict = PassOpener(trust: trust).open(bytes)
        return PassRecordMapping.record(verdict: verdict, bytes: bytes, source: nil, receivedAt: Date())
    }
}
