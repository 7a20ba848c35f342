/// Byte classification used by the header and parameter parsers.
enum ByteClass {
    @inline(__always) static func lower(_ b: UInt8) -> UInt8 {
        // A-Z only; &+ cannot overflow because b <= 0x5A here.
        (b >= 0x41 && b <= 0x5A) ? b &+ 0x20 : b
    }
    @inline(__always) static func isWSP(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
    @inline(__always) static func isLWSP(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }
    /// RFC 5322 ftext: printable US-ASCII except ':' (obsolete syntax allows the same set).
    @inline(__always) static func isFieldNameByte(_ b: UInt8) -> Bool { b > 0x20 && b < 0x7F && b != 0x3A }
    /// RFC 2045 tspecials plus space and controls end a token.
    @inline(__always) static func isTokenByte(_ b: UInt8) -> Bool {
        if b <= 0x20 || b >= 0x7F { return b >= 0x80 }  // raw 8-bit stays inside tokens (lenient)
        switch b {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
             UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="):
            return false
        default: return true
        }
    }
    @inline(__always) static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b &- 0x30  // cannot underflow: b >= 0x30
        case 0x41...0x46: return b &- 0x37  // b >= 0x41
        case 0x61...0x66: return b &- 0x57  // b >= 0x61
        default: return nil
        }
    }
    /// The part of `p` inside its leading and trailing spaces and tabs, or nil when `p` holds a
    /// byte outside ASCII (then a String's characters are not its bytes, and callers fall back to
    /// character-wise trimming).
    static func asciiBlankTrimmed(_ p: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        for b in p where b >= 0x80 { return nil }
        var start = 0
        var end = p.count
        while start < end, isWSP(p[start]) { start += 1 }
        while end > start, isWSP(p[end - 1]) { end -= 1 }
        return start..<end
    }
    /// Case-insensitive ASCII comparison of a byte slice with a lowercase literal.
    static func equalsLowercase(_ bytes: ArraySlice<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return literal.withUTF8Buffer { lit in
            var i = bytes.startIndex
            for c in lit {
                if lower(bytes[i]) != c { return false }
                i += 1
            }
            return true
        }
    }
}
