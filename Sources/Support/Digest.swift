import Crypto
import Foundation

/// SHA-1 / SHA-256 through swift-crypto (BoringSSL, linked statically), and lowercase hex: the one
/// digest and hex encoder of the project (WalletPass checks manifests with it, PassStore checks
/// stored bytes). Not OpenSSL's EVP interface: its first EVP_MD_fetch sets up OpenSSL 3's provider
/// and method store (~3.5 M instructions, more than hashing a whole pass), and the libcrypto it
/// dlopen()s is needed only to verify signatures. Commands that hash without verifying (`export`:
/// -24 % instructions) no longer load it; on a path that verifies, decoding the first certificate
/// pays that set-up instead, so the filter with a pass costs the same (Benchmarks/filter/README.md).
package enum Digest {
    package enum Algorithm: String, Sendable { case sha1 = "SHA-1", sha256 = "SHA-256" }

    /// Lowercase hex digest of `bytes`.
    package static func hex<C: ContiguousBytes>(_ algorithm: Algorithm, _ bytes: C) -> String {
        bytes.withUnsafeBytes { raw in
            switch algorithm {
            case .sha1:
                var hasher = Insecure.SHA1()
                hasher.update(bufferPointer: raw)
                return digestHex(hasher.finalize())
            case .sha256:
                var hasher = SHA256()
                hasher.update(bufferPointer: raw)
                return digestHex(hasher.finalize())
            }
        }
    }

    private static func digestHex<D: Crypto.Digest>(_ digest: D) -> String {
        digest.withUnsafeBytes { hexString(Array($0)[...]) }
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
