#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One field found in a header block, as offsets into the buffer.
struct RawField {
    var start: Int
    var nameEnd: Int
    var valueStart: Int
    var valueEnd: Int
}

/// Reads an RFC 5322 header section: fields with folding, obsolete whitespace before the colon,
/// raw 8-bit bytes, CRLF / LF / mixed endings. A non-header line ends the section (the body starts
/// there); so does a line that is a boundary of an enclosing multipart.
struct HeaderBlock {
    var fields: [RawField] = []
    /// End of the header section (start of the blank line, or of the first non-header line).
    var headerEnd: Int
    /// First body byte.
    var bodyStart: Int
    var defects: [MIMEDefect] = []

    /// Parses from `start` to at most `end`. `isBoundary(lineStart)` says whether a line starting with
    /// "--" is a boundary of an enclosing multipart. `skipFromLine` skips a leading mbox From_ line.
    static func parse(_ p: UnsafeBufferPointer<UInt8>, start: Int, end: Int, maxBytes: Int, skipFromLine: Bool,
                      isBoundary: (Int) -> Bool) -> HeaderBlock {
        var block = HeaderBlock(headerEnd: end, bodyStart: end)
        // Room for a part's few fields or a message's usual dozen at once: growing the list one
        // doubling at a time showed in the scan profile (issue 17).
        block.fields.reserveCapacity(16)
        var pos = start
        var collecting = true
        if skipFromLine, end - pos >= 5, p[pos] == 0x46, p[pos + 1] == 0x72, p[pos + 2] == 0x6F, p[pos + 3] == 0x6D, p[pos + 4] == 0x20 {
            pos = ByteScan.lineEnd(p, from: pos, end: end).next
        }
        while pos < end {
            let (contentEnd, next) = ByteScan.lineEnd(p, from: pos, end: end)
            if contentEnd == pos {  // blank line: the separator
                block.headerEnd = pos
                block.bodyStart = next
                return block
            }
            let first = p[pos]
            if ByteClass.isWSP(first) {
                // Continuation line: extend the current field. A whitespace-only line counts too (obsolete syntax).
                if collecting, !block.fields.isEmpty { block.fields[block.fields.count - 1].valueEnd = contentEnd }
                pos = next
                continue
            }
            if first == 0x2D, contentEnd - pos >= 2, p[pos + 1] == 0x2D, isBoundary(pos) {
                block.defects.append(MIMEDefect(.missingHeaderBodySeparator, offset: pos, detail: "boundary line inside headers"))
                block.headerEnd = pos
                block.bodyStart = pos
                return block
            }
            // field-name, optional WSP (obsolete syntax), ':'
            var k = pos
            while k < contentEnd, ByteClass.isFieldNameByte(p[k]) { k += 1 }
            let nameEnd = k
            while k < contentEnd, ByteClass.isWSP(p[k]) { k += 1 }
            guard nameEnd > pos, k < contentEnd, p[k] == 0x3A else {
                let code: MIMEDefect.Code = block.fields.isEmpty ? .missingHeaders : .missingHeaderBodySeparator
                block.defects.append(MIMEDefect(code, offset: pos))
                block.headerEnd = pos
                block.bodyStart = pos
                return block
            }
            if collecting {
                if pos - start > maxBytes {
                    collecting = false
                    block.defects.append(MIMEDefect(.headerTooLong, offset: pos, detail: "header section over \(maxBytes) bytes; later fields ignored"))
                } else {
                    block.fields.append(RawField(start: pos, nameEnd: nameEnd, valueStart: k + 1, valueEnd: contentEnd))
                }
            }
            pos = next
        }
        block.headerEnd = end
        block.bodyStart = end
        return block
    }

    /// The fields of a header range as `HeaderField`s (for callers that want a part's headers).
    static func fields(in buffer: [UInt8], range: Range<Int>, maxBytes: Int) -> [HeaderField] {
        let clamped = range.clamped(to: 0..<buffer.count)
        let block = buffer.withUnsafeBufferPointer { p in
            parse(p, start: clamped.lowerBound, end: clamped.upperBound, maxBytes: maxBytes, skipFromLine: true) { _ in false }
        }
        return block.fields.map { headerField($0, in: buffer) }
    }

    /// The first field of a header range named `name` (ASCII case folded), made into a
    /// `HeaderField`; the others stay offsets.
    static func firstField(named name: String, in buffer: [UInt8], range: Range<Int>, maxBytes: Int) -> HeaderField? {
        let clamped = range.clamped(to: 0..<buffer.count)
        var wanted = name
        return buffer.withUnsafeBufferPointer { p in
            let block = parse(p, start: clamped.lowerBound, end: clamped.upperBound, maxBytes: maxBytes, skipFromLine: true) { _ in false }
            return wanted.withUTF8 { w in
                for f in block.fields where f.nameEnd - f.start == w.count {
                    var same = true
                    for k in 0..<w.count {
                        let a = p[f.start + k], b = w[k]
                        // Only ASCII letters fold.
                        if a != b && !(a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20)) { same = false; break }
                    }
                    if same { return headerField(f, in: buffer) }
                }
                return nil
            }
        }
    }

    static func headerField(_ f: RawField, in buffer: [UInt8]) -> HeaderField {
        HeaderField(name: String(decoding: buffer[f.start..<f.nameEnd], as: UTF8.self),
                    rawValue: buffer[f.valueStart..<max(f.valueStart, f.valueEnd)], offset: f.start)
    }
}

