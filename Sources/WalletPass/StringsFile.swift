/// A `pass.strings` file: Apple `.strings` syntax (`"key" = "value";`, `/* */` and `//` comments,
/// escapes `\" \\ \n \r \t \Uxxxx \uxxxx`, surrogate pairs, unquoted plist tokens), in UTF-16 BE/LE
/// with a byte-order mark, UTF-8 with or without one, UTF-16 without a mark when every other byte
/// is zero, else Latin-1. Duplicate keys: the last one wins.
///
/// Why not `PropertyListSerialization` (measured by `Benchmarks/parsers/run.sh`): on the 20 real
/// .strings files of corpus/pkpass-real both read the same entries and Foundation is a little
/// faster (0.74x our time, microseconds per pass), but it must stay ours because
/// - one syntax error (a missing ';', a file cut short) makes Foundation return nothing, where we
///   keep every entry before it and say where reading stopped: a pass keeps most of its labels;
/// - Foundation rejects UTF-16 without a byte-order mark and Latin-1 files, both seen in passes;
/// - on such an error Foundation writes "CFPropertyListCreateFromXMLData(): Old-style plist parser…"
///   to stderr itself, and the delivery filter's stderr must stay silent on success.
struct StringsFile: Equatable {
    var entries: [String: String]
    /// Where reading stopped early, if it did; entries before that point are kept.
    var problem: String?

    static func parse(_ bytes: [UInt8]) -> StringsFile {
        var lexer = Lexer(units: decode(bytes))
        var entries: [String: String] = [:]
        while true {
            do {
                guard let key = try lexer.token() else { return StringsFile(entries: entries, problem: nil) }
                guard try lexer.punctuation() == "=" else {
                    throw Lexer.Failure(offset: lexer.p, reason: "expected '=' after \(PassError.quoted(key))")
                }
                guard let value = try lexer.token() else {
                    throw Lexer.Failure(offset: lexer.p, reason: "missing value for \(PassError.quoted(key))")
                }
                guard try lexer.punctuation() == ";" else {
                    throw Lexer.Failure(offset: lexer.p, reason: "expected ';' after the value of \(PassError.quoted(key))")
                }
                entries[key] = value
            } catch let f as Lexer.Failure {
                return StringsFile(entries: entries, problem: "\(f.reason) at character \(f.offset)")
            } catch {
                return StringsFile(entries: entries, problem: "\(error)")
            }
        }
    }

    /// UTF-16 code units of the text, whatever the encoding on disk.
    static func decode(_ b: [UInt8]) -> [UInt16] {
        func utf16(_ body: ArraySlice<UInt8>, bigEndian: Bool) -> [UInt16] {
            var out: [UInt16] = []
            out.reserveCapacity(body.count / 2)
            var i = body.startIndex
            while i + 1 < body.endIndex {
                let hi = bigEndian ? body[i] : body[i + 1]
                let lo = bigEndian ? body[i + 1] : body[i]
                out.append(UInt16(hi) << 8 | UInt16(lo))
                i += 2
            }
            return out
        }
        if b.starts(with: [0xFE, 0xFF]) { return utf16(b.dropFirst(2), bigEndian: true) }
        if b.starts(with: [0xFF, 0xFE]) { return utf16(b.dropFirst(2), bigEndian: false) }
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(String(decoding: b.dropFirst(3), as: UTF8.self).utf16) }
        // No mark: UTF-16 if the first code units have a zero byte on one side.
        let sample = b.prefix(64)
        if sample.count >= 4 {
            var evenZero = 0, oddZero = 0
            for (i, byte) in sample.enumerated() where byte == 0 {
                if i % 2 == 0 { evenZero += 1 } else { oddZero += 1 }
            }
            let pairs = sample.count / 2
            if evenZero * 4 >= pairs * 3, oddZero == 0 { return utf16(b[...], bigEndian: true) }
            if oddZero * 4 >= pairs * 3, evenZero == 0 { return utf16(b[...], bigEndian: false) }
        }
        if let text = String(validating: b, as: UTF8.self) { return Array(text.utf16) }
        return b.map { UInt16($0) }  // Latin-1: every byte is its own code point
    }

    struct Lexer {
        struct Failure: Error { var offset: Int; var reason: String }
        let units: [UInt16]
        var p = 0

        mutating func skipSpaceAndComments() throws {
            while p < units.count {
                let c = units[p]
                if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0xFEFF {
                    p += 1
                } else if c == 0x2F, p + 1 < units.count, units[p + 1] == 0x2A {  // /*
                    p += 2
                    while p + 1 < units.count, !(units[p] == 0x2A && units[p + 1] == 0x2F) { p += 1 }
                    guard p + 1 < units.count else { throw Failure(offset: p, reason: "unterminated comment") }
                    p += 2
                } else if c == 0x2F, p + 1 < units.count, units[p + 1] == 0x2F {  // //
                    while p < units.count, units[p] != 0x0A { p += 1 }
                } else {
                    return
                }
            }
        }

        mutating func punctuation() throws -> Character? {
            try skipSpaceAndComments()
            guard p < units.count else { return nil }
            let c = units[p]
            guard c == 0x3D || c == 0x3B else { return nil }
            p += 1
            return c == 0x3D ? "=" : ";"
        }

        /// A quoted string or an unquoted plist token; nil at the end of the input.
        mutating func token() throws -> String? {
            try skipSpaceAndComments()
            guard p < units.count else { return nil }
            if units[p] != 0x22 {
                let start = p
                while p < units.count, Self.isTokenUnit(units[p]) { p += 1 }
                guard p > start else { throw Failure(offset: p, reason: "unexpected character") }
                return String(decoding: units[start..<p], as: UTF16.self)
            }
            p += 1
            var out: [UInt16] = []
            while true {
                guard p < units.count else { throw Failure(offset: p, reason: "unterminated string") }
                let c = units[p]
                p += 1
                if c == 0x22 { return String(decoding: out, as: UTF16.self) }
                guard c == 0x5C else { out.append(c); continue }
                guard p < units.count else { throw Failure(offset: p, reason: "unterminated escape") }
                let e = units[p]
                p += 1
                switch e {
                case 0x6E: out.append(0x0A)  // n
                case 0x72: out.append(0x0D)  // r
                case 0x74: out.append(0x09)  // t
                case 0x55, 0x75:  // U, u: four hex digits, one UTF-16 code unit
                    var v: UInt16 = 0
                    for _ in 0..<4 {
                        guard p < units.count, let d = Self.hexValue(units[p]) else {
                            throw Failure(offset: p, reason: "bad \\U escape")
                        }
                        v = v << 4 | d
                        p += 1
                    }
                    out.append(v)
                case 0x30...0x37:  // octal \ooo (old-style plist)
                    var v = UInt16(e - 0x30)
                    var n = 1
                    while n < 3, p < units.count, (0x30...0x37).contains(units[p]) {
                        v = v << 3 | (units[p] - 0x30)
                        p += 1
                        n += 1
                    }
                    out.append(v)
                default: out.append(e)  // \" \\ \' and anything else: the character itself
                }
            }
        }

        static func isTokenUnit(_ c: UInt16) -> Bool {
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
                || c == 0x5F || c == 0x2E || c == 0x24 || c == 0x3A || c == 0x2F || c == 0x2D
        }

        static func hexValue(_ c: UInt16) -> UInt16? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
    }
}
