import Foundation
import XCTest
@testable import Conduit
import PassStore
import WalletPass

final class AddDecisionTests: XCTestCase {
    /// A sample pass opened with the test CA as its anchor, as the scanner would report it.
    func found(_ pass: String, library: LibraryState?) throws -> FoundPass {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples")
        let opener = PassOpener(trust: try TrustStore.load(directories: [root.appendingPathComponent("ca/trust").path]))
        let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent("passes/" + pass)))
        let source = PassSourceInfo(input: pass)
        let verdict = opener.open(bytes)
        let record = PassRecordMapping.record(verdict: verdict, bytes: bytes, source: source, receivedAt: Date())
        return FoundPass(source: source, verdict: verdict, library: library, record: record)
    }

    func testNewValidPassIsAdded() throws {
        XCTAssertEqual(AddDecision.of(try found("generic.pkpass", library: .new), allowUntrusted: false), .add)
    }

    func testContainedPassIsLeftAlone() throws {
        XCTAssertEqual(AddDecision.of(try found("generic.pkpass", library: .contained), allowUntrusted: false), .alreadyContained)
    }

    func testUpdateIsOfferedAsUpdate() throws {
        XCTAssertEqual(AddDecision.of(try found("event-ticket-v2.pkpass", library: .update), allowUntrusted: false), .update)
    }

    func testStalePassIsRefused() throws {
        guard case .refuse(_, let status) = AddDecision.of(try found("event-ticket.pkpass", library: .stale), allowUntrusted: false) else {
            return XCTFail("a stale pass must be refused")
        }
        XCTAssertEqual(status, .dataError)
    }

    func testInvalidPassIsRefusedWithItsUserMessage() throws {
        let pass = try found("bad-manifest-mismatch.pkpass", library: nil)
        guard case .refuse(let message, _) = AddDecision.of(pass, allowUntrusted: true) else {
            return XCTFail("an invalid pass must be refused even with --allow-untrusted")
        }
        XCTAssertEqual(message, "Not added: " + (pass.verdict.error?.message ?? ""))
    }

    func testUntrustedPassNeedsPermission() throws {
        let pass = try found("bad-untrusted-signer.pkpass", library: .new)
        XCTAssertEqual(pass.verdict.status, .untrusted)
        XCTAssertNotEqual(AddDecision.of(pass, allowUntrusted: false), .add)
        XCTAssertEqual(AddDecision.of(pass, allowUntrusted: true), .add)
    }

    func testFieldChangeFillsChangeMessages() {
        let old = [StoredField(key: "gate", label: "Gate", value: "A1", changeMessage: "Gate changed to %@")]
        let new = [StoredField(key: "gate", label: "Gate", value: "B7", changeMessage: "Gate changed to %@"),
                   StoredField(key: "seat", label: "Seat", value: "12C")]
        let changes = FieldChange.between(old: old, new: new)
        XCTAssertEqual(changes.map(\.key), ["gate", "seat"])
        XCTAssertEqual(changes.first?.message, "Gate changed to B7")
        XCTAssertNil(changes.last?.oldValue)
    }
}
