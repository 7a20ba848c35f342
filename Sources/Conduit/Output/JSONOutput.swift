import Foundation
import MailMIME

/// A JSON value with object keys kept in the order written, so NDJSON lines read the same way
/// every time (field order is part of what people grep for). Serialises to one line.
package indirect enum JSONOutput: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    /// A file name (a `PathBytes` carrier): bytes that are not UTF-8 are written as `\udc80`–`\udcff`
    /// (PEP 383; Python's `os.fsencode(value)` gives back the exact bytes).
    case path(String)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    package static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool { lhs.line == rhs.line }

    package static func string(_ value: String?) -> JSONOutput { value.map { .string($0) } ?? .null }
    package static func path(_ value: String?) -> JSONOutput { value.map { .path($0) } ?? .null }
    package static func date(_ value: Date?) -> JSONOutput { value.map { .string(DateText.iso($0)) } ?? .null }

    /// The compact one-line form (no spaces), valid JSON (RFC 8259).
    package var line: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .string(let value): Self.quote(value, into: &out)
        case .path(let value): Self.quote(value, into: &out, rawBytes: true)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                value.write(into: &out)
            }
            out += "}"
        }
    }

    /// Escapes quotes, backslashes and every control character (C0, DEL, C1); U+2028/2029 too, so
    /// a line is also safe to paste into JavaScript; and bidi controls, so `--json` read on a
    /// terminal cannot reorder it. The text is kept exactly: a JSON reader gets every character back.
    private static func quote(_ text: String, into out: inout String, rawBytes: Bool = false) {
        out += "\""
        // Most values need no escaping: copy them whole.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if rawBytes, let byte = PathBytes.escapedByte(scalar) {
                    out += String(format: "\\u%04x", 0xDC00 + UInt32(byte))
                    continue
                }
                switch TextSafety.classify(scalar) {
                case .control, .lineBreak, .bidi, .tab: out += String(format: "\\u%04x", scalar.value)
                case .plain, .rawByte: out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
