/// The zip central directory read straight from the bytes: the end record, then one header per
/// entry. Nothing is inflated and no local header is touched. Used to refuse oversize archives
/// before libzip allocates anything, to see entry names exactly as stored (NUL bytes included),
/// and by `ZipProbe` for content detection.
struct ZipDirectory {
    struct Entry {
        /// The name bytes exactly as stored in the central directory.
        var rawName: ArraySlice<UInt8>
        var versionMadeBy: UInt16
        var flags: UInt16
        var method: UInt16
        var compressedSize: UInt64
        var uncompressedSize: UInt64
        var externalAttributes: UInt32
        var localHeaderOffset: UInt64

        var name: String { String(decoding: rawName, as: UTF8.self) }
    }

    enum Failure: Error, Equatable {
        case notAZip(String)
        case tooManyEntries(Int)
    }

    /// Entries the end record declares (zip64 aware).
    var declaredCount: Int
    var entries: [Entry]

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    private static let zip64EndSignature: UInt32 = 0x0606_4B50
    private static let headerSignature: UInt32 = 0x0201_4B50

    /// Reads the directory. Refuses when the end record declares more than `maxEntries` entries,
    /// before reading any header; with `headers: false` only the count is read.
    static func read(_ bytes: ArraySlice<UInt8>, maxEntries: Int, headers: Bool = true) -> Result<ZipDirectory, Failure> {
        let r = ByteReader(bytes)
        guard r.count >= 22 else { return .failure(.notAZip("\(r.count) bytes are too few for a zip archive")) }
        // The end record is in the last 22 + 65 535 (comment) bytes; search backwards.
        var end = -1
        var at = r.count - 22
        let lowest = max(0, r.count - 22 - 65_535)
        while at >= lowest {
            // "PK" first: cheap, and most positions fail it.
            if bytes[bytes.startIndex + at] == 0x50, r.u32(at: at) == endSignature, let commentLength = r.u16(at: at + 20),
               at + 22 + Int(commentLength) <= r.count {
                end = at
                break
            }
            at -= 1
        }
        guard end >= 0 else { return .failure(.notAZip("no end-of-central-directory record")) }
        guard var count = r.u16(at: end + 10).map(UInt64.init),
              var size = r.u32(at: end + 12).map(UInt64.init),
              var offset = r.u32(at: end + 16).map(UInt64.init) else {
            return .failure(.notAZip("truncated end record"))
        }
        var directoryEnd = end
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            // zip64: the locator sits right before the end record and points at the zip64 end record.
            if end >= 20, r.u32(at: end - 20) == zip64LocatorSignature, let z = r.u64(at: end - 12),
               let zAt = Int(exactly: z), r.u32(at: zAt) == zip64EndSignature,
               let c = r.u64(at: zAt + 32), let s = r.u64(at: zAt + 40), let o = r.u64(at: zAt + 48) {
                count = c
                size = s
                offset = o
                directoryEnd = zAt
            }
        }
        guard count <= UInt64(maxEntries) else {
            return .failure(.tooManyEntries(Int(clamping: count)))
        }
        var dir = ZipDirectory(declaredCount: Int(count), entries: [])
        guard headers else { return .success(dir) }
        guard let sizeInt = Int(exactly: size), sizeInt <= directoryEnd else {
            return .failure(.notAZip("central directory size \(size) runs past the end record"))
        }
        // Offsets are relative to the archive start; data prepended to the archive shifts them.
        var start = Int(exactly: offset) ?? -1
        if start < 0 || start > directoryEnd - sizeInt || r.u32(at: start) != headerSignature {
            start = directoryEnd - sizeInt
        }
        dir.entries.reserveCapacity(Int(count))
        var p = start
        for _ in 0..<count {
            guard r.u32(at: p) == headerSignature,
                  let madeBy = r.u16(at: p + 4), let flags = r.u16(at: p + 8), let method = r.u16(at: p + 10),
                  let csize = r.u32(at: p + 20), let usize = r.u32(at: p + 24),
                  let nameLength = r.u16(at: p + 28), let extraLength = r.u16(at: p + 30),
                  let commentLength = r.u16(at: p + 32), let external = r.u32(at: p + 38),
                  let localOffset = r.u32(at: p + 42),
                  let name = r.slice(at: p + 46, length: Int(nameLength)) else {
                return .failure(.notAZip("central directory entry \(dir.entries.count) is damaged"))
            }
            var entry = Entry(rawName: name, versionMadeBy: madeBy, flags: flags, method: method,
                              compressedSize: UInt64(csize), uncompressedSize: UInt64(usize),
                              externalAttributes: external, localHeaderOffset: UInt64(localOffset))
            if usize == 0xFFFF_FFFF || csize == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF,
               let extra = r.slice(at: p + 46 + Int(nameLength), length: Int(extraLength)) {
                applyZip64Extra(extra, to: &entry, hasUncompressed: usize == 0xFFFF_FFFF,
                                hasCompressed: csize == 0xFFFF_FFFF, hasOffset: localOffset == 0xFFFF_FFFF)
            }
            dir.entries.append(entry)
            p += 46 + Int(nameLength) + Int(extraLength) + Int(commentLength)
        }
        return .success(dir)
    }

    /// Whether every entry's local header agrees with its central-directory entry on what matters
    /// for safety: it exists, same name bytes, same method, same encryption bits, and (unless sizes
    /// are deferred to a data descriptor, flag bit 3) the same sizes. Returns the first disagreement.
    /// libzip's ZIP_CHECKCONS is stricter (it refuses real passes whose local headers carry a size
    /// beside a data descriptor); this is the check used when it does.
    static func localHeaderDisagreement(_ bytes: ArraySlice<UInt8>, _ directory: ZipDirectory) -> String? {
        let r = ByteReader(bytes)
        for entry in directory.entries {
            let name = entry.name
            guard let at = Int(exactly: entry.localHeaderOffset), r.u32(at: at) == 0x0403_4B50,
                  let flags = r.u16(at: at + 6), let method = r.u16(at: at + 8),
                  let csize = r.u32(at: at + 18), let usize = r.u32(at: at + 22),
                  let nameLength = r.u16(at: at + 26), let localName = r.slice(at: at + 30, length: Int(nameLength)) else {
                return "entry \(PassError.quoted(name)) has no local header where the directory says"
            }
            if !localName.elementsEqual(entry.rawName) { return "entry \(PassError.quoted(name)) has another name in its local header" }
            if method != entry.method { return "entry \(PassError.quoted(name)) has another compression method in its local header" }
            if flags & 0x41 != entry.flags & 0x41 { return "entry \(PassError.quoted(name)) is encrypted in one header only" }
            if flags & 0x08 == 0, csize != 0xFFFF_FFFF, usize != 0xFFFF_FFFF,
               UInt64(csize) != entry.compressedSize || UInt64(usize) != entry.uncompressedSize {
                return "entry \(PassError.quoted(name)) has other sizes in its local header"
            }
        }
        return nil
    }

    /// The zip64 extended-information extra field (id 1) carries the 64-bit sizes, in this order,
    /// only for the fields whose 32-bit value is 0xFFFFFFFF.
    private static func applyZip64Extra(_ extra: ArraySlice<UInt8>, to entry: inout Entry, hasUncompressed: Bool,
                                        hasCompressed: Bool, hasOffset: Bool) {
        let r = ByteReader(extra)
        var p = 0
        while let id = r.u16(at: p), let length = r.u16(at: p + 2) {
            if id == 1 {
                var q = p + 4
                if hasUncompressed, let v = r.u64(at: q) { entry.uncompressedSize = v; q += 8 }
                if hasCompressed, let v = r.u64(at: q) { entry.compressedSize = v; q += 8 }
                if hasOffset, let v = r.u64(at: q) { entry.localHeaderOffset = v }
                return
            }
            p += 4 + Int(length)
        }
    }
}
