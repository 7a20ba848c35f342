import NIOCore
import Support
import XCTest
@testable import Milter

/// Issue 27's operability: who may talk to the daemon, whose mail it scans, and the queue id it
/// logs, decided without a network.
final class MilterAccessTests: XCTestCase {
    func testLoopbackIsAlwaysServedAndOtherClientsOnlyWhenAllowed() throws {
        for ip in ["127.0.0.1", "127.4.5.6", "::1", "::ffff:127.0.0.1"] {
            XCTAssertTrue(MilterAccess.admits(ip, allowed: []), ip)
        }
        for ip in ["192.0.2.7", "10.0.0.1", "fd00::2", "::ffff:192.0.2.7", "0.0.0.0", "not an address"] {
            XCTAssertFalse(MilterAccess.admits(ip, allowed: []), ip)
        }
        let allowed = [try AddressRange.parse("192.0.2.0/24", option: "--allow"), try AddressRange.parse("fd00::2", option: "--allow")]
        for ip in ["192.0.2.7", "::ffff:192.0.2.200", "fd00::2"] { XCTAssertTrue(MilterAccess.admits(ip, allowed: allowed), ip) }
        for ip in ["192.0.3.7", "fd00::3"] { XCTAssertFalse(MilterAccess.admits(ip, allowed: allowed), ip) }
        XCTAssertThrowsError(try AddressRange.parse("mx.example.org", option: "--allow")) { error in
            XCTAssertTrue("\(error)".hasPrefix("--allow: “mx.example.org” is not an IP address"), "\(error)")
        }
    }

    func testARecipientIsLocalByItsDomainInAnyCase() {
        let domains: Set = ["example.org"]
        XCTAssertTrue(MilterAccess.isLocal("<Alice@Example.ORG>", domains: domains))
        XCTAssertTrue(MilterAccess.isLocal("a@b@example.org", domains: domains))
        XCTAssertFalse(MilterAccess.isLocal("<alice@sub.example.org>", domains: domains))
        XCTAssertFalse(MilterAccess.isLocal("<alice@example.net>", domains: domains))
        XCTAssertFalse(MilterAccess.isLocal("<>", domains: domains))
    }

    /// The `{i}` macro (Postfix) or `i` (Sendmail) names the queue id; anything but letters and
    /// digits is not taken, and it belongs to one message only.
    func testTheQueueIDMacroReachesTheMessageAndOnlyThatMessage() throws {
        func macro(_ pairs: [(String, String)]) -> MilterPacket {
            var bytes: [UInt8] = [0x52]   // for RCPT
            for (n, v) in pairs { bytes += Array(n.utf8) + [0] + Array(v.utf8) + [0] }
            return MilterPacket(command: 0x44, payload: ByteBuffer(bytes: bytes))
        }
        let session = MilterSession(limits: .init())
        _ = session.receive(MilterPacket(command: 0x4F, payload: ByteBuffer(bytes: MilterSession.bigEndian(6) + MilterSession.bigEndian(0x11) + MilterSession.bigEndian(0x1FFFFF))))
        func message(_ macros: [(String, String)]) -> MilterMessage? {
            if !macros.isEmpty { _ = session.receive(macro(macros)) }
            _ = session.receive(MilterPacket(command: 0x52, payload: ByteBuffer(bytes: Array("<bob@example.org>".utf8) + [0])))
            _ = session.receive(MilterPacket(command: 0x4E, payload: ByteBuffer(bytes: [])))
            guard case .endOfMessage(let m) = session.receive(MilterPacket(command: 0x45, payload: ByteBuffer(bytes: []))) else { return nil }
            return m
        }
        XCTAssertEqual(message([("{rcpt_addr}", "bob@example.org"), ("i", "4XyZ12AB")])?.queueID, "4XyZ12AB")
        XCTAssertNil(message([])?.queueID, "the next message does not inherit it")
        XCTAssertEqual(message([("{i}", "ABC123")])?.queueID, "ABC123")
        XCTAssertNil(message([("i", "ABC\n123 injected=1")])?.queueID)
        XCTAssertNil(message([("i", String(repeating: "A", count: 40))])?.queueID)
    }
}
