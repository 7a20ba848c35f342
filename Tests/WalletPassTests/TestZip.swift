@testable import WalletPass

/// Writes zip archives byte by byte for hostile-archive tests: any name bytes, any declared sizes,
/// any attributes. Entries are stored (method 0) unless `method`/`payload` say otherwise.
struct TestZip {
    struct Entry {
        var name: [UInt8]
        var data: [UInt8] = []
        var method: UInt16 = 0
        /// Declared uncompressed size (defaults to data.count).
        var declaredSize: UInt32? = nil
        var madeBy: UInt16 = 0x0314  // Unix, 2.0
        var externalAttributes: UInt32 = 0o100644 << 16
        var flags: UInt16 = 0x0800  // UTF-8 names

        init(_ name: String, _ data: [UInt8] = [], method: UInt16 = 0, declaredSize: UInt32? = nil,
             externalAttributes: UInt32 = 0o100644 << 16, flags: UInt16 = 0x0800) {
            self.name = Array(name.utf8)
            self.data = data
            self.method = method
            self.declaredSize = declaredSize
            self.externalAttributes = externalAttributes
            self.flags = flags
        }

        init(rawName: [UInt8], _ data: [UInt8] = []) {
            self.name = rawName
            self.data = data
        }
    }

    static func build(_ entries: [Entry], declaredCount: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: UInt16, _ a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32, _ a: inout [UInt8]) { for i in 0..<4 { a.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
        for e in entries {
            let offset = UInt32(out.count)
            let crc = CRC32.checksum(e.data)
            let size = e.declaredSize ?? UInt32(e.data.count)
            u32(0x0403_4B50, &out); u16(20, &out); u16(e.flags, &out); u16(e.method, &out)
            u16(0, &out); u16(0x5A21, &out); u32(crc, &out); u32(UInt32(e.data.count), &out); u32(size, &out)
            u16(UInt16(e.name.count), &out); u16(0, &out)
            out += e.name
            out += e.data
            u32(0x0201_4B50, &central); u16(e.madeBy, &central); u16(20, &central); u16(e.flags, &central)
            u16(e.method, &central); u16(0, &central); u16(0x5A21, &central); u32(crc, &central)
            u32(UInt32(e.data.count), &central); u32(size, &central); u16(UInt16(e.name.count), &central)
            u16(0, &central); u16(0, &central); u16(0, &central); u16(0, &central)
            u32(e.externalAttributes, &central); u32(offset, &central)
            central += e.name
        }
        let centralOffset = UInt32(out.count)
        out += central
        let count = UInt16(clamping: declaredCount ?? entries.count)
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out); u16(count, &out); u16(count, &out)
        u32(UInt32(central.count), &out); u32(centralOffset, &out); u16(0, &out)
        return out
    }

    /// Rewrites the declared uncompressed size of entry `name` in both headers (a lying archive).
    static func patchDeclaredSize(_ bytes: [UInt8], name: String, to size: UInt32) -> [UInt8] {
        var b = bytes
        let n = Array(name.utf8)
        func put(_ at: Int) { for i in 0..<4 { b[at + i] = UInt8((size >> (8 * UInt32(i))) & 0xFF) } }
        var i = 0
        while i + 46 < b.count {
            if b[i] == 0x50, b[i + 1] == 0x4B, b[i + 2] == 3, b[i + 3] == 4, Array(b[(i + 30)..<min(i + 30 + n.count, b.count)]) == n {
                put(i + 22)
            }
            if b[i] == 0x50, b[i + 1] == 0x4B, b[i + 2] == 1, b[i + 3] == 2, Array(b[(i + 46)..<min(i + 46 + n.count, b.count)]) == n {
                put(i + 24)
            }
            i += 1
        }
        return b
    }
}
