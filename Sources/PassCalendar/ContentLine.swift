/// RFC 5545 §3.1 content lines: TEXT escaping (§3.3.11) and folding at 75 octets (§3.1), with
/// CRLF line ends.
package enum ContentLine {
    /// The longest line in octets, without its CRLF.
    static let maxOctets = 75

    /// A TEXT value: `\`, `;`, `,` escaped, every line break (CRLF, CR, LF, NEL, LS, PS) as `\n`,
    /// other control characters (which TEXT may not hold) as a space.
    package static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            defer { previousCR = scalar == "\r" }
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case ";": out.append(contentsOf: "\\;".unicodeScalars)
            case ",": out.append(contentsOf: "\\,".unicodeScalars)
            case "\r", "\u{85}", "\u{2028}", "\u{2029}": out.append(contentsOf: "\\n".unicodeScalars)
            case "\n": if !previousCR { out.append(contentsOf: "\\n".unicodeScalars) }
            case "\t": out.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out.append(" ")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// `line` folded: no physical line longer than 75 octets, continuation lines starting with
    /// one space, never a break inside a UTF-8 sequence; every line ends in CRLF.
    package static func fold(_ line: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(line.utf8.count + line.utf8.count / 70 * 3 + 2)
        var used = 0
        for scalar in line.unicodeScalars {
            let width = UTF8.width(scalar)
            if used + width > maxOctets {
                out.append(contentsOf: [0x0D, 0x0A, 0x20])
                used = 1
            }
            out.append(contentsOf: UTF8.encode(scalar)!)
            used += width
        }
        out.append(contentsOf: [0x0D, 0x0A])
        return String(decoding: out, as: UTF8.self)
    }
}
