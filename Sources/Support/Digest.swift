import COpenSSL
import Foundation

/// SHA-1 / SHA-256 through OpenSSL's EVP interface, and lowercase hex: the one digest and hex
/// encoder of the project (WalletPass checks manifests with it, PassStore checks stored bytes).
package enum Digest {
    package enum Algorithm: String, Sendable { case sha1 = "SHA-1", sha256 = "SHA-256" }

    /// Lowercase hex digest of `bytes`.
    package static func hex<C: ContiguousBytes>(_ algorithm: Algorithm, _ bytes: C) -> String {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let md = algorithm == .sha1 ? FetchedDigest.sha1.md : FetchedDigest.sha256.md
        let ok = bytes.withUnsafeBytes { raw in
            // EVP_Digest writes at most EVP_MAX_MD_SIZE bytes into `out`.
            EVP_Digest(raw.baseAddress, raw.count, &out, &length, md, nil)
        }
        precondition(ok == 1, "EVP_Digest failed: out of memory")
        return hexString(out.prefix(Int(length)))
    }

    /// Lowercase hex SHA-256 of `bytes`.
    package static func sha256Hex<C: ContiguousBytes>(_ bytes: C) -> String {
        hex(.sha256, bytes)
    }

    /// Two lowercase hex digits per byte.
    package static func hexString<S: Sequence>(_ bytes: S, separator: String = "") -> String where S.Element == UInt8 {
        hexString(Array(bytes)[...], separator: separator)
    }

    package static func hexString(_ bytes: [UInt8], separator: String = "") -> String {
        hexString(bytes[...], separator: separator)
    }

    /// The concrete form the digests use: a generic one called from another module runs
    /// unspecialised, and its first call looked up the sequence's iterator type by mangled name
    /// (~0.45 M instructions on the delivery filter's path with a pass).
    package static func hexString(_ bytes: ArraySlice<UInt8>, separator: String = "") -> String {
        let digits: StaticString = "0123456789abcdef"
        let sep = Array(separator.utf8)
        var s = [UInt8]()
        s.reserveCapacity(bytes.count * (2 + sep.count))
        digits.withUTF8Buffer { digits in
            var first = true
            for b in bytes {
                if !first { s.append(contentsOf: sep) }
                first = false
                s.append(digits[Int(b >> 4)])
                s.append(digits[Int(b & 0x0F)])
            }
        }
        return String(decoding: s, as: UTF8.self)
    }

    /// True for exactly 64 lowercase hex digits.
    package static func isSHA256Hex(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// A digest implementation fetched from OpenSSL's provider once: OpenSSL 3 otherwise looks it up
/// (under a lock) on every EVP_Digest call with EVP_sha1()/EVP_sha256().
final class FetchedDigest: @unchecked Sendable {
    // Immutable after init; a fetched EVP_MD is safe to share between threads.
    let md: OpaquePointer?

    private init(_ name: String, fallback: OpaquePointer?) {
        md = EVP_MD_fetch(nil, name, nil) ?? fallback
    }

    static let sha1 = FetchedDigest("SHA1", fallback: EVP_sha1())
    static let sha256 = FetchedDigest("SHA256", fallback: EVP_sha256())
}
