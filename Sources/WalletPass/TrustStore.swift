import COpenSSL
import Foundation
import Synchronization

/// The certificates passes are verified against: roots (anchors) and intermediates side by side in
/// one OpenSSL `X509_STORE`, built once and shared by every verification (building it per pass would
/// dominate the cost of opening one). Intermediates must sit in the store: Wallet passes often omit
/// them or carry the wrong generation, and OpenSSL 3.0 does not complete those chains from
/// certificates passed only as untrusted extras.
///
/// Anchors whose SHA-256 fingerprint is one of Apple's roots get Apple's pass-signing rules on the
/// signer (marker extension 1.2.840.113635.100.6.1.16 and the Passbook EKU); other anchors the user
/// added only get the identity rules (UID = passTypeIdentifier, OU = teamIdentifier).
///
/// The anchors are decoded lazily: loading reads each file's DER and its subject name only
/// (OpenSSL 3.0 builds a decoder context for every certificate's public key, ~0.1 ms each), and
/// the store's lookup (`AnchorLookup`) decodes and adds every anchor with a subject when a chain
/// first asks for that subject, the way OpenSSL's own hashed-folder lookup works. Chains are
/// built from the same certificates as with all of them added at once: one pass usually needs
/// two of the thirteen.
package final class TrustStore: @unchecked Sendable {
    // Immutable after init; OpenSSL's X509_STORE is safe for concurrent verification (the lazy
    // lookup serialises its own decoding).
    let store: OpaquePointer
    /// The anchors not yet decoded, by subject; the store's lookup method data points here.
    private let anchors: AnchorLookup
    /// SHA-256 fingerprints of the anchors that get Apple's rules when self-issued (checked on
    /// the top of a verified chain, which is always one of the loaded anchors).
    private let applePolicyFingerprints: Set<String>
    /// Apple's card-issuer marker extension and Passbook signing EKU, parsed once.
    let markerOID: OpaquePointer
    let passbookEKU: OpaquePointer
    /// Decoded certificates seen in signatures, by DER (see `CMSCertificates`). Bounded: emptied
    /// when it reaches `certificateCacheLimit`, so hostile input cannot grow it without end.
    private let certificateCache = Mutex<[CertificateKey: CachedCertificate]>([:])
    static let certificateCacheLimit = 256
    /// RFC 2253 lines of names seen, by the name's DER (formatting one costs more than a lookup).
    private let nameCache = Mutex<[[UInt8]: String]>([:])
    /// Certificates loaded, and the files they came from.
    package let certificateCount: Int
    package let files: [String]

    /// Apple Root CA, Apple Root CA - G2, Apple Root CA - G3 (corpus/apple-ca/README.md).
    package static let appleRootFingerprints: Set<String> = [
        "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024",
        "c2b9b042dd57830e7d117dac55ac8ae19407d38e41d88f3215bc3a890444a050",
        "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179",
    ]

    private init(store: OpaquePointer, anchors: AnchorLookup, applePolicyFingerprints: Set<String>, count: Int, files: [String]) {
        self.store = store
        self.anchors = anchors
        self.applePolicyFingerprints = applePolicyFingerprints
        self.certificateCount = count
        self.files = files
        // Both are well-formed numeric OIDs: OBJ_txt2obj fails only when out of memory.
        markerOID = OBJ_txt2obj("1.2.840.113635.100.6.1.16", 1)!
        passbookEKU = OBJ_txt2obj("1.2.840.113635.100.4.14", 1)!
    }

    deinit {
        ASN1_OBJECT_free(markerOID)
        ASN1_OBJECT_free(passbookEKU)
        X509_STORE_free(store)   // before `anchors`, which its lookup points at
        withExtendedLifetime(anchors) {}
    }

    /// Loads every certificate file (`.pem`, `.crt`, `.cer`, `.der`; PEM or DER) in the given folders
    /// (a path may also name one file). A folder that is missing or a file that holds no certificate
    /// is an error naming it.
    package static func load(directories: [String]) throws -> TrustStore {
        try load(directories: directories, applePolicyFingerprints: appleRootFingerprints)
    }

    /// `applePolicyFingerprints`: anchors (SHA-256, lowercase hex) that get Apple's rules.
    /// Tests use it to hold the test CA to Apple's rules.
    static func load(directories: [String], applePolicyFingerprints: Set<String>) throws -> TrustStore {
        try OpenSSL.library.load()   // NativeLibraryError: every later OpenSSL call needs it
        var entries: [AnchorLookup.Entry] = []
        var loaded: [String] = []
        do {
            for directory in directories {
                for file in try certificateFiles(directory) {
                    for der in try readCertificates(file) {
                        guard let subject = subjectName(der) else {
                            throw TrustStoreError(path: file, reason: "holds no certificate (PEM or DER): \(OpenSSL.drainErrors())")
                        }
                        entries.append(AnchorLookup.Entry(der: der, subject: subject))
                    }
                    loaded.append(file)
                }
            }
        } catch {
            for entry in entries { X509_NAME_free(entry.subject) }
            throw error
        }
        let anchors = AnchorLookup(entries)
        guard let store = X509_STORE_new() else { throw TrustStoreError(path: "", reason: "out of memory") }
        guard let lookup = X509_STORE_add_lookup(store, AnchorLookup.method) else {
            X509_STORE_free(store)
            throw TrustStoreError(path: "", reason: "out of memory")
        }
        X509_LOOKUP_set_method_data(lookup, Unmanaged.passUnretained(anchors).toOpaque())
        return TrustStore(store: store, anchors: anchors, applePolicyFingerprints: applePolicyFingerprints, count: entries.count, files: loaded)
    }

    /// The subject Name of a certificate's DER (Certificate -> TBSCertificate -> [0] version,
    /// serialNumber, signature, issuer, validity, subject), decoded; nil when the DER is not
    /// shaped like a certificate. Owned (X509_NAME_free).
    static func subjectName(_ der: [UInt8]) -> OpaquePointer? {
        let b = der[...]
        guard let cert = CMSCertificates.element(b, at: 0, limit: b.count), cert.tag == 0x30, !cert.indefinite,
              let tbs = CMSCertificates.element(b, at: cert.contentStart, limit: cert.contentEnd), tbs.tag == 0x30, !tbs.indefinite
        else { return nil }
        var p = tbs.contentStart
        if let version = CMSCertificates.element(b, at: p, limit: tbs.contentEnd), version.tag == 0xA0 { p = version.end }
        for tag: UInt8 in [0x02, 0x30, 0x30, 0x30] {   // serialNumber, signature, issuer, validity
            guard let e = CMSCertificates.element(b, at: p, limit: tbs.contentEnd), e.tag == tag, !e.indefinite else { return nil }
            p = e.end
        }
        guard let subject = CMSCertificates.element(b, at: p, limit: tbs.contentEnd), subject.tag == 0x30, !subject.indefinite
        else { return nil }
        // d2i_X509_NAME reads at most the subject's bytes and copies what it keeps.
        return der.withUnsafeBytes { raw -> OpaquePointer? in
            var q = raw.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + subject.start }.map { UnsafePointer($0) }
            return d2i_X509_NAME(nil, &q, subject.end - subject.start)
        }
    }

    /// Decoded certificates for DER encodings, from the cache or freshly decoded; each returned
    /// pointer carries its own reference (free with X509_free). Nil if one does not decode.
    ///
    /// A certificate byte for byte equal to an anchor (the WWDR intermediate most signatures carry)
    /// is that anchor, decoded once: its subject's anchors are added to the store now, as the
    /// store's lookup would add them when the chain asks for that subject (OpenSSL looks in the
    /// store first, so the chain is the same), and the signature gets the store's certificate
    /// instead of a second decoding of the same bytes (~1.3 M instructions each in OpenSSL 3.0).
    func certificates(_ ders: [ArraySlice<UInt8>]) -> [OpaquePointer]? {
        var result: [OpaquePointer] = []
        for slice in ders {
            if let anchor = anchors.anchor(withDER: slice, store: store) {
                result.append(anchor)   // its own reference
                continue
            }
            let der = CertificateKey(Array(slice))
            if let cached = certificateCache.withLock({ $0[der] }) {
                X509_up_ref(cached.x509)
                result.append(cached.x509)
                continue
            }
            anchors.decodings.add(1, ordering: .relaxed)
            // d2i_X509 reads at most raw.count bytes and copies what it keeps.
            let decoded: OpaquePointer? = slice.withUnsafeBytes { raw in
                var p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                return d2i_X509(nil, &p, raw.count)
            }
            guard let decoded else {
                for cert in result { X509_free(cert) }
                return nil
            }
            let entry = CachedCertificate(decoded)
            certificateCache.withLock { cache in
                if cache.count >= Self.certificateCacheLimit { cache.removeAll() }
                cache[der] = entry
            }
            X509_up_ref(decoded)
            result.append(decoded)
        }
        return result
    }

    /// How many certificates this store has decoded (anchors and signatures' certificates).
    var certificatesDecoded: Int { anchors.decodings.load(ordering: .relaxed) }

    /// The subject of `cert` as one RFC 2253 line, formatted once per distinct name.
    func subjectLine(_ cert: OpaquePointer) -> String {
        guard let name = X509_get_subject_name(cert) else { return "" }
        var der: UnsafePointer<UInt8>? = nil
        var length = 0
        guard X509_NAME_get0_der(name, &der, &length) == 1, let der else { return OpenSSL.oneLine(name) }
        // The name's cached DER belongs to `cert`, alive for this call; the key copies it.
        let key = Array(UnsafeBufferPointer(start: der, count: length))
        if let line = nameCache.withLock({ $0[key] }) { return line }
        let line = OpenSSL.oneLine(name)
        nameCache.withLock { cache in
            if cache.count >= Self.certificateCacheLimit * 2 { cache.removeAll() }
            cache[key] = line
        }
        return line
    }

    /// Whether `cert` (the top of a verified chain) is an anchor that gets Apple's rules.
    func isApplePolicyAnchor(_ cert: OpaquePointer) -> Bool {
        !applePolicyFingerprints.isEmpty && applePolicyFingerprints.contains(OpenSSL.sha256Fingerprint(cert))
            && X509_check_issued(cert, cert) == X509_V_OK
    }
}
