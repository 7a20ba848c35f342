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
        switch ParameterScanner.lowerString(headerValue[start..<stop]) {
        case "", "7bit", "7-bit": self = .sevenBit
        case "8bit", "8-bit": self = .eightBit
        case "binary": self = .binary
        case "base64": self = .base64
        case "quoted-printable": self = .quotedPrintable
        case "x-uuencode", "x-uue", "uuencode", "x-uu", "uue": self = .uuencode
        case let other: self = .other(other)
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
