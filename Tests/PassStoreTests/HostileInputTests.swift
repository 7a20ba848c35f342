import Foundation
import XCTest
@testable import PassStore

/// Text from a pass or a mail header is attacker-chosen. SQLite takes text as C strings, so a
/// NUL would cut it short: an id must never turn into another pass's id that way.
final class HostileInputTests: XCTestCase {
    func testIdWithNULIsRefusedRatherThanCutShortIntoAnotherId() throws {
        eachBackend { b in
            // Given a stored pass "serial"
            let library = try b.library()
            try library.add(Synthetic.record("pass.example.a", "serial"))
            // When a pass arrives whose serial is "serial" + NUL + more
            let hostile = Synthetic.record("pass.example.a", "serial\u{0}hidden", version: 2)
            // Then it is not taken for the stored pass, and cannot be stored, offered or replaced
            XCTAssertEqual(try library.contains(hostile), .new)
            XCTAssertNil(try library.pass(hostile.id))
            assertLibraryError(.refused, try library.add(hostile))
            assertLibraryError(.refused, try library.stageOffer(hostile))
            assertLibraryError(.refused, try library.replace(with: hostile))
            assertLibraryError(.notFound, try library.remove(hostile.id))
            assertLibraryError(.notFound, try library.export(hostile.id))
            assertLibraryError(.notFound, try library.resolve("pass.example.a/serial\u{0}hidden"))
            XCTAssertEqual(try library.export(PassID(passTypeIdentifier: "pass.example.a", serialNumber: "serial")),
                           Synthetic.record("pass.example.a", "serial").bytes)
            var team = Synthetic.record("pass.example.a", "2")
            team.teamIdentifier = "TEAM\u{0}X"
            assertLibraryError(.refused, try library.add(team))
        }
    }

    func testDisplayTextWithNULIsKeptWithAReplacementCharacter() throws {
        eachBackend { b in
            let library = try b.library()
            var record = Synthetic.record("1")
            record.organizationName = "Org\u{0}Name\r\n\u{1b}[31m"
            record.source = PassSource(messageID: "<a\u{0}b@x>", subject: "Sub\u{0}ject", file: nil,
                                       receivedAt: Date(timeIntervalSince1970: 1_700_000_000))
            record.fields = [StoredField(key: "k\u{0}", label: "L\u{0}", value: "v\u{0}v", changeMessage: "%@\u{0}")]
            let stored = try library.add(record)
            XCTAssertEqual(stored.organizationName, "Org\u{FFFD}Name\r\n\u{1b}[31m")
            XCTAssertEqual(stored.source?.messageID, "<a\u{FFFD}b@x>")
            XCTAssertEqual(stored.source?.subject, "Sub\u{FFFD}ject")
            XCTAssertEqual(stored.fields, record.fields)   // JSON escapes NUL, so fields are exact
        }
    }

    func testResolveOfHostileTextIsNotFoundInBoundedTime() throws {
        eachBackend { b in
            let library = try b.library()
            try library.add(Synthetic.record("1"))
            for text in ["", "/", "//", " ", "\u{0}", "%", "_", "0000%", String(repeating: "a", count: 1_000_000),
                         String(repeating: "/", count: 100_000), "' OR 1=1 --"] {
                assertLibraryError(.notFound, try library.resolve(text))
            }
        }
    }
}
