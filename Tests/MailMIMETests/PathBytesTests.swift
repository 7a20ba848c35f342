import XCTest
@testable import MailMIME

/// `PathBytes` must be lossless: any byte string a file name can hold comes back exactly.
final class PathBytesTests: XCTestCase {
    func testUTF8NamesAreTheirOwnCarrier() {
        for name in ["ticket.pkpass", "Bibliothèque.pkpass", "票.pkpass", "a b/c", ""] {
            XCTAssertEqual(PathBytes.string(Array(name.utf8)), name)
            XCTAssertEqual(PathBytes.bytes(name), Array(name.utf8))
        }
    }

    func testLatin1AndStrayBytesRoundTrip() {
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".pkpass".utf8)
        let carrier = PathBytes.string(latin1)
        XCTAssertTrue(PathBytes.hasRawBytes(carrier))
        XCTAssertEqual(PathBytes.bytes(carrier), latin1)
        // A truncated sequence, a lone continuation byte, an overlong NUL, a surrogate encoding.
        for raw: [UInt8] in [[0xE2, 0x82], [0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xFF, 0xFE, 0x41]] {
            XCTAssertEqual(PathBytes.bytes(PathBytes.string(raw)), raw, "\(raw)")
        }
    }

    /// A name that really holds one of the escape scalars (U+10FF80…U+10FFFF) is escaped bytewise,
    /// so it cannot be mistaken for a raw byte.
    func testNamesHoldingTheEscapeScalarsRoundTrip() {
        let real = Array("x\u{10FFE9}y".utf8)
        XCTAssertEqual(PathBytes.bytes(PathBytes.string(real)), real)
    }

    func testRandomByteStringsRoundTrip() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            state = state &* 6364136223846793005 &+ 1442695040888963407
            for _ in 0..<Int(state >> 59) + 1 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            bytes.removeAll { $0 == 0 }   // a file name has no NUL
            XCTAssertEqual(PathBytes.bytes(PathBytes.string(bytes)), bytes, "\(bytes)")
        }
    }
}
