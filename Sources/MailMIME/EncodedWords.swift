/// RFC 2047 encoded words (`=?charset?B|Q?text?=`) in header text, decoded the lenient way:
/// adjacent words in one charset are joined before charset decoding (so a UTF-8 sequence split
/// across two words survives), whitespace between encoded words is dropped, words glued to text
/// are still decoded, and a malformed word is left exactly as written.
enum EncodedWords {
    /// Decodes every encoded word in `text`; bytes outside words are read as UTF-8 / Windows-1252.
    static func decode(_ text: ArraySlice<UInt8>) -> String {
        var ignored: [String] = []
        return decode(text, unknownCharsets: &ignored)
    }

    /// As `decode(_:)`, appending each charset name iconv does not know to `unknownCharsets`.
    static func decode(_ text: ArraySlice<UInt8>, unknownCharsets: inout [String]) -> String {
        var out = ""
        var plainStart = text.startIndex
        var i = text.startIndex
        var pending: (charset: String, bytes: [UInt8])? = nil
        var lastWordEnd: Int? = nil

        func flushPending() {
            if let p = pending {
                let decoded = Charset.decodeReporting(p.bytes, charset: p.charset)
                out += decoded.text
                if !decoded.known { unknownCharsets.append(p.charset) }
            }
            pending = nil
        }

        while i < text.endIndex {
            guard text[i] == UInt8(ascii: "="), i + 1 < text.endIndex, text[i + 1] == UInt8(ascii: "?"),
                  let word = parseWord(text, at: i) else {
                i += 1
                continue
            }
            let gap = text[plainStart..<i]
            let gapIsWhitespace = gap.allSatisfy(ByteClass.isLWSP)
            if lastWordEnd != nil && gapIsWhitespace {
                // Whitespace between two encoded words is not part of the text (RFC 2047 §6.2).
            } else {
                flushPending()
                out += Charset.decodeLenient(gap)
            }
            if let p = pending, p.charset == word.charset {
                pending!.bytes.append(contentsOf: word.bytes)
            } else {
                flushPending()
                pending = (word.charset, word.bytes)
            }
            i = word.end
            plainStart = i
            lastWordEnd = i
        }
        flushPending()
        out += Charset.decodeLenient(text[plainStart..<text.endIndex])
        return out
    }

    /// The charsets of the well-formed encoded words in `text` that iconv does not know (nothing is decoded).
    static func unknownCharsets(in text: ArraySlice<UInt8>) -> [String] {
        var found: [String] = []
        var i = text.startIndex
        while i + 1 < text.endIndex {
            if text[i] == UInt8(ascii: "="), text[i + 1] == UInt8(ascii: "?"), let word = parseWord(text, at: i) {
                if !Charset.isKnown(word.charset), !found.contains(word.charset) { found.append(word.charset) }
                i = word.end
            } else {
                i += 1
            }
        }
        return found
    }

    /// True when the bytes contain something that looks like the start of an encoded word.
    static func mayContainWords(_ text: ArraySlice<UInt8>) -> Bool {
        var i = text.startIndex
        while i + 1 < text.endIndex {
            if text[i] == UInt8(ascii: "="), text[i + 1] == UInt8(ascii: "?") { return true }
            i += 1
        }
        return false
    }

    /// Parses one word starting at `start` ("=?"); nil if it is not a well-formed word.
    static func parseWord(_ text: ArraySlice<UInt8>, at start: Int) -> (charset: String, bytes: [UInt8], end: Int)? {
        var i = start + 2
        let charsetStart = i
        while i < text.endIndex, text[i] != UInt8(ascii: "?") {
            let b = text[i]
            if b <= 0x20 || b >= 0x7F { return nil }
            i += 1
            if i - charsetStart > 64 { return nil }
        }
        guard i < text.endIndex, i > charsetStart else { return nil }
        var charsetBytes = text[charsetStart..<i]
        if let star = charsetBytes.firstIndex(of: UInt8(ascii: "*")) { charsetBytes = text[charsetStart..<star] }  // RFC 2231 language
        i += 1
        guard i + 1 < text.endIndex, text[i + 1] == UInt8(ascii: "?") else { return nil }
        let encoding = ByteClass.lower(text[i])
        guard encoding == UInt8(ascii: "b") || encoding == UInt8(ascii: "q") else { return nil }
        i += 2
        let payloadStart = i
        // The payload ends at "?=". Q text may not contain spaces; B text cannot contain '?'.
        while i + 1 < text.endIndex {
            if text[i] == UInt8(ascii: "?") && text[i + 1] == UInt8(ascii: "=") { break }
            if text[i] == 0x20 || text[i] == 0x09 || text[i] == 0x0A || text[i] == 0x0D { return nil }
            i += 1
        }
        guard i + 1 < text.endIndex else { return nil }
        let payload = text[payloadStart..<i]
        let bytes: [UInt8]
        if encoding == UInt8(ascii: "b") {
            bytes = TransferDecoder.base64(payload)
        } else {
            var q = [UInt8]()
            q.reserveCapacity(payload.count)
            var j = payload.startIndex
            while j < payload.endIndex {
                let c = payload[j]
                if c == UInt8(ascii: "_") {
                    q.append(0x20)
                } else if c == UInt8(ascii: "="), j + 2 < payload.endIndex,
                          let hi = ByteClass.hexValue(payload[j + 1]), let lo = ByteClass.hexValue(payload[j + 2]) {
                    q.append(hi << 4 | lo)
                    j += 2
                } else {
                    q.append(c)
                }
                j += 1
            }
            bytes = q
        }
        return (String(decoding: charsetBytes, as: UTF8.self), bytes, i + 2)
    }
}
