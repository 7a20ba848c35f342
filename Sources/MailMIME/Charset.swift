import Foundation

/// Turns bytes in a named charset into a String. Single-byte charsets come from generated tables
/// (Foundation on Linux lacks most ISO-8859-* and Windows-125x), a few multi-byte ones from
/// Foundation; anything unknown is read as UTF-8 when valid, else as Windows-1252, so text always
/// stays readable.
enum Charset {
    /// Lowercased, with the common spellings folded together ("ISO8859_1" -> "iso-8859-1").
    static func canonicalName(_ raw: String) -> String {
        var name = raw.trimmingCharacters(in: .whitespaces).lowercased()
        name = name.replacingOccurrences(of: "_", with: "-")
        if name.hasPrefix("iso8859-") { name = "iso-8859-" + name.dropFirst(8) }
        else if name.hasPrefix("iso8859") { name = "iso-8859-" + name.dropFirst(7) }
        if name.hasPrefix("iso-8859-"), let colon = name.firstIndex(of: ":") { name = String(name[..<colon]) }
        if name.hasPrefix("x-") { name = String(name.dropFirst(2)) }
        if name.hasPrefix("cp125") { name = "windows-" + name.dropFirst(2) }
        if name.hasPrefix("windows-") == false, name.hasPrefix("win-125") { name = "windows-" + name.dropFirst(4) }
        switch name {
        case "utf8", "unicode-1-1-utf-8": return "utf-8"
        case "latin1", "latin-1", "l1", "iso-ir-100", "ansi-x3.4-1968", "iso-8859-1": return "iso-8859-1"
        case "latin2", "latin-2", "l2": return "iso-8859-2"
        case "latin9", "latin-9": return "iso-8859-15"
        case "ascii", "us-ascii", "us", "ansi_x3.4-1968", "iso646-us", "646": return "us-ascii"
        case "sjis", "shift-jis", "ms-kanji", "windows-31j", "cp932": return "shift_jis"
        case "koi8r": return "koi8-r"
        case "macintosh", "mac", "macroman": return "mac-roman"
        default: return name
        }
    }

    /// Decodes `bytes` in `charset` (nil = unknown). Never fails.
    static func decode<C: Collection>(_ bytes: C, charset: String?) -> String where C.Element == UInt8 {
        let name = charset.map(canonicalName) ?? ""
        switch name {
        case "utf-8", "us-ascii", "":
            return decodeLenient(bytes)
        default:
            break
        }
        if let table = CharsetTables.upperHalves[name] {
            var scalars = String.UnicodeScalarView()
            scalars.reserveCapacity(bytes.count)
            for b in bytes {
                // b >= 0x80 here, so b - 0x80 is in 0..<128 (the table's size).
                let code = b < 0x80 ? UInt16(b) : table[Int(b &- 0x80)]
                scalars.append(Unicode.Scalar(code).map { $0 } ?? "\u{FFFD}")
            }
            return String(scalars)
        }
        if let encoding = String.Encoding(ianaName: name),
           let s = String(data: Data(bytes), encoding: encoding) {
            return s
        }
        return decodeLenient(bytes)
    }

    /// UTF-8 when the bytes are valid UTF-8, otherwise Windows-1252 (what 8-bit mail almost always is).
    static func decodeLenient<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var ascii = true
        for b in bytes where b >= 0x80 { ascii = false; break }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        return decode(bytes, charset: "windows-1252")
    }

    static func isAllASCII<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        for b in bytes where b >= 0x80 { return false }
        return true
    }
}
