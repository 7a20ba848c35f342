import XCTest
@testable import MailMIME
import TestRandom

final class ByteScanTests: XCTestCase {
    /// The 8-bytes-at-a-time search must agree with a byte loop at every start offset and length.
    func testNewlineFollowedBySearchAgreesWithAByteLoop() {
        var rng = SeededGenerator(state: 0xB7E5_CA9)
        for _ in 0..<300 {
            let count = Int.random(in: 0...70, using: &rng)
            let bytes: [UInt8] = (0..<count).map { _ in [0x0A, 0x46, 0x41, 0x0A, 0x46, 0x00, 0xFF].randomElement(using: &rng)! }
            bytes.withUnsafeBufferPointer { p in
                for from in 0...count {
                    var expected: Int? = nil
                    var i = from
                    while i + 1 < count { if p[i] == 0x0A && p[i + 1] == 0x46 { expected = i; break }; i += 1 }
                    XCTAssertEqual(ByteScan.findNewline(followedBy: 0x46, p, from: from, end: count), expected, "\(bytes) from \(from)")
                }
            }
        }
    }
}
