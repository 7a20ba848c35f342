import Foundation

/// A JSON value with object keys kept in the order written, so NDJSON lines read the same way
/// every time (field order is part of what people grep for). Serialises to one line.
package indirect enum JSONOutput: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([JSONOutput])
    case object([(String, JSONOutput)])

    package static func == (lhs: JSONOutput, rhs: JSONOutput) -> Bool { lhs.line == rhs.line }

    package static func string(_ value: String?) -> JSONOutput { value.map { .string($0) } ?? .null }
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

    /// Escapes quotes, backslashes and every control character; U+2028/2029 too, so a line is
    /// also safe to paste into JavaScript.
    private static func quote(_ text: String, into out: inout String) {
        out += "\""
        // Most values need no escaping: copy them whole. (0xE2 starts U+2028/U+2029 in UTF-8.)
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }) {
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
            case "\u{2028}", "\u{2029}": out += String(format: "\\u%04x", scalar.value)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
