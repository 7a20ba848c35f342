import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Turns bytes in a named charset into a String: every charset goes through glibc's `iconv` (the
/// same idea as Python's `codecs` and GMime: one library that knows every charset mail has used).
///
/// - Names are folded as mail spells them (`x-`, `cp125x`, `_`, `latin1`, ...) and a few labels are
///   read as the superset mail software actually sends under them (GB2312 as GBK, EUC-KR and
///   ks_c_5601-1987 as CP949, Shift_JIS as Windows-31J): valid text in the label decodes the same.
/// - Invalid or incomplete sequences become U+FFFD and decoding carries on after them (one byte
///   is skipped per invalid sequence), so a bad byte never cuts the rest of the text.
/// - Output is bounded: at most `maxOutputBytes(forInput:)` UTF-8 bytes per call.
/// - A name iconv does not know keeps the lenient rule: UTF-8 when the bytes are valid UTF-8, else
///   Windows-1252. Callers that can record defects use `decodeReporting` to learn it happened.
///
/// Converters are cached per charset and handed out to one caller at a time (a small free list
/// per name behind a lock), so concurrent scans never share an `iconv_t`'s shift state.
package enum Charset {
    /// Lowercased, with the common spellings folded together ("ISO8859_1" -> "iso-8859-1").
    package static func canonicalName(_ raw: String) -> String {
        // Charset names are ASCII: trimmed, lowercased and '_' -> '-' in one pass over the bytes.
        // Foundation's trimming and replacing cost 20 000 instructions a name (issue 17 profile).
        var name = foldedASCII(raw)
            ?? raw.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: "-")
        if name.hasPrefix("iso8859-") { name = "iso-8859-" + name.dropFirst(8) }
        else if name.hasPrefix("iso8859") { name = "iso-8859-" + name.dropFirst(7) }
        if name.hasPrefix("iso-8859-"), let colon = name.firstIndex(of: ":") { name = String(name[..<colon]) }
        if name.hasPrefix("x-") { name = String(name.dropFirst(2)) }
        if name.hasPrefix("cp125") { name = "windows-" + name.dropFirst(2) }
        if name.hasPrefix("windows-") == false, name.hasPrefix("win-125") { name = "windows-" + name.dropFirst(4) }
        switch name {
        case "utf8", "unicode-1-1-utf-8": return "utf-8"
        case "latin1", "latin-1", "l1", "iso-ir-100", "iso-8859-1": return "iso-8859-1"
        case "latin2", "latin-2", "l2": return "iso-8859-2"
        case "latin9", "latin-9": return "iso-8859-15"
        case "ascii", "us-ascii", "us", "ansi-x3.4-1968", "iso646-us", "646": return "us-ascii"
        case "sjis", "shift-jis", "ms-kanji", "windows-31j", "cp932": return "shift_jis"
        case "koi8r": return "koi8-r"
        case "koi8u": return "koi8-u"
        case "macintosh", "mac", "macroman", "mac-roman": return "mac-roman"
        case "ks-c-5601-1987", "ks-c-5601", "ksc5601", "ksc-5601", "cp949", "uhc", "windows-949": return "euc-kr"
        case "gb-2312", "csgb2312", "euc-cn": return "gb2312"
        case "cp936", "windows-936", "ms936": return "gbk"
        case "big5hkscs": return "big5-hkscs"
        case "tis620": return "tis-620"
        default: return name
        }
    }

    /// For an all-ASCII name, what `trimmingCharacters(in: .whitespaces).lowercased()` and then
    /// '_' -> '-' make of it (the ASCII members of `.whitespaces` are space and tab); nil otherwise.
    static func foldedASCII(_ raw: String) -> String? {
        var raw = raw
        return raw.withUTF8 { p -> String? in
            guard let kept = ByteClass.asciiBlankTrimmed(p) else { return nil }
            return String(unsafeUninitializedCapacity: kept.count) { out in
                for k in kept {
                    let b = p[k]
                    out[k - kept.lowerBound] = b == 0x5F ? 0x2D : ByteClass.lower(b)
                }
                return kept.count
            }
        }
    }

    /// The name handed to `iconv_open` for a canonical name: the superset mail software means.
    static func iconvName(_ canonical: String) -> String {
        switch canonical {
        case "gb2312": return "GBK"
        case "euc-kr": return "CP949"
        case "shift_jis": return "CP932"  // glibc's SHIFT_JIS reads 0x5C as a yen sign; mail means a backslash
        case "mac-roman": return "MACINTOSH"
        default: return canonical.uppercased()
        }
    }

    /// Decodes `bytes` in `charset` (nil = unknown). Never fails.
    package static func decode<C: Collection>(_ bytes: C, charset: String?) -> String where C.Element == UInt8 {
        decodeReporting(bytes, charset: charset).text
    }

    /// Decodes `bytes` in `charset`; `known` is false when the name was not a charset iconv knows
    /// (the text is then read by the lenient rule).
    package static func decodeReporting<C: Collection>(_ bytes: C, charset: String?) -> (text: String, known: Bool) where C.Element == UInt8 {
        guard let charset else { return (decodeLenient(bytes), true) }
        let name = canonicalName(charset)
        switch name {
        case "utf-8":
            return (String(decoding: bytes, as: UTF8.self), true)  // invalid sequences -> U+FFFD
        case "us-ascii", "":
            // Declared ASCII with 8-bit bytes is mislabelled mail: read it the lenient way.
            return (decodeLenient(bytes), true)
        default:
            break
        }
        if isASCIICompatible(name), isAllASCII(bytes) { return (String(decoding: bytes, as: UTF8.self), true) }
        guard let text = ConverterCache.shared.convert(bytes, iconvName: iconvName(name)) else {
            return (decodeLenient(bytes), false)
        }
        if name.hasPrefix("iso-2022-") || name.hasPrefix("csiso2022"), text.unicodeScalars.contains(where: isShiftControl) {
            // glibc passes C0 controls through in every ISO-2022 mode, so a broken escape
            // sequence would leave its ESC (or a stray SO/SI) in the text: shift functions are
            // never text in these charsets, so they become U+FFFD.
            var scalars = String.UnicodeScalarView()
            for s in text.unicodeScalars { scalars.append(isShiftControl(s) ? "\u{FFFD}" : s) }
            return (String(scalars), true)
        }
        return (text, true)
    }

    private static func isShiftControl(_ s: Unicode.Scalar) -> Bool { s == "\u{1B}" || s == "\u{0E}" || s == "\u{0F}" }

    /// True when iconv can decode `charset` (after folding), or it is UTF-8 / ASCII.
    package static func isKnown(_ charset: String) -> Bool {
        let name = canonicalName(charset)
        if name == "utf-8" || name == "us-ascii" { return true }
        return ConverterCache.shared.knows(iconvName: iconvName(name))
    }

    /// UTF-8 when the bytes are valid UTF-8, otherwise Windows-1252 (what 8-bit mail almost always is).
    package static func decodeLenient<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if isAllASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        return ConverterCache.shared.convert(bytes, iconvName: "WINDOWS-1252")
            ?? String(decoding: bytes, as: UTF8.self)  // only if glibc lacks its gconv modules
    }

    static func isAllASCII<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        for b in bytes where b >= 0x80 { return false }
        return true
    }

    /// Charsets whose bytes below 0x80 are always ASCII (so all-ASCII input needs no converter).
    /// Not ISO-2022-* (ESC sequences switch sets), UTF-7, UTF-16/32, HZ or EBCDIC.
    static func isASCIICompatible(_ name: String) -> Bool {
        for prefix in ["iso-8859-", "windows-", "koi8-", "gb", "big5", "euc-", "tis-620", "mac-roman"] where name.hasPrefix(prefix) {
            return true
        }
        return name == "shift_jis"
    }

    /// The most UTF-8 bytes one call produces for `count` input bytes: a byte never yields more
    /// than one U+FFFD (3 bytes) and no charset expands a byte to more than 4 UTF-8 bytes.
    static func maxOutputBytes(forInput count: Int) -> Int { count * 4 + 16 }
}

