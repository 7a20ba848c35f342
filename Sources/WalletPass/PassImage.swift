/// An image from a pass with its real pixel size, read from the PNG header (IHDR, CRC checked),
/// never from its file name.
package struct PassImage: Sendable, Equatable {
    /// Path inside the pass ("icon@2x.png", "de.lproj/icon@2x.png").
    package var file: String
    package var width: Int
    package var height: Int
    package var bytes: [UInt8]

    /// Width and height from a PNG's IHDR chunk, or nil if `bytes` is not a PNG with a sound header.
    static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let r = ByteReader(bytes[...])
        guard r.slice(at: 0, length: 8)?.elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == true,
              r.u32BE(at: 8) == 13, r.slice(at: 12, length: 4)?.elementsEqual(Array("IHDR".utf8)) == true,
              let width = r.u32BE(at: 16), let height = r.u32BE(at: 20),
              let chunk = r.slice(at: 12, length: 17), let crc = r.u32BE(at: 29),
              CRC32.checksum(chunk) == crc,
              width > 0, height > 0, width < 0x8000_0000, height < 0x8000_0000 else { return nil }
        return (Int(width), Int(height))
    }
}

/// CRC-32 (ISO 3309, as PNG and zip use it).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