/// Fast byte searches over a buffer (glibc memchr is vectorised).
enum ByteScan {
    /// The end of the line starting at `from`: `contentEnd` excludes CR LF / LF, `next` is the next line's start.
    @inline(__always)
    static func lineEnd(_ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> (contentEnd: Int, next: Int) {
        guard let nl = find(0x0A, p, from: from, end: end) else { return (end, end) }
        // nl > from implies nl - 1 >= from, a valid index.
        let contentEnd = (nl > from && p[nl - 1] == 0x0D) ? nl - 1 : nl
        return (contentEnd, nl + 1)
    }

    /// Index of the first LF that is followed by `next` in `from..<end` (both bytes inside), or nil.
    /// Eight bytes per step (SWAR): mbox separators are "\nFrom ", and calling memchr once per
    /// 76-byte base64 line costs more than the whole parse.
    @inline(__always)
    static func findNewline(followedBy next: UInt8, _ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int? {
        guard let base = p.baseAddress, from < end else { return nil }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let lf = 0x0A &* ones  // no overflow: 0x0A * 0x01..01 fits in 64 bits
        let nx = UInt64(next) &* ones  // no overflow: next <= 0xFF
        var i = from
        // 32 bytes per step with vector compares; each step reads bytes i..<i+33, so it needs i + 33 <= end.
        let lfVector = SIMD32<UInt8>(repeating: 0x0A)
        let nextVector = SIMD32<UInt8>(repeating: next)
        while i + 33 <= end {
            let raw = UnsafeRawPointer(base + i)
            let a = raw.loadUnaligned(as: SIMD32<UInt8>.self)
            let b = raw.loadUnaligned(fromByteOffset: 1, as: SIMD32<UInt8>.self)
            let hit = (a .== lfVector) .& (b .== nextVector)
            if let lane = firstTrueLane(hit) { return i + lane }
            i += 32
        }
        // Each step reads bytes i..<i+9, so it needs i + 9 <= end (both loads stay inside the buffer).
        while i + 9 <= end {
            let raw = UnsafeRawPointer(base + i)
            let w = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            let w2 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
            let v = (w ^ lf) | (w2 ^ nx)  // a zero byte k means p[i+k] == LF and p[i+k+1] == next
            let zero = (v &- ones) & ~v & highs  // exact for the lowest zero byte
            if zero != 0 { return i + zero.trailingZeroBitCount / 8 }
            i += 8
        }
        while i + 1 < end {
            if base[i] == 0x0A && base[i + 1] == next { return i }
            i += 1
        }
        return nil
    }

    /// The first true lane of a 32-byte compare, or nil. A true lane is all ones; the lanes are
    /// read as four words because Swift's generic any() is not inlined here and cost more than the
    /// compares.
    @inline(__always)
    static func firstTrueLane(_ hit: SIMDMask<SIMD32<Int8>>) -> Int? {
        let words = unsafeBitCast(hit, to: (UInt64, UInt64, UInt64, UInt64).self)
        guard (words.0 | words.1 | words.2 | words.3) != 0 else { return nil }
        if words.0 != 0 { return words.0.trailingZeroBitCount / 8 }
        if words.1 != 0 { return 8 + words.1.trailingZeroBitCount / 8 }
        if words.2 != 0 { return 16 + words.2.trailingZeroBitCount / 8 }
        return 24 + words.3.trailingZeroBitCount / 8
    }

    /// Index of the first LF in `from..<end` followed by `next` or by `other` (both bytes
    /// inside), or nil: the mbox separator search ("\nF") and the mboxrd quote check ("\n>")
    /// in one pass.
    @inline(__always)
    static func findNewline(followedBy next: UInt8, or other: UInt8, _ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int? {
        guard let base = p.baseAddress, from < end else { return nil }
        var i = from
        let lfVector = SIMD32<UInt8>(repeating: 0x0A)
        let nextVector = SIMD32<UInt8>(repeating: next)
        let otherVector = SIMD32<UInt8>(repeating: other)
        // Each step reads bytes i..<i+33, so it needs i + 33 <= end.
        while i + 33 <= end {
            let raw = UnsafeRawPointer(base + i)
            let a = raw.loadUnaligned(as: SIMD32<UInt8>.self)
            let b = raw.loadUnaligned(fromByteOffset: 1, as: SIMD32<UInt8>.self)
            let hit = (a .== lfVector) .& ((b .== nextVector) .| (b .== otherVector))
            if let lane = firstTrueLane(hit) { return i + lane }
            i += 32
        }
        while i + 1 < end {
            if base[i] == 0x0A && (base[i + 1] == next || base[i + 1] == other) { return i }
            i += 1
        }
        return nil
    }

    /// Index of the first `byte` in `from..<end`, or nil.
    @inline(__always)
    static func find(_ byte: UInt8, _ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int? {
        guard from < end, let base = p.baseAddress else { return nil }
        // from..<end lies inside the buffer (callers keep end <= p.count), so the pointer range is valid.
        guard let hit = memchr(base + from, Int32(byte), end - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }
}
