// What an input is, from its first bytes: mail, or binary, after any BOM and blank lines.
extension InputScanner {
    /// A first line that is a header field ("Name:") or an mbox From_ line. A message whose body
    /// is binary (Content-Transfer-Encoding: binary) still starts this way and is mail.
    static func startsLikeMail(_ prefix: [UInt8]) -> Bool {
        if prefix.starts(with: Array("From ".utf8)) { return true }
        var nameLength = 0
        for byte in prefix.prefix(1000) {
            if byte == UInt8(ascii: ":") { return nameLength > 0 }
            // RFC 5322 field names: printable US-ASCII except colon and space.
            guard byte > 0x20 && byte < 0x7F else { return false }
            nameLength += 1
        }
        return false
    }

    /// How many leading bytes are a UTF-8 byte order mark and empty lines (CR, LF).
    static func leadingNoise(_ prefix: [UInt8]) -> Int {
        var count = prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while count < prefix.count, prefix[count] == 0x0A || prefix[count] == 0x0D { count += 1 }
        return count
    }

    /// NUL bytes, or mostly control bytes, in the first bytes: not text, so not mail.
    static func looksBinary(_ prefix: [UInt8]) -> Bool {
        var control = 0
        for byte in prefix.prefix(1024) {
            if byte == 0 { return true }
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0x0C && byte != 0x1B { control += 1 }
        }
        return control * 10 > min(prefix.count, 1024)
    }
}
