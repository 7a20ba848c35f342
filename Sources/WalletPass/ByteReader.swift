/// Bounds-checked little-endian reads at absolute offsets in a byte slice. Every read returns nil
/// rather than reading past the end, so a parser over untrusted bytes cannot trap.
struct ByteReader {
    let bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var count: Int { bytes.count }

    /// `length` bytes starting `offset` bytes into the slice, or nil if they aren't all there.
    func slice(at offset: Int, length: Int) -> ArraySlice<UInt8>? {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else { return nil }
        let start = bytes.startIndex + offset
        return bytes[start..<(start + length)]
    }

    func u8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return bytes[bytes.startIndex + offset]
    }

    func u16(at offset: Int) -> UInt16? {
        guard let s = slice(at: offset, length: 2) else { return nil }
        return UInt16(s[s.startIndex]) | UInt16(s[s.startIndex + 1]) << 8
    }

    func u32(at offset: Int) -> UInt32? {
        guard let s = slice(at: offset, length: 4) else { return nil }
        var v: UInt32 = 0
        for (i, b) in s.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
        return v
    }

    func u64(at offset: Int) -> UInt64? {
        guard let s = slice(at: offset, length: 8) else { return nil }
        var v: UInt64 = 0
        for (i, b) in s.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }

    /// Big-endian 32-bit read (PNG).
    func u32BE(at offset: Int) -> UInt32? {
        guard let s = slice(at: offset, length: 4) else { return nil }
        return s.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
