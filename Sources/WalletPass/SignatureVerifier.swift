import COpenSSL
import Foundation

/// Verifies `signature` (CMS SignedData, detached or with the manifest embedded) over the exact bytes
/// of manifest.json with OpenSSL's CMS API, then builds the signer's chain in the trust store **at the
/// signing time** (as Apple's `SecCmsSignerInfoVerifyCertificate` does), purpose "any" (pass
/// certificates carry clientAuth + Apple's Passbook EKU, not S/MIME).
struct SignatureVerifier {
    /// What the signature says, and the first thing wrong with it.
    struct Outcome {
        var signer: SignerInfo?
        /// The certificate facts the pass.json identity rules need.
        var leaf: LeafFacts?
        /// signature-invalid: the maths or the structure is wrong.
        var signatureError: PassError?
        /// untrusted-signer / certificate-expired from building the chain.
        var chainError: PassError?
        /// True when the chain is intact but ends in no anchor (status untrusted, not invalid).
        var unanchored = false
    }

    struct LeafFacts {
        var userID: String?
        var organizationalUnit: String?
        /// Value of extension 1.2.840.113635.100.6.1.16 (nil when absent).
        var passTypeMarker: String?
        var hasMarker: Bool
        var hasPassbookEKU: Bool
    }

    let trust: TrustStore


