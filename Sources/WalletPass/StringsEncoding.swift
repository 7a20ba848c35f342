/// The encoding a `pass.strings` file was written in, as `StringsFile.decode` reads it, so a
/// rewritten file (a scrubbed copy) keeps it: UTF-16 big- or little-endian with or without a
/// byte-order mark, UTF-8 with or without one, else Latin-1.
struct StringsEncoding: Equatable {
    enum Form: Equatable { case utf8, utf16BE, utf16LE, latin1 }
    var form: Form
    var byteOrderMark: Bool

    init(of b: [UInt8]) {
        if b.starts(with: [0xFE, 0xFF]) { self.init(form: .utf16BE, byteOrderMark: true); return }
        if b.starts(with: [0xFF, 0xFE]) { self.init(form: .utf16LE, byteOrderMark: true); return }
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { self.init(form: .utf8, byteOrderMark: true); return }
        // The same test as StringsFile.decode: zero bytes on one side of the first code units.
        let sample = b.prefix(64)
        if sample.count >= 4 {
            var evenZero = 0, oddZero = 0
            for (i, byte) in sample.enumerated() where byte == 0 {
                if i % 2 == 0 { evenZero += 1 } else { oddZero += 1 }
            }
            let pairs = sample.count / 2
            if evenZero * 4 >= pairs * 3, oddZero == 0 { self.init(form: .utf16BE, byteOrderMark: false); return }
            if oddZero * 4 >= pairs * 3, evenZero == 0 { self.init(form: .utf16LE, byteOrderMark: false); return }
        }
        self.init(form: String(validating: b, as: UTF8.self) != nil ? .utf8 : .latin1, byteOrderMark: false)
    }

    init(form: Form, byteOrderMark: Bool) {
        self.form = form
        self.byteOrderMark = byteOrderMark
    }

    /// `text` in this encoding. Latin-1 writes a character beyond U+00FF as a `\U` escape, which
    /// .strings syntax reads back as that character.
    func encode(_ text: String) -> [UInt8] {
        switch form {
        case .utf8:
            return (byteOrderMark ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8)
        case .utf16BE, .utf16LE:
            var out: [UInt8] = byteOrderMark ? (form == .utf16BE ? [0xFE, 0xFF] : [0xFF, 0xFE]) : []
            out.reserveCapacity(out.count + text.utf16.count * 2)
            for unit in text.utf16 {
                let hi = UInt8(unit >> 8), lo = UInt8(unit & 0xFF)
                if form == .utf16BE { out += [hi, lo] } else { out += [lo, hi] }
            }
            return out
        case .latin1:
            var out: [UInt8] = []
            for scalar in text.unicodeScalars {
                if scalar.value <= 0xFF { out.append(UInt8(scalar.value)); continue }
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: true)
                    out += Array(("\\U" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
            }
            return out
        }
    }
}
