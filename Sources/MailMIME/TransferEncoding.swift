/// The Content-Transfer-Encoding of a part (RFC 2045 §6), plus the common x-uuencode.
package enum TransferEncoding: Sendable, Equatable, CustomStringConvertible {
    case sevenBit, eightBit, binary, base64, quotedPrintable, uuencode
    /// An unknown token, lowercased; such a body is handed out as is.
    case other(String)

    /// Parses a header value ("Base64", " quoted-printable ; junk", "x-uue"). Empty means 7bit.
    package init(headerValue: ArraySlice<UInt8>) {
        var token = [UInt8]()
        for byte in headerValue {
            if byte == UInt8(ascii: ";") || byte == UInt8(ascii: "(") { break }
            if byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A {
                if token.isEmpty { continue } else { break }
            }
            token.append(ByteClass.lower(byte))
        }
        switch String(decoding: token, as: UTF8.self) {
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
