/// Splits the `certificates` field out of a DER CMS ContentInfo(SignedData): the signature without
/// its certificates, plus each certificate's DER. OpenSSL 3.0 spends most of a pass verification
/// decoding the (usually same two) embedded certificates; decoded once and cached in the
/// `TrustStore`, they are handed to `CMS_verify` as extra certificates instead. The signature
/// covers the signed attributes, not the certificate set, so removing the set changes nothing that
/// is verified.
///
/// DER and BER (indefinite lengths, as Apple's signing tools write) are both rewritten; anything
/// unexpected (attribute certificates, BER-encoded certificates, trailing bytes) returns nil and the
/// caller verifies the signature as it is.
enum CMSCertificates {
    struct Split {
        var stripped: [UInt8]
        var certificates: [ArraySlice<UInt8>]
    }

    /// One BER/DER element: tag byte, where its content starts and ends, where the element ends
    /// (after the end-of-contents octets when the length is indefinite), all absolute offsets.
    struct Element {
        var tag: UInt8
        var start: Int
        var contentStart: Int
        var contentEnd: Int
        var end: Int
        var indefinite: Bool { contentEnd != end }
    }

    /// Nesting of indefinite-length elements followed; deeper ones are not rewritten.
    static let maxIndefiniteDepth = 16

    /// The element at `at`, inside `limit`. Definite lengths of at most 4 bytes; indefinite lengths
    /// (BER, as Apple's signing tools write them) on constructed elements, found by walking the
    /// children up to the end-of-contents octets.
    static func element(_ b: ArraySlice<UInt8>, at: Int, limit: Int, depth: Int = 0) -> Element? {
        let r = ByteReader(b)
        guard at < limit, let tag = r.u8(at: at), tag & 0x1F != 0x1F, let first = r.u8(at: at + 1) else { return nil }
        if first == 0x80 {
            guard tag & 0x20 != 0, depth < maxIndefiniteDepth else { return nil }
            var p = at + 2
            while true {
                guard p + 2 <= limit, let t = r.u8(at: p), let l = r.u8(at: p + 1) else { return nil }
                if t == 0, l == 0 { return Element(tag: tag, start: at, contentStart: at + 2, contentEnd: p, end: p + 2) }
                guard let child = element(b, at: p, limit: limit, depth: depth + 1) else { return nil }
                p = child.end
            }
        }
        var length = Int(first)
        var header = 2
        if first & 0x80 != 0 {
            let n = Int(first & 0x7F)
            guard n >= 1, n <= 4 else { return nil }  // >4 length bytes: absurd here
            length = 0
            for i in 0..<n {
                guard let byte = r.u8(at: at + 2 + i) else { return nil }
                length = length << 8 | Int(byte)
            }
            header = 2 + n
        }
        let contentStart = at + header
        guard contentStart <= limit, length <= limit - contentStart else { return nil }
        return Element(tag: tag, start: at, contentStart: contentStart, contentEnd: contentStart + length,
                       end: contentStart + length)
    }

    static func encodeLength(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var v = n
        while v > 0 { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// Signatures are a few KB; larger ones are verified as they are, without the rewrite's walks.
    static let maxSplitBytes = 256 * 1024

    static func split(_ der: [UInt8]) -> Split? {
        guard der.count <= maxSplitBytes else { return nil }
        let b = der[...]
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
        guard let info = element(b, at: 0, limit: b.count), info.tag == 0x30, info.end == b.count,
              let type = element(b, at: info.contentStart, limit: info.contentEnd), type.tag == 0x06,
              let explicit = element(b, at: type.end, limit: info.contentEnd), explicit.tag == 0xA0,
              explicit.end == info.contentEnd,
              let signed = element(b, at: explicit.contentStart, limit: explicit.contentEnd), signed.tag == 0x30,
              signed.end == explicit.contentEnd,
              // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, [0] certificates, ... }
              let version = element(b, at: signed.contentStart, limit: signed.contentEnd), version.tag == 0x02,
              let digests = element(b, at: version.end, limit: signed.contentEnd), digests.tag == 0x31,
              let encap = element(b, at: digests.end, limit: signed.contentEnd), encap.tag == 0x30,
              let certs = element(b, at: encap.end, limit: signed.contentEnd), certs.tag == 0xA0 else { return nil }
        var certificates: [ArraySlice<UInt8>] = []
        var p = certs.contentStart
        while p < certs.contentEnd {
            // Certificates must be DER (their signatures are over the DER); anything else: no rewrite.
            guard let cert = element(b, at: p, limit: certs.contentEnd), cert.tag == 0x30, !cert.indefinite else { return nil }
            certificates.append(b[cert.start..<cert.end])
            p = cert.end
        }
        // The rest of SignedData is copied as it is (it may stay BER inside); only the three
        // enclosing elements are re-encoded, with definite lengths.
        let signedContent = Array(b[signed.contentStart..<certs.start]) + Array(b[certs.end..<signed.contentEnd])
        let signedTLV = [UInt8(0x30)] + encodeLength(signedContent.count) + signedContent
        let explicitTLV = [UInt8(0xA0)] + encodeLength(signedTLV.count) + signedTLV
        let infoContent = Array(b[type.start..<type.end]) + explicitTLV
        return Split(stripped: [0x30] + encodeLength(infoContent.count) + infoContent, certificates: certificates)
    }
}
