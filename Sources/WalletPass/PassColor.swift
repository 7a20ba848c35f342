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

    package init?(_ text: String) {
        let s = text.trimmingSpaces().lowercased()
        if s.hasPrefix("#") {
            let hex = Array(s.utf8.dropFirst())
            guard hex.count == 3 || hex.count == 6 || hex.count == 8,
                  let value = UInt32(String(decoding: hex, as: UTF8.self), radix: 16) else { return nil }
            switch hex.count {
            case 3:
                red = UInt8((value >> 8) & 0xF) * 17
                green = UInt8((value >> 4) & 0xF) * 17
                blue = UInt8(value & 0xF) * 17
            case 6:
                red = UInt8((value >> 16) & 0xFF)
                green = UInt8((value >> 8) & 0xFF)
                blue = UInt8(value & 0xFF)
            default:
                red = UInt8((value >> 24) & 0xFF)
                green = UInt8((value >> 16) & 0xFF)
                blue = UInt8((value >> 8) & 0xFF)
                alpha = Double(value & 0xFF) / 255
            }
            return
        }
        let isRGBA = s.hasPrefix("rgba(")
        guard (s.hasPrefix("rgb(") || isRGBA), s.hasSuffix(")") else { return nil }
        let inner = s.dropFirst(isRGBA ? 5 : 4).dropLast()
        let parts = inner.split(separator: ",").map { String($0).trimmingSpaces() }
        guard parts.count == (isRGBA ? 4 : 3) || (!isRGBA && parts.count == 4) else { return nil }
        func channel(_ t: String) -> UInt8? {
            if let v = Int(t), (0...255).contains(v) { return UInt8(v) }
            if let d = Double(t), d >= 0, d <= 255 { return UInt8(d.rounded()) }
            return nil
        }
        guard let r = channel(parts[0]), let g = channel(parts[1]), let b = channel(parts[2]) else { return nil }
        red = r
        green = g
        blue = b
        if parts.count == 4 {
            guard let a = Double(parts[3]), a >= 0, a <= 1 else { return nil }
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
