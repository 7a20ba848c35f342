import COpenSSL

/// SHA-256 through OpenSSL (the library checks the digest the conduit hands it, and tools use
/// it to build records).
package enum Digest {
    /// Lowercase hex SHA-256 of `bytes`.
    package static func sha256Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            // EVP_Digest reads exactly `input.count` bytes from the buffer and writes at most
            // EVP_MAX_MD_SIZE (64) bytes; SHA-256 writes 32, the size of `digest`.
            digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(input.baseAddress, input.count, out.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "OpenSSL SHA-256 failed")
        return hex(digest)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True for exactly 64 lowercase hex digits.
    package static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
