/// Bytes and the SHA-256 computed from them, together: the proof that lets the library's check
/// ("the SHA-256 given matches the bytes", `LibraryRules.validated`) skip hashing a pass the opener
/// has just hashed. On the delivery filter's path with a pass that second hash was ~1 M of its
/// ~27 M instructions (issue 14).
///
/// It holds on to the bytes it hashed. While it does, their storage can neither be freed (and its
/// address reused for other bytes) nor changed in place (an array that shares its storage copies
/// before a write), so an array whose elements start at the same address with the same count holds
/// exactly the bytes that were hashed. Anything else is hashed again.
package struct HashedBytes: Sendable {
    /// Lowercase hex SHA-256 of the bytes.
    package let sha256: String
    /// The bytes hashed.
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        sha256 = Digest.sha256Hex(bytes)
    }

    /// True when `hex` (lowercase) is the SHA-256 of `other` because `other` is the very storage
    /// that was hashed; false means "not proven", not "different".
    package func proves(_ hex: String, for other: [UInt8]) -> Bool {
        guard hex == sha256, other.count == bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
        }
    }
}

extension HashedBytes: Equatable {
    /// Equal digests: a record's proof never makes two records with the same bytes unequal.
    package static func == (a: HashedBytes, b: HashedBytes) -> Bool { a.sha256 == b.sha256 }
}
