/// The Content-Transfer-Encoding of a part (RFC 2045 §6), plus the common x-uuencode.
package enum TransferEncoding: Sendable, Equatable, CustomStringConvertible {
    case sevenBit, eightBit, binary, base64, quotedPrintable, uuencode
    /// An unknown token, lowercased; such a body is handed out as is.
    case other(String)

    /// Parses a header value ("Base64", " quoted-printable ; junk", "x-uue"). Empty means 7bit.
    package init(headerValue: ArraySlice<UInt8>) {
        // The first token: leading blanks skipped, ended by a blank, ';' or '(' (no byte array
        // built per part).
        var start = headerValue.startIndex
        let end = headerValue.endIndex
        while start < end, ByteClass.isLWSP(headerValue[start]) { start += 1 }
        var stop = start
        while stop < end {
            let byte = headerValue[stop]
            if byte == UInt8(ascii: ";") || byte == UInt8(ascii: "(") || ByteClass.isLWSP(byte) { break }
            stop += 1
        }
        let token = headerValue[start..<stop]
        // The known tokens compared on the bytes (ASCII case folded): a String per part and a
        // chain of String comparisons cost 680 instructions for every part of a scan (issue 17).
        if let known = Self.known(token) {
            self = known
            return
        }
        self = .other(ParameterScanner.lowerString(token))
    }

    private static let knownTokens: [(StaticString, TransferEncoding)] = [
        ("7bit", .sevenBit), ("7-bit", .sevenBit), ("8bit", .eightBit), ("8-bit", .eightBit), ("binary", .binary),
        ("base64", .base64), ("quoted-printable", .quotedPrintable), ("x-uuencode", .uuencode), ("x-uue", .uuencode),
        ("uuencode", .uuencode), ("x-uu", .uuencode), ("uue", .uuencode),
    ]

    /// The encoding a token names when it is one of the known ones in any ASCII case ("" is 7bit).
    private static func known(_ token: ArraySlice<UInt8>) -> TransferEncoding? {
        if token.isEmpty { return .sevenBit }
        return token.withUnsafeBufferPointer { t in
            for (literal, encoding) in knownTokens where ByteScan.equalsLowercase(t, literal) { return encoding }
            return nil
        }
    }

    /// True for the encodings whose decoder changes the bytes.
    package var isEncoded: Bool {
        switch self {
        case .base64, .quotedPrintable, .uuencode: return true
        default: return false
        }
    }

    package var description: String {
        switch self {
        case .sevenBit: return "7bit"
        case .eightBit: return "8bit"
        case .binary: return "binary"
        case .base64: return "base64"
        case .quotedPrintable: return "quoted-printable"
        case .uuencode: return "x-uuencode"
        case .other(let s): return s
        }
    }
}
