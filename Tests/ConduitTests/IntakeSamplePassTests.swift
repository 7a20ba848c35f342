import Foundation
import XCTest
@testable import Conduit
import PassStore
import Support
import WalletPass

/// The intake policy for the user's `add` on real sample passes opened with the test CA (the
/// table of every origin is IntakeTests).
final class IntakeSamplePassTests: XCTestCase {
    func decide(_ found: FoundPass, allowUntrusted: Bool) -> Intake.Decision {
        Intake(.user(allowUntrusted: allowUntrusted)).decide(.init(found.verdict, record: found.record), state: found.library, stored: nil)
    }

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
        XCTAssertEqual(decide(try found("generic.pkpass", library: .new), allowUntrusted: false), .add)
    }

    func testContainedPassIsLeftAlone() throws {
        XCTAssertEqual(decide(try found("generic.pkpass", library: .contained), allowUntrusted: false), .nothing(.contained))
    }

    func testUpdateIsOfferedAsUpdate() throws {
        XCTAssertEqual(decide(try found("event-ticket-v2.pkpass", library: .update), allowUntrusted: false), .replace(askFirst: true))
    }

    func testStalePassIsRefused() throws {
        guard case .refuse(let code, _, _) = decide(try found("event-ticket.pkpass", library: .stale), allowUntrusted: false) else {
            return XCTFail("a stale pass must be refused")
        }
        XCTAssertEqual(code, .olderVersion)
    }

    func testInvalidPassIsRefusedWithItsUserMessage() throws {
        let pass = try found("bad-manifest-mismatch.pkpass", library: nil)
        guard case .refuse(_, let message, _) = decide(pass, allowUntrusted: true) else {
            return XCTFail("an invalid pass must be refused even with --allow-untrusted")
        }
        XCTAssertEqual(message, "Not added: " + (pass.verdict.error?.message ?? ""))
    }

    func testUntrustedPassNeedsPermission() throws {
        let pass = try found("bad-untrusted-signer.pkpass", library: .new)
        XCTAssertEqual(pass.verdict.status, .untrusted)
        XCTAssertNotEqual(decide(pass, allowUntrusted: false), .add)
        XCTAssertEqual(decide(pass, allowUntrusted: true), .add)
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
