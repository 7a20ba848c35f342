/// A pass colour: documented as CSS `rgb(r, g, b)`; real passes also use `rgba(…)` and `#rrggbb`/`#rgb`.
package struct PassColor: Sendable, Equatable, CustomStringConvertible {
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8
    package var alpha: Double = 1

    package init(red: UInt8, green: UInt8, blue: UInt8, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Reads `#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb(r, g, b)` and `rgba(r, g, b, a)` (any case and
    /// spacing) from the bytes, without building intermediate strings.
    package init?(_ text: String) {
        guard text.utf8.count <= 64 else { return nil }  // no colour is longer; bounds the work below
        var b = Array(text.utf8)
        b.removeAll { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        for i in b.indices where b[i] >= 0x41 && b[i] <= 0x5A { b[i] |= 0x20 }  // ASCII lowercase
        func hex(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        if b.first == UInt8(ascii: "#") {
            let digits = b.dropFirst().map(hex)
            guard [3, 6, 8].contains(digits.count), !digits.contains(nil) else { return nil }
            let d = digits.map { $0! }  // all non-nil, checked above
            if d.count == 3 {
                (red, green, blue) = (d[0] * 17, d[1] * 17, d[2] * 17)
            } else {
                (red, green, blue) = (d[0] << 4 | d[1], d[2] << 4 | d[3], d[4] << 4 | d[5])
                if d.count == 8 { alpha = Double(d[6] << 4 | d[7]) / 255 }
            }
            return
        }
        let isRGBA = b.starts(with: Array("rgba(".utf8))
        guard isRGBA || b.starts(with: Array("rgb(".utf8)), b.last == UInt8(ascii: ")") else { return nil }
        let inner = b[(isRGBA ? 5 : 4)..<(b.count - 1)]
        let parts = inner.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 4, isRGBA == (parts.count == 4) || !isRGBA else { return nil }
        func channel(_ p: ArraySlice<UInt8>) -> UInt8? {
            guard let d = Double(String(decoding: p, as: UTF8.self)), d >= 0, d <= 255 else { return nil }
            return UInt8(d.rounded())
        }
        guard let r = channel(parts[0]), let g = channel(parts[1]), let bl = channel(parts[2]) else { return nil }
        (red, green, blue) = (r, g, bl)
        if parts.count == 4 {
            guard let a = Double(String(decoding: parts[3], as: UTF8.self)), a >= 0, a <= 1 else { return nil }
            alpha = a
        }
    }

    /// "#rrggbb".
    package var hex: String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for v in [red, green, blue] {
            s.append(digits[Int(v >> 4)])
            s.append(digits[Int(v & 0xF)])
        }
        return s
    }

    package var description: String { hex }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropLast() }
        return String(s)
    }
}
