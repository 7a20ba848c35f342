/// Splits the `certificates` field out of a DER CMS ContentInfo(SignedData): the signature without
/// its certificates, plus each certificate's DER. OpenSSL 3.0 spends most of a pass verification
/// decoding the (usually same two) embedded certificates; decoded once and cached in the
/// `TrustStore`, they are handed to `CMS_verify` as extra certificates instead. The signature
/// covers the signed attributes, not the certificate set, so removing the set changes nothing that
/// is verified.
///
/// Only plain DER is rewritten; anything unexpected (BER indefinite lengths, attribute
/// certificates, trailing bytes) returns nil and the caller verifies the signature as it is.
enum CMSCertificates {
    struct Split {
        var stripped: [UInt8]
        var certificates: [ArraySlice<UInt8>]
    }

    /// One DER element: tag byte, where its content starts and ends (absolute offsets).
    struct Element {
        var tag: UInt8
        var start: Int
        var contentStart: Int
        var end: Int
    }

    /// The element at `at`, with a definite length of at most 4 bytes, inside `limit`.
    static func element(_ b: ArraySlice<UInt8>, at: Int, limit: Int) -> Element? {
        let r = ByteReader(b)
        guard let tag = r.u8(at: at), tag & 0x1F != 0x1F, let first = r.u8(at: at + 1) else { return nil }
        var length = Int(first)
        var header = 2
        if first & 0x80 != 0 {
            let n = Int(first & 0x7F)
            guard n >= 1, n <= 4 else { return nil }  // 0: indefinite (BER); >4: absurd
            length = 0
            for i in 0..<n {
                guard let byte = r.u8(at: at + 2 + i) else { return nil }
                length = length << 8 | Int(byte)
            }
            header = 2 + n
        }
        let contentStart = at + header
        guard length <= limit - contentStart else { return nil }  // contentStart <= limit checked by the subtraction's sign
        return Element(tag: tag, start: at, contentStart: contentStart, end: contentStart + length)
    }

    static func encodeLength(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var v = n
        while v > 0 { bytes.insert(UInt8(v & 0xFF), at: 0); v >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func split(_ der: [UInt8]) -> Split? {
        let b = der[...]
        // ContentInfo ::= SEQUENCE { contentType OID, content [0] EXPLICIT SignedData }
        guard let info = element(b, at: 0, limit: b.count), info.tag == 0x30, info.end == b.count,
              let type = element(b, at: info.contentStart, limit: info.end), type.tag == 0x06,
              let explicit = element(b, at: type.end, limit: info.end), explicit.tag == 0xA0, explicit.end == info.end,
              let signed = element(b, at: explicit.contentStart, limit: explicit.end), signed.tag == 0x30,
              signed.end == explicit.end,
              // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, [0] certificates, ... }
              let version = element(b, at: signed.contentStart, limit: signed.end), version.tag == 0x02,
              let digests = element(b, at: version.end, limit: signed.end), digests.tag == 0x31,
              let encap = element(b, at: digests.end, limit: signed.end), encap.tag == 0x30,
              let certs = element(b, at: encap.end, limit: signed.end), certs.tag == 0xA0 else { return nil }
        var certificates: [ArraySlice<UInt8>] = []
        var p = certs.contentStart
        while p < certs.end {
            guard let cert = element(b, at: p, limit: certs.end), cert.tag == 0x30 else { return nil }
            certificates.append(b[cert.start..<cert.end])
            p = cert.end
        }
        let signedContent = Array(b[signed.contentStart..<certs.start]) + Array(b[certs.end..<signed.end])
        let signedTLV = [UInt8(0x30)] + encodeLength(signedContent.count) + signedContent
        let explicitTLV = [UInt8(0xA0)] + encodeLength(signedTLV.count) + signedTLV
        let infoContent = Array(b[type.start..<type.end]) + explicitTLV
        return Split(stripped: [0x30] + encodeLength(infoContent.count) + infoContent, certificates: certificates)
    }
}
