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
        withUnfolded(raw) { Array($0) }
    }

    /// Hands `body` the value unfolded and trimmed as `unfold(_:)` makes it: a view of `raw`
    /// itself when the value is not folded (most are not: every Content-Type of a scan comes
    /// through here), else a filtered copy.
    static func withUnfolded<R>(_ raw: ArraySlice<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // Trimming whitespace after dropping CR and LF is trimming WSP, CR and LF together.
        // Read through a buffer pointer: the slice's own indexing cost a thousand instructions
        // per Content-Type in the scan profile (issue 17).
        raw.withUnsafeBufferPointer { p in
            var start = 0
            var end = p.count
            while start < end, ByteClass.isLWSP(p[start]) { start += 1 }
            while end > start, ByteClass.isLWSP(p[end - 1]) { end -= 1 }
            var folded = false
            for k in start..<end where p[k] == 0x0D || p[k] == 0x0A { folded = true; break }
            guard folded else { return body(UnsafeBufferPointer(rebasing: p[start..<end])) }
            var out = [UInt8]()
            out.reserveCapacity(end - start)
            for k in start..<end where p[k] != 0x0D && p[k] != 0x0A { out.append(p[k]) }
            return out.withUnsafeBufferPointer(body)
        }
    }
}
