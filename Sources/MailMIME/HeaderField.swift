/// One header field as it appears in the message: its name, the raw value bytes (after the colon,
/// folding kept, line end excluded) and the decoded value (unfolded, RFC 2047 decoded).
package struct HeaderField: Sendable, Equatable {
    package var name: String
    package var rawValue: ArraySlice<UInt8>
    /// Byte offset of the field's first byte in the buffer it came from.
    package var offset: Int

    package init(name: String, rawValue: ArraySlice<UInt8>, offset: Int) {
        self.name = name
        self.rawValue = rawValue
        self.offset = offset
    }

    /// The value unfolded (CR/LF removed, the whitespace after them kept), trimmed, RFC 2047 decoded,
    /// with raw 8-bit text read as UTF-8 (Windows-1252 when not valid UTF-8).
    package var value: String {
        let unfolded = HeaderField.unfold(rawValue)
        return EncodedWords.decode(unfolded[...])
    }

    /// Removes line breaks and trims surrounding whitespace.
    static func unfold(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(raw.count)
        for b in raw where b != 0x0D && b != 0x0A { out.append(b) }
        var start = 0
        var end = out.count
        while start < end, ByteClass.isWSP(out[start]) { start += 1 }
        while end > start, ByteClass.isWSP(out[end - 1]) { end -= 1 }
        if start == 0 && end == out.count { return out }
        return Array(out[start..<end])
    }
}
