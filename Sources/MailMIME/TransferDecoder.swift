#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Content-Transfer-Encoding decoders (RFC 2045 §6.7, §6.8; uuencode as POSIX `uudecode`).
/// All are tolerant: junk is skipped, missing padding is fine, lines may be any length, and the
/// output is bounded by the input size.
package enum TransferDecoder {
    /// Decodes `body` per `encoding`; 7bit/8bit/binary/unknown bodies are returned unchanged.
    package static func decode(_ body: ArraySlice<UInt8>, encoding: TransferEncoding) -> [UInt8] {
        switch encoding {
        case .base64: return base64(body)
        case .quotedPrintable: return quotedPrintable(body)
        case .uuencode: return uudecode(body)
        default: return Array(body)
        }
    }

    /// Decodes at most about `maxBytes` of output, reading only as much input as that needs.
    package static func decodePrefix(_ body: ArraySlice<UInt8>, encoding: TransferEncoding, maxBytes: Int) -> [UInt8] {
        guard maxBytes > 0 else { return [] }
        switch encoding {
        case .base64:
            // 4 input chars make 3 bytes; junk (line breaks) costs extra input, so read generously.
            let input = body.prefix(max(64, maxBytes / 3 * 4 * 2 + 256))
            return Array(base64(input).prefix(maxBytes))
        case .quotedPrintable:
            return Array(quotedPrintable(body.prefix(maxBytes * 3 + 256)).prefix(maxBytes))
        case .uuencode:
            return Array(uudecode(body.prefix(maxBytes * 2 + 4096)).prefix(maxBytes))
        default:
            return Array(body.prefix(maxBytes))
        }
    }

    /// The base64 alphabet pre-shifted for each of the 4 positions of a group; 0xFF000000 marks a
    /// byte outside the alphabet, so OR-ing four lookups tells validity and value in one step.
    private static let base64Shifted: [UInt32] = {
        var t = [UInt32](repeating: 0xFF00_0000, count: 1024)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (k, c) in alphabet.enumerated() {
            t[Int(c)] = UInt32(k) << 18
            t[256 + Int(c)] = UInt32(k) << 12
            t[512 + Int(c)] = UInt32(k) << 6
            t[768 + Int(c)] = UInt32(k)
        }
        return t
    }()

    private static let base64Table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (k, c) in alphabet.enumerated() { t[Int(c)] = UInt8(k) }
        t[Int(UInt8(ascii: "="))] = 0xFE
        return t
    }()

    /// Base64 that skips every byte outside the alphabet, stops after the padding that completes a
    /// group (what follows is trailing junk, as binascii reads it), ignores a stray '=' elsewhere, and
    /// decodes a trailing group of 2 or 3 characters as if padded (a lone trailing char is dropped).
    package static func base64(_ input: ArraySlice<UInt8>) -> [UInt8] {
        // +4: the fast path stores 4 bytes to write 3, so it needs one byte of slack.
        let capacity = input.count / 4 * 3 + 4
        return input.withUnsafeBufferPointer { buf in
            [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
                var state = Base64State()
                base64Step(buf, &state, out, stopAt: Int.max)
                count = base64Finish(&state, out)
            }
        }
    }

    /// Where a base64 decode stands between calls: the input read so far, the bytes written, and
    /// a group in progress. `BodyDecoder` keeps one to decode a body in two steps that together
    /// read each input byte once.
    struct Base64State {
        var i = 0        // next input byte
        var o = 0        // output bytes written
        var acc: UInt32 = 0
        var n = 0        // characters in the group in progress
        var pads = 0
        var done = false // the padding that completes a group was read: the rest is junk
    }

    /// Output bytes `base64Step` may need for `inputCount` input bytes (with the fast path's slack).
    static func base64Capacity(_ inputCount: Int) -> Int { inputCount / 4 * 3 + 4 }

    /// Decodes from `state.i` on into `out` (capacity `base64Capacity(buf.count)`), stopping at the
    /// end of input, after the completing padding, or at the first group boundary where at least
    /// `stopAt` bytes are written.
    static func base64Step(_ buf: UnsafeBufferPointer<UInt8>, _ state: inout Base64State,
                           _ out: UnsafeMutableBufferPointer<UInt8>, stopAt: Int) {
        guard !state.done, let outAddress = out.baseAddress else { return }
        let outBase = UnsafeMutableRawPointer(outAddress)
        base64Table.withUnsafeBufferPointer { t in
          base64Shifted.withUnsafeBufferPointer { d in
            // Every 4 accepted input bytes write 3 output bytes, so o never exceeds the capacity.
            var o = state.o, acc = state.acc, n = state.n, pads = state.pads, i = state.i
            let end = buf.count
            defer { state.o = o; state.acc = acc; state.n = n; state.pads = pads; state.i = i }
            while i < end {
                if n == 0 {
                    if o >= stopAt { return }
                    // Fast path: four alphabet characters in a row (the whole of a clean line)
                    // become 3 bytes with one 4-byte store (o + 4 <= capacity because
                    // o <= (i / 4) * 3 and i + 4 <= end).
                    var decodedAny = false
                    while i + 4 <= end && o < stopAt {
                        let v = d[Int(buf[i])] | d[256 + Int(buf[i + 1])] | d[512 + Int(buf[i + 2])] | d[768 + Int(buf[i + 3])]
                        if v & 0xFF00_0000 != 0 { break }
                        outBase.storeBytes(of: (v.byteSwapped >> 8).littleEndian, toByteOffset: o, as: UInt32.self)
                        o += 3
                        i += 4
                        decodedAny = true
                    }
                    if decodedAny { pads = 0 }
                    if i >= end || o >= stopAt { continue }
                }
                let v = t[Int(buf[i])]
                i += 1
                if v == 0xFF { continue }
                if v == 0xFE {
                    if n >= 2 { pads += 1; if n + pads >= 4 { state.done = true; return } }
                    continue
                }
                pads = 0
                acc = acc << 6 | UInt32(v)
                n += 1
                if n == 4 {
                    out[o] = UInt8(truncatingIfNeeded: acc >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: acc >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: acc)
                    o += 3
                    acc = 0
                    n = 0
                }
            }
          }
        }
    }

    /// The trailing group of 2 or 3 characters, once the input is read; returns the output count.
    static func base64Finish(_ state: inout Base64State, _ out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        // A group in progress holds at most 3 characters, and o + 2 < capacity (see base64Step).
        if state.n == 2 {
            out[state.o] = UInt8(truncatingIfNeeded: state.acc >> 4)
            state.o += 1
        } else if state.n == 3 {
            out[state.o] = UInt8(truncatingIfNeeded: state.acc >> 10)
            out[state.o + 1] = UInt8(truncatingIfNeeded: state.acc >> 2)
            state.o += 2
        }
        state.n = 0
        state.acc = 0
        return state.o
    }

    /// Quoted-printable: `=XY` (either case) decoded, `=` before a line end is a soft break, any other
    /// `=` is kept literally; line ends are kept as they are in the input.
    package static func quotedPrintable(_ input: ArraySlice<UInt8>) -> [UInt8] {
        input.withUnsafeBufferPointer { buf in
            // Output never outgrows input: every escape shrinks and other bytes copy 1:1.
            [UInt8](unsafeUninitializedCapacity: buf.count) { out, count in
                var i = 0
                count = quotedPrintableStep(buf, &i, out, written: 0, stopAt: Int.max)
            }
        }
    }

    /// Decodes quoted-printable from input offset `i` on into `out` (capacity at least the input
    /// count), after the `written` bytes already there, until the input ends or at least `stopAt`
    /// bytes are written; `i` is left where the next call goes on. Returns the bytes written in all.
    static func quotedPrintableStep(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int,
                                    _ out: UnsafeMutableBufferPointer<UInt8>, written: Int, stopAt: Int) -> Int {
        // o <= i throughout (an escape shrinks, other bytes copy 1:1), so out never overflows.
        var o = written
        let n = buf.count
        while i < n && o < stopAt {
            // Copy the run up to the next '=' in one go (memchr finds it).
            let eq = ByteScan.find(UInt8(ascii: "="), buf, from: i, end: n) ?? n
            if eq > i {
                // No further than stopAt asks (stopAt - o > 0 here; no overflow with Int.max).
                let run = min(eq - i, stopAt - o)
                // i..<i+run lies inside buf, o..<o+run inside out (o <= i).
                memcpy(out.baseAddress! + o, buf.baseAddress! + i, run)
                o += run
                i += run
                if i < eq || i == n || o >= stopAt { continue }   // stopped for stopAt, or the input ended
            }
            // Soft line break: '=' then optional trailing whitespace then (CR)LF or the end.
            var j = i + 1
            while j < n, ByteClass.isWSP(buf[j]) { j += 1 }
            if j == n { i = n; continue }
            if buf[j] == 0x0A { i = j + 1; continue }
            if buf[j] == 0x0D {
                i = (j + 1 < n && buf[j + 1] == 0x0A) ? j + 2 : j + 1
                continue
            }
            if i + 2 < n, let hi = ByteClass.hexValue(buf[i + 1]), let lo = ByteClass.hexValue(buf[i + 2]) {
                out[o] = hi << 4 | lo
                i += 3
            } else {
                out[o] = UInt8(ascii: "=")
                i += 1
            }
            o += 1
        }
        return o
    }

    /// uuencode: skips to a `begin ` line, decodes each line by its length character until `end`
    /// (or the input ends). Bodies with no `begin` line are decoded from the start.
    package static func uudecode(_ input: ArraySlice<UInt8>) -> [UInt8] {
        // Lines found with memchr and written through a pointer: appending byte by byte cost 35
        // instructions per input byte (12 M for one 350 KB attachment in the issue 17 profile).
        input.withUnsafeBufferPointer { p in
            // A line of L content bytes writes at most 3 * ceil((L - 1) / 4) <= L + 1 bytes, and
            // every line but the last is followed by its LF: the output never outgrows input + 1.
            let capacity = p.count + 4
            return [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                written = uudecode(p, into: out)
            }
        }
    }

    /// The body of `uudecode(_:)`; returns the bytes written to `out` (capacity >= input + 4).
    private static func uudecode(_ p: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let n = p.count
        // The next line: content start..<end (one CR before the LF dropped), and where the one after starts.
        func line(at start: Int) -> (end: Int, next: Int) {
            let lf = ByteScan.find(0x0A, p, from: start, end: n)
            var end = lf ?? n
            if end > start, p[end - 1] == 0x0D { end -= 1 }   // also a last line's CR with no LF after it
            return (end, lf.map { $0 + 1 } ?? n)
        }
        func startsWith(_ literal: StaticString, _ start: Int, _ end: Int) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard end - start >= count else { return false }
            return literal.withUTF8Buffer { lit in
                for k in 0..<count where p[start + k] != lit[k] { return false }
                return true
            }
        }
        // Does the input have a begin line at all?
        var sawBegin = false
        var pos = 0
        while pos < n {
            let (end, next) = line(at: pos)
            if startsWith("begin ", pos, end) { sawBegin = true; break }
            pos = next
        }
        var started = !sawBegin
        var o = 0
        pos = 0
        while pos < n {
            let (end, next) = line(at: pos)
            defer { pos = next }
            if !started {
                if startsWith("begin ", pos, end) { started = true }
                continue
            }
            if startsWith("end", pos, end) && end - pos <= 4 { break }
            guard end > pos else { continue }
            let count = Int((p[pos] &- 0x20) & 0x3F)  // wrapping: the length char is ' '...'`'
            if count == 0 { continue }
            var produced = 0
            var k = pos + 1
            // The length character says how many bytes the line holds; wrapping (&-) is the
            // uuencode alphabet rule, and a character past the line's end counts as a space.
            func sixBits(_ at: Int) -> UInt32 { UInt32(((at < end ? p[at] : 0x20) &- 0x20) & 0x3F) }
            // Whole groups inside the line first (no end checks per character), then the rest.
            while produced + 3 <= count && k + 4 <= end && o + 3 <= out.count {
                @inline(__always) func bits(_ at: Int) -> UInt32 { UInt32((p[at] &- 0x20) & 0x3F) }
                let triple = bits(k) << 18 | bits(k + 1) << 12 | bits(k + 2) << 6 | bits(k + 3)
                out[o] = UInt8(truncatingIfNeeded: triple >> 16)
                out[o + 1] = UInt8(truncatingIfNeeded: triple >> 8)
                out[o + 2] = UInt8(truncatingIfNeeded: triple)
                o += 3
                produced += 3
                k += 4
            }
            while produced < count && k < end {
                let triple = sixBits(k) << 18 | sixBits(k + 1) << 12 | sixBits(k + 2) << 6 | sixBits(k + 3)
                // Room: see the capacity in uudecode(_:); checked so a mistake there cannot write past it.
                guard o + 3 <= out.count else { return o }
                out[o] = UInt8(truncatingIfNeeded: triple >> 16)
                o += 1
                if produced + 1 < count { out[o] = UInt8(truncatingIfNeeded: triple >> 8); o += 1 }
                if produced + 2 < count { out[o] = UInt8(truncatingIfNeeded: triple); o += 1 }
                produced += 3
                k += 4
            }
        }
        return o
    }
}
