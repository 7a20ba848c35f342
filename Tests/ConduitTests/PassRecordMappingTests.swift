import Foundation
import Support
import XCTest
@testable import Conduit
import PassStore
import PassStoreSQLite
import WalletPass

final class PassRecordMappingTests: XCTestCase {
    /// The record kept every field group but `additionalInfoFields`, so an update that changed only
    /// a field there showed "changes no field you can see" and the library logged nothing.
    func testAChangeInAdditionalInfoFieldsShowsInTheUpdateDiff() throws {
        let trust = try TrustStore.load(directories: [Samples.path("ca/trust")])
        let verdict = PassOpener(trust: trust).open(try Samples.bytes("passes/generic.pkpass"))
        var info = try XCTUnwrap(verdict.pass)
        var field = try XCTUnwrap(info.allFields.first)
        field.key = "member-since"
        field.label = "Member since"
        field.changeMessage = nil

        func record(_ value: String) throws -> PassRecord {
            field.value = value
            info.additionalInfoFields = [field]
            var v = verdict
            v.pass = info
            return try XCTUnwrap(PassRecordMapping.record(verdict: v, bytes: [], source: nil, receivedAt: Date(timeIntervalSince1970: 0)))
        }
        let old = try record("2020"), new = try record("2021")
        XCTAssertTrue(new.fields.contains { $0.key == "member-since" && $0.value == "2021" })
        let changes = FieldChange.between(old: old.fields, new: new.fields)
        XCTAssertEqual(changes.map(\.key), ["member-since"])
        XCTAssertEqual(changes.first?.oldValue, "2020")
        XCTAssertEqual(changes.first?.newValue, "2021")
    }

    func testEveryFieldGroupReachesTheRecordInDisplayOrder() throws {
        let trust = try TrustStore.load(directories: [Samples.path("ca/trust")])
        var info = try XCTUnwrap(PassOpener(trust: trust).open(try Samples.bytes("passes/generic.pkpass")).pass)
        let template = try XCTUnwrap(info.allFields.first)
        func field(_ key: String) -> PassField { var f = template; f.key = key; return f }
        info.headerFields = [field("h")]; info.primaryFields = [field("p")]; info.secondaryFields = [field("s")]
        info.auxiliaryFields = [field("a")]; info.backFields = [field("b")]; info.additionalInfoFields = [field("i")]
        let verdict = PassVerdict(status: .valid, error: nil, pass: info, notes: [], sha256: "")
        let record = try XCTUnwrap(PassRecordMapping.record(verdict: verdict, bytes: [], source: nil, receivedAt: Date(timeIntervalSince1970: 0)))
        XCTAssertEqual(record.fields.map(\.key), ["h", "p", "s", "a", "b", "i"])
    }
    /// The record's fields are made when the library stores them: asking `contains` and staging
    /// an offer (all the delivery filter does with a new pass) never render them, so the filter
    /// does not look up the device's time zone (issue 14). Stored, they are the shown fields.
    func testALookupAndAnOfferLeaveTheFieldsUnrendered() throws {
        let trust = try TrustStore.load(directories: [Samples.path("ca/trust")])
        let bytes = try Samples.bytes("passes/event-ticket.pkpass")
        let verdict = PassOpener(trust: trust).open(bytes)
        XCTAssertEqual(verdict.status, .valid)
        let record = try XCTUnwrap(PassRecordMapping.record(verdict: verdict, bytes: bytes, source: nil,
                                                            receivedAt: Date(timeIntervalSince1970: 0)))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let library = try PassLibrary(path: dir.appendingPathComponent("library.sqlite").path)
        XCTAssertEqual(try library.contains(record), .new)
        try library.stageOffer(record)
        XCTAssertFalse(record.deferredFields.isComputed)
        let stored = try library.add(record)
        XCTAssertTrue(record.deferredFields.isComputed)
        let info = try XCTUnwrap(verdict.pass)
        XCTAssertEqual(stored.fields, info.allFields.map {
            StoredField(key: $0.key, label: $0.label, value: $0.value, changeMessage: $0.changeMessage)
        })
        XCTAssertEqual(stored.fields.first?.key, "date")
    }

    /// A scanned pass's record carries the opener's hash of its very bytes (issue 14: hashed once).
    func testAScannedPassRecordHoldsTheOpenersHashOfItsBytes() throws {
        let bytes = try Samples.bytes("passes/event-ticket.pkpass")
        let found = try Samples.scanner().scanPassBytes(bytes, kind: .pass, source: PassSourceInfo(input: "event-ticket.pkpass"))
        let record = try XCTUnwrap(found.first?.record)
        XCTAssertEqual(record.sha256, Digest.sha256Hex(bytes))
        XCTAssertEqual(record.bytes, bytes)
        XCTAssertEqual(found.first?.verdict.sha256, record.sha256, "the verdict's and the record's digest are one hash")
    }
}