    func verify(signature: [UInt8], manifest: [UInt8]) -> Outcome {
        ERR_clear_error()
        defer { ERR_clear_error() }
        var outcome = Outcome()
        // Certificates come decoded from the trust store's cache when the signature is plain DER.
        var parsed = signature
        var external: [OpaquePointer] = []
        if let split = CMSCertificates.split(signature), let certs = trust.certificates(split.certificates) {
            parsed = split.stripped
            external = certs
        }
        let extraCerts = COpenSSL_sk_X509_new_null()
        defer {
            if let extraCerts { COpenSSL_sk_X509_free(extraCerts) }
            for cert in external { X509_free(cert) }
        }
        guard let extraCerts else {
            outcome.signatureError = .signatureUnreadable("out of memory")
            return outcome
        }
        for cert in external { _ = COpenSSL_sk_X509_push(extraCerts, cert) }
        // d2i reads at most raw.count bytes from the array's own storage, and copies what it keeps.
        guard let cms = parsed.withUnsafeBytes({ raw -> OpaquePointer? in
            var p = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_CMS_ContentInfo(nil, &p, raw.count)
        }) else {
            outcome.signatureError = .signatureUnreadable("not a CMS/PKCS #7 structure (\(OpenSSL.drainErrors()))")
            return outcome
        }
        defer { CMS_ContentInfo_free(cms) }
        guard OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed else {
            outcome.signatureError = .signatureUnreadable("CMS content type is not SignedData")
            return outcome
        }
        // Embedded manifest (eContent): allowed, but it must be manifest.json byte for byte.
        var embedded = false
        if let content = CMS_get0_content(cms), let octets = content.pointee {
            embedded = true
            // The octets belong to `cms`, alive until the deferred free; length is OpenSSL's own.
            let length = Int(ASN1_STRING_length(octets))
            let bytes = UnsafeRawBufferPointer(start: ASN1_STRING_get0_data(octets), count: max(length, 0))
            if !bytes.elementsEqual(manifest) {
                outcome.signatureError = .embeddedManifestDiffers()
                return outcome
            }
        }
        let signerInfos = CMS_get0_SignerInfos(cms)
        guard let signerInfos, OPENSSL_sk_num(signerInfos) >= 1,
              let si = OPENSSL_sk_value(signerInfos, 0).map(OpaquePointer.init) else {
            outcome.signatureError = .signatureUnreadable("SignedData has no signer")
            return outcome
        }
        let flags = UInt32(CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY)
        let verified: Int32 = manifest.withUnsafeBytes { raw in
            if embedded { return CMS_verify(cms, extraCerts, nil, nil, nil, flags) }
            // The memory BIO reads `raw` in place and is freed before the closure returns.
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return 0 }
            defer { BIO_free(bio) }
            return CMS_verify(cms, extraCerts, nil, bio, nil, flags)
        }
        guard verified == 1 else {
            outcome.signatureError = .signatureDoesNotVerify(OpenSSL.drainErrors())
            return outcome
        }
        let signingTime = Self.signingTime(si)
        let signers = CMS_get0_signers(cms)
        defer { if let signers { COpenSSL_sk_X509_free(signers) } }
        guard let leaf = OpenSSL.certificates(signers).first else {
            outcome.signatureError = .signatureUnreadable("signer certificate not found")
            return outcome
        }
        var info = Self.describe(leaf)
        info.subject = trust.subjectLine(leaf)
        info.signingTime = signingTime
        info.digestAlgorithm = Self.digestName(si)
        outcome.leaf = facts(leaf)
        guard let signingTime else {
            outcome.signer = info
            outcome.signatureError = .noSigningTime()
            return outcome
        }
        buildChain(cms: cms, extra: external.isEmpty ? nil : extraCerts, leaf: leaf, at: signingTime, info: &info, outcome: &outcome)
        outcome.signer = info
        return outcome
    }

    /// `extra`: the signature's certificates when they were split off and decoded from the cache.
    private func buildChain(cms: OpaquePointer, extra: OpaquePointer?, leaf: OpaquePointer, at signingTime: Date,
                            info: inout SignerInfo, outcome: inout Outcome) {
        guard let ctx = X509_STORE_CTX_new() else {
            outcome.chainError = .untrustedSigner("out of memory building the chain")
            return
        }
        defer { X509_STORE_CTX_free(ctx) }
        let embedded = extra == nil ? CMS_get1_certs(cms) : nil
        defer { if let embedded { COpenSSL_sk_X509_pop_free(embedded) } }
        let untrusted = extra ?? embedded
        guard X509_STORE_CTX_init(ctx, trust.store, leaf, untrusted) == 1 else {
            outcome.chainError = .untrustedSigner(OpenSSL.drainErrors())
            return
        }
        X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), time_t(signingTime.timeIntervalSince1970))
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_ANY)
        let ok = X509_verify_cert(ctx) == 1
        let chain = OpenSSL.certificates(X509_STORE_CTX_get0_chain(ctx))
        info.chain = chain.map(trust.subjectLine)
        if ok {
            info.appleAnchor = chain.last.map(trust.isApplePolicyAnchor) ?? false
            return
        }
        let code = X509_STORE_CTX_get_error(ctx)
        let reason = String(cString: X509_verify_cert_error_string(Int(code)))
        let depth = X509_STORE_CTX_get_error_depth(ctx)
        let which = X509_STORE_CTX_get_current_cert(ctx).map { OpenSSL.oneLine(X509_get_subject_name($0)) } ?? "?"
        let when = OpenSSL.moment(signingTime)
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            let cert = X509_STORE_CTX_get_current_cert(ctx)
            let from = cert.flatMap { OpenSSL.date(X509_get0_notBefore($0)) }.map(OpenSSL.day) ?? "?"
            let to = cert.flatMap { OpenSSL.date(X509_get0_notAfter($0)) }.map(OpenSSL.day) ?? "?"
            let role = depth == 0 ? "the signing certificate" : "certificate \(depth) of the chain"
            outcome.chainError = .certificateExpired("signed \(when), but \(role) (\(which)) was valid only from \(from) to \(to)")
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            outcome.unanchored = true
            outcome.chainError = .untrustedSigner("the chain ends at \(which), which is not a trusted root (\(reason))")
        default:
            outcome.chainError = .untrustedSigner("the chain does not verify at \(when): \(reason) at \(which)")
        }
    }

    // MARK: - Reading the signer

    private static func signingTime(_ si: OpaquePointer) -> Date? {
        let index = CMS_signed_get_attr_by_NID(si, NID_pkcs9_signingTime, -1)
        guard index >= 0, let attribute = CMS_signed_get_attr(si, index),
              let value = X509_ATTRIBUTE_get0_type(attribute, 0) else { return nil }
        let type = value.pointee.type
        guard type == V_ASN1_UTCTIME || type == V_ASN1_GENERALIZEDTIME,
              let time = value.pointee.value.utctime else { return nil }
        return OpenSSL.date(time)
    }

    private static func digestName(_ si: OpaquePointer) -> String? {
        var digest: UnsafeMutablePointer<X509_ALGOR>? = nil
        CMS_SignerInfo_get0_algs(si, nil, nil, &digest, nil)
        guard let digest else { return nil }
        var algorithm: OpaquePointer? = nil
        X509_ALGOR_get0(&algorithm, nil, nil, digest)
        guard let algorithm else { return nil }
        switch OBJ_obj2nid(algorithm) {
        case NID_sha1: return "SHA-1"
        case NID_sha256: return "SHA-256"
        case NID_sha384: return "SHA-384"
        case NID_sha512: return "SHA-512"
        case let nid: return OBJ_nid2sn(nid).map { String(cString: $0) }
        }
    }

    private static func describe(_ cert: OpaquePointer) -> SignerInfo {
        let name = X509_get_subject_name(cert)
        return SignerInfo(
            subject: "",  // filled from the trust store's name cache by the caller
            commonName: OpenSSL.nameEntry(name, nid: NID_commonName),
            organizationalUnit: OpenSSL.nameEntry(name, nid: NID_organizationalUnitName),
            userID: OpenSSL.nameEntry(name, nid: NID_userId),
            organization: OpenSSL.nameEntry(name, nid: NID_organizationName),
            signingTime: nil,
            certificateNotBefore: OpenSSL.date(X509_get0_notBefore(cert)),
            certificateNotAfter: OpenSSL.date(X509_get0_notAfter(cert)),
            chain: [],
            appleAnchor: false,
            digestAlgorithm: nil)
    }

    private func facts(_ cert: OpaquePointer) -> LeafFacts {
        let name = X509_get_subject_name(cert)
        var facts = LeafFacts(userID: OpenSSL.nameEntry(name, nid: NID_userId),
                              organizationalUnit: OpenSSL.nameEntry(name, nid: NID_organizationalUnitName),
                              passTypeMarker: nil, hasMarker: false, hasPassbookEKU: false)
        do {
            let index = X509_get_ext_by_OBJ(cert, trust.markerOID, -1)
            if index >= 0, let ext = X509_get_ext(cert, index), let data = X509_EXTENSION_get_data(ext) {
                facts.hasMarker = true
                // The extension data belongs to `cert`, which outlives this call.
                let length = Int(ASN1_STRING_length(data))
                let raw = UnsafeRawBufferPointer(start: ASN1_STRING_get0_data(data), count: max(length, 0))
                facts.passTypeMarker = Self.derString(Array(raw))
            }
        }
        if let eku = X509_get_ext_d2i(cert, NID_ext_key_usage, nil, nil) {
            let stack = OpaquePointer(eku)
            let n = OPENSSL_sk_num(stack)
            for i in 0..<max(n, 0) {
                if let oid = OPENSSL_sk_value(stack, i), OBJ_cmp(OpaquePointer(oid), trust.passbookEKU) == 0 {
                    facts.hasPassbookEKU = true
                }
            }
            EXTENDED_KEY_USAGE_free(stack)
        }
        return facts
    }

    /// The text of a DER string (UTF8String, PrintableString, IA5String, T61String) filling `der`.
    static func derString(_ der: [UInt8]) -> String? {
        let r = ByteReader(der[...])
        guard let tag = r.u8(at: 0), [0x0C, 0x13, 0x16, 0x14].contains(tag), let first = r.u8(at: 1) else { return nil }
        var length = Int(first)
        var start = 2
        if first & 0x80 != 0 {
            let n = Int(first & 0x7F)
            guard n >= 1, n <= 2 else { return nil }
            length = 0
            for i in 0..<n {
                guard let b = r.u8(at: 2 + i) else { return nil }
                length = length << 8 | Int(b)
            }
            start = 2 + n
        }
        guard let body = r.slice(at: start, length: length), start + length == der.count else { return nil }
        return String(decoding: body, as: UTF8.self)
    }
}
