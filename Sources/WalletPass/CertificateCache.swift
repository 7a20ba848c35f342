import COpenSSL

/// Owns one reference to a decoded certificate in the cache.
final class CachedCertificate: @unchecked Sendable {
    // Immutable after init; OpenSSL's X509 is safe to share between threads once decoded.
    let x509: OpaquePointer
    init(_ x509: OpaquePointer) { self.x509 = x509 }
    deinit { X509_free(x509) }
}

/// A certificate's DER as a dictionary key. Hashes the length and the last 32 bytes (inside the
/// signature value, which differs between certificates) instead of all ~1.5 KB; equality still
/// compares every byte.
struct CertificateKey: Hashable {
    let der: [UInt8]
    init(_ der: [UInt8]) { self.der = der }

    func hash(into hasher: inout Hasher) {
        hasher.combine(der.count)
        der.suffix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (a: CertificateKey, b: CertificateKey) -> Bool { a.der == b.der }
}
