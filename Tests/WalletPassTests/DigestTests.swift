import Foundation
import XCTest
import Support

/// Support's Digest on published vectors (FIPS 180 examples: "abc", the empty message, a million
/// "a"): manifests and the library compare these hex strings byte for byte, so the implementation
/// underneath (OpenSSL's EVP before, swift-crypto now) must not change a character of them.
final class DigestTests: XCTestCase {
    func testKnownVectors() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let cases: [([UInt8], sha1: String, sha256: String)] = [
            (Array("abc".utf8), "a9993e364706816aba3e25717850c26c9cd0d89d",
             "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ([], "da39a3ee5e6b4b0d3255bfef95601890afd80709",
             "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (million, "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
             "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ]
        for (bytes, sha1, sha256) in cases {
            XCTAssertEqual(Digest.hex(.sha1, bytes), sha1, "\(bytes.count) bytes")
            XCTAssertEqual(Digest.hex(.sha256, bytes), sha256, "\(bytes.count) bytes")
            XCTAssertEqual(Digest.sha256Hex(bytes), sha256, "\(bytes.count) bytes")
            XCTAssertEqual(Digest.hex(.sha256, Data(bytes)), sha256, "\(bytes.count) bytes as Data")
            XCTAssertTrue(Digest.isSHA256Hex(Digest.sha256Hex(bytes)))
        }
    }

    /// A slice hashes its own bytes, not its base array's (withUnsafeBytes of an ArraySlice that
    /// does not start at index 0), and every byte value comes out as two lowercase digits.
    func testSliceAndEveryByteValue() {
        let bytes = [UInt8](repeating: 0xFF, count: 7) + Array("abc".utf8) + [0xFF]
        XCTAssertEqual(Digest.hex(.sha1, bytes[7..<10]), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(Digest.sha256Hex(bytes[7..<10]), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // 1 MiB of 0...255 repeated (hashlib: sha1 ecfc8e86..., sha256 fbbab289...).
        let ramp = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0) }
        XCTAssertEqual(Digest.hex(.sha1, ramp), "ecfc8e86fdd83811f9cc9bf500993b63069923be")
        XCTAssertEqual(Digest.sha256Hex(ramp), "fbbab289f7f94b25736c58be46a994c441fd02552cc6022352e3d86d2fab7c83")
        XCTAssertEqual(Digest.hexString((0...255).map { UInt8($0) }),
                       (0...255).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(Digest.hexString([0xAB, 0x01], separator: ":"), "ab:01")
    }
}
