/// The cheap first look at a part, before anything is decoded: does its body start like a zip
/// (`PK\x03\x04`) in its transfer encoding? Parts that do not are never decoded for sniffing.
package enum ZipSignature {
    static let local: [UInt8] = [0x50, 0x4B, 0x03, 0x04]       // "PK\3\4"
    static let base64: [UInt8] = Array("UEsDB".utf8)             // base64 of "PK\3\4" (first 30 bits)
    static let quotedPrintable: [UInt8] = Array("PK=03=04".utf8)

    /// Raw bytes (binary, 8bit, 7bit, or already decoded).
    package static func starts(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.starts(with: local)
    }

    /// A base64 body; leading line breaks and blanks are skipped (they carry no data).
    package static func startsBase64(_ body: ArraySlice<UInt8>) -> Bool {
        skippingWhitespace(body).starts(with: base64)
    }

    /// A quoted-printable body: "PK" then the two control bytes always encoded as `=03=04`
    /// (upper or lower case hex).
    package static func startsQuotedPrintable(_ body: ArraySlice<UInt8>) -> Bool {
        let head = skippingWhitespace(body).prefix(quotedPrintable.count)
        guard head.count == quotedPrintable.count else { return false }
        return zip(head, quotedPrintable).allSatisfy { a, b in a == b || (a | 0x20) == b }
    }

    private static func skippingWhitespace(_ body: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        body.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }
}
