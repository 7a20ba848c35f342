import MailMIME

/// The one set of rules for text that came from a message or a pass (subjects, file names, pass
/// fields, organization names, certificate subjects, error details quoting them) on its way to a
/// place that interprets characters: a terminal (`TerminalText`) or a mail header
/// (`FilterHeaderWriter`). JSON output keeps the exact text and escapes it instead (`JSONOutput`).
///
/// Each place decides what to do with a class; the classes are decided here, once.
package enum TextSafety {
    package enum Class: Equatable {
        /// Shown as it is.
        case plain
        /// TAB: harmless, but it breaks columns.
        case tab
        /// LF, CR, VT, FF, NEL (U+0085), LINE/PARAGRAPH SEPARATOR (U+2028/2029).
        case lineBreak
        /// Any other C0 control (ESC starts CSI and OSC sequences), DEL, or a C1 control
        /// (U+009B is a one-character CSI on 8-bit terminals, U+009D an OSC).
        case control
        /// Bidi embeddings, overrides, isolates and marks (U+202A–202E, U+2066–2069, U+200E,
        /// U+200F, U+061C): they reorder what is shown around them ("Trojan Source").
        case bidi
        /// A byte of a file name that is not UTF-8, carried as `PathBytes` escapes it.
        case rawByte(UInt8)
    }

    package static func classify(_ s: Unicode.Scalar) -> Class {
        let v = s.value
        switch v {
        case 0x09: return .tab
        case 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029: return .lineBreak
        case 0x00..<0x20, 0x7F, 0x80..<0xA0: return .control
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return .bidi
        default:
            if let byte = PathBytes.escapedByte(s) { return .rawByte(byte) }
            return .plain
        }
    }

    /// True when nothing in `text` needs cleaning (the common case: no copy is made).
    package static func isPlain(_ text: String) -> Bool {
        // Every class but .plain has a scalar below U+00A0 or in a few ranges above it; a quick
        // byte check rules out the common ASCII text first.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return true }
        return text.unicodeScalars.allSatisfy { classify($0) == .plain }
    }
}

/// Text from a message or a pass made safe for a terminal: no control character, escape
/// sequence (CSI, OSC) or bidi control reaches it. Controls and bidi controls are shown as
/// `<U+001B>`, `<U+202E>`; bytes of a file name that are not UTF-8 as `\xe9`; TAB as a space.
package enum TerminalText {
    /// For one line: line breaks become spaces.
    package static func line(_ text: String) -> String { clean(text, keepNewlines: false) }

    /// For text shown over several lines (a field's value, a pass's back): LF stays, CR goes,
    /// other line breaks become LF.
    package static func lines(_ text: String) -> String { clean(text, keepNewlines: true) }

    /// Optional convenience for interpolations.
    package static func line(_ text: String?) -> String? { text.map { line($0) } }

    private static func clean(_ text: String, keepNewlines: Bool) -> String {
        if TextSafety.isPlain(text) { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            switch TextSafety.classify(s) {
            case .plain: out.append(s)
            case .tab: out.append(" ")
            case .lineBreak:
                if !keepNewlines { out.append(" ") } else if s != "\r" { out.append("\n") }
            case .control, .bidi: out.append(contentsOf: visible(s).unicodeScalars)
            case .rawByte(let byte): out.append(contentsOf: PathBytes.hexEscape(byte).unicodeScalars)
            }
        }
        return String(out)
    }

    /// `<U+001B>`: what a scalar that may not reach the terminal is shown as.
    static func visible(_ s: Unicode.Scalar) -> String {
        let hex = String(s.value, radix: 16, uppercase: true)
        return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
    }
}