/// iconv converters to UTF-8, cached per charset name. A converter is checked out for one call and
/// returned (its shift state reset) afterwards, so two threads never use one `iconv_t` at once.
/// Bounded: at most `maxNames` names are remembered (known or not) and `maxIdlePerName` idle
/// converters per name; beyond that a converter is opened for the call and closed after it.
final class ConverterCache: @unchecked Sendable {  // all mutable state is behind `lock`
    static let shared = ConverterCache()

    private let lock = NSLock()
    private var idle: [String: [iconv_t]] = [:]
    private var unknown: Set<String> = []
    static let maxNames = 128
    static let maxIdlePerName = 4

    /// A name iconv must never see: empty, over-long, or carrying "//" suffixes (TRANSLIT, IGNORE)
    /// or path characters. Real charset names are short runs of letters, digits and -_.:()+.
    static func isPlausible(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 40 else { return false }
        return name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x3A || b == 0x28 || b == 0x29 || b == 0x2B
        }
    }

    /// An idle or new converter for `name`; nil when iconv does not know the name.
    private func checkOut(_ name: String) -> iconv_t? {
        lock.lock()
        if unknown.contains(name) { lock.unlock(); return nil }
        if var list = idle[name], let cd = list.popLast() {
            idle[name] = list
            lock.unlock()
            return cd
        }
        lock.unlock()
        guard Self.isPlausible(name) else { return nil }
        let cd = iconv_open("UTF-8", name)
        // iconv_open returns (iconv_t)-1 on failure.
        if cd == nil || Int(bitPattern: cd) == -1 {
            lock.lock()
            if idle.count + unknown.count < Self.maxNames { unknown.insert(name) }
            lock.unlock()
            return nil
        }
        return cd
    }

    private func checkIn(_ name: String, _ cd: iconv_t) {
        _ = iconv(cd, nil, nil, nil, nil)  // back to the initial shift state for the next caller
        lock.lock()
        let list = idle[name]
        let room = list.map { $0.count < Self.maxIdlePerName } ?? (idle.count + unknown.count < Self.maxNames)
        if room { idle[name, default: []].append(cd) }
        lock.unlock()
        if !room { iconv_close(cd) }
    }

    func knows(iconvName name: String) -> Bool {
        guard let cd = checkOut(name) else { return false }
        checkIn(name, cd)
        return true
    }

    /// `bytes` from charset `name` to a String; nil when iconv does not know `name`.
    func convert<C: Collection>(_ bytes: C, iconvName name: String) -> String? where C.Element == UInt8 {
        guard let cd = checkOut(name) else { return nil }
        defer { checkIn(name, cd) }
        let out: [UInt8]
        if let direct = bytes.withContiguousStorageIfAvailable({ Self.run(cd, $0) }) {
            out = direct
        } else {
            out = Array(bytes).withUnsafeBufferPointer { Self.run(cd, $0) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]  // U+FFFD in UTF-8

    /// Converts all of `input` with `cd` (in its initial state). glibc's //IGNORE and //TRANSLIT
    /// do not replace with U+FFFD, so errors are handled here: EILSEQ -> U+FFFD, skip one byte and
    /// carry on (the shift state is kept); EINVAL (a sequence cut by the end) -> U+FFFD and stop.
    static func run(_ cd: iconv_t, _ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        guard let base = input.baseAddress, !input.isEmpty else { return out }
        let limit = Charset.maxOutputBytes(forInput: input.count)
        out.reserveCapacity(min(limit, input.count * 2 + 16))
        let chunkSize = 1024
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: chunkSize) { chunk -> [UInt8] in
            guard let chunkBase = chunk.baseAddress else { return out }
            var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self)
            var inLeft = input.count
            func append(_ produced: Int) {
                chunkBase.withMemoryRebound(to: UInt8.self, capacity: produced) {
                    out.append(contentsOf: UnsafeBufferPointer(start: $0, count: produced))
                }
            }
            while inLeft > 0 && out.count < limit {
                var outPtr: UnsafeMutablePointer<CChar>? = chunkBase
                var outLeft = chunkSize
                let result = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                let failure = errno
                append(chunkSize - outLeft)
                if result != -1 { continue }  // everything converted (inLeft is 0)
                switch failure {
                case E2BIG:
                    continue
                case EILSEQ:
                    out.append(contentsOf: replacement)
                    inPtr = inPtr.map { $0 + 1 }
                    inLeft -= 1
                default:  // EINVAL: incomplete sequence at the end (or anything unexpected)
                    out.append(contentsOf: replacement)
                    inLeft = 0
                }
            }
            // Flush: a stateful decoder may hold a pending character (none does for UTF-8 output today).
            var outPtr: UnsafeMutablePointer<CChar>? = chunkBase
            var outLeft = chunkSize
            _ = iconv(cd, nil, nil, &outPtr, &outLeft)
            append(chunkSize - outLeft)
            if out.count > limit {
                // Cut at a character boundary (never inside a UTF-8 sequence).
                var cut = limit
                while cut > 0 && out[cut] & 0xC0 == 0x80 { cut -= 1 }
                out.removeSubrange(cut...)
                out.append(contentsOf: replacement)
            }
            return out
        }
    }
}
