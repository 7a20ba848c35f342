/// Bytes and the SHA-256 computed from them, together: the only way to make one hashes, and
/// neither can change alone, so the digest is right by construction. A pass is hashed once, when
/// it is read (the opener's verdict and the library's record share it); on the delivery filter's
/// path with a pass a second hash was ~1 M of its ~27 M instructions (issue 14).
package struct HashedBytes: Sendable {
    /// Lowercase hex SHA-256 of the bytes.
    package let sha256: String
    /// The bytes hashed.
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        sha256 = Digest.sha256Hex(bytes)
    }
}

extension HashedBytes: Equatable {
    /// Equal digests: equal bytes.
    package static func == (a: HashedBytes, b: HashedBytes) -> Bool { a.sha256 == b.sha256 }
}
