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

    /// `width` bytes at `offset` as an unsigned little-endian (or big-endian) integer.
    private func integer(at offset: Int, width: Int, bigEndian: Bool = false) -> UInt64? {
        guard offset >= 0, offset <= bytes.count - width else { return nil }
        let start = bytes.startIndex + offset
        var v: UInt64 = 0
        for i in 0..<width {
            let b = UInt64(bytes[start + (bigEndian ? i : width - 1 - i)])
            v = v << 8 | b
        }
        return v
    }

    func u16(at offset: Int) -> UInt16? { integer(at: offset, width: 2).map { UInt16(truncatingIfNeeded: $0) } }
    func u32(at offset: Int) -> UInt32? { integer(at: offset, width: 4).map { UInt32(truncatingIfNeeded: $0) } }
    func u64(at offset: Int) -> UInt64? { integer(at: offset, width: 8) }

    /// Big-endian 32-bit read (PNG).
    func u32BE(at offset: Int) -> UInt32? {
        integer(at: offset, width: 4, bigEndian: true).map { UInt32(truncatingIfNeeded: $0) }
    }
}
