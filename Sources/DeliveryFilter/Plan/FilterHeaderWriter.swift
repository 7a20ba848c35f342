import Conduit

/// Writes the filter's header lines: one summary and one line per pass, e.g.
///
///     X-Passconduit: 2 passes (1 new, 1 update)
///     X-Passconduit-Pass: valid; new; type=pass.com.example.event; serial=E-1; org="Example"
///
/// Values come from attacker-written pass.json files, so every line is printable US-ASCII only:
/// CR, LF, NUL and other controls become spaces, non-ASCII text is RFC 2047 encoded (UTF-8, Q),
/// long values are cut at `maxValueCharacters`, and `HeaderEdits.Field` folds lines before 78 octets
/// where there is whitespace, never exceeding 998 (RFC 5322 §2.1.1) — a header injection cannot happen.
package struct FilterHeaderWriter: Sendable {
    /// Longest value kept (in Unicode scalars) for a type identifier, serial number or
    /// organization name. Stops a 10 KB organization name from making a 10 KB header.
    package var maxValueCharacters = 128
    /// At most this many per-pass lines (a message with 10 000 passes gets a summary and the first ones).
    package var maxPassLines = Limits.default.filterMaxPassHeaders

    package init() {}

    /// The fields for `reports`: a summary, then one per pass; empty when there are none.
    package func fields(for reports: [FilterPassReport]) -> [HeaderEdits.Field] {
        guard !reports.isEmpty else { return [] }
        return [HeaderEdits.Field(name: HeaderEdits.summaryName, atoms: [summary(reports)])]
            + reports.prefix(maxPassLines).map { HeaderEdits.Field(name: HeaderEdits.passName, atoms: atoms(for: $0)) }
    }

    /// The header lines for `reports` in `lineEnding`, each ending with it; empty when there are none.
    package func headerBytes(for reports: [FilterPassReport], lineEnding: [UInt8]) -> [UInt8] {
        HeaderEdits(insert: fields(for: reports)).insertedLines(lineEnding: lineEnding)
    }

    /// `2 passes (1 new, 1 update)`: categories in a fixed order, then any others alphabetically.
    package func summary(_ reports: [FilterPassReport]) -> String {
        let order = ["new", "update", "contained", "stale", "valid", "untrusted", "invalid", "unchecked"]
        var counts: [String: Int] = [:]
        for r in reports { counts[sanitizedToken(r.category), default: 0] += 1 }
        let keys = order.filter { counts[$0] != nil } + counts.keys.filter { !order.contains($0) }.sorted()
        // keys come from counts: the lookup succeeds. A pass that could not be checked is counted
        // in words ("1 not checked"): neither valid nor invalid.
        let parts = keys.map { "\(counts[$0]!) \($0 == "unchecked" ? "not checked" : $0)" }
        let noun = reports.count == 1 ? "pass" : "passes"
        return "\(reports.count) \(noun) (\(parts.joined(separator: ", ")))"
    }

    /// The per-pass value as unbreakable pieces, joined by single spaces (or folds).
    private func atoms(for r: FilterPassReport) -> [String] {
        var atoms = [sanitizedToken(r.statusWord) + ";", sanitizedToken(r.library?.rawValue ?? "unknown") + ";"]
        if r.action != .none { atoms.append("action=\(r.action.rawValue);") }
        if let code = r.errorCode { atoms.append("error=\(sanitizedToken(code));") }
        if let t = r.passTypeIdentifier { atoms += parameter("type", t) }
        if let s = r.serialNumber { atoms += parameter("serial", s) }
        if let o = r.organizationName { atoms += parameter("org", o, alwaysQuote: true) }
        if var last = atoms.popLast() {          // no trailing ";" on the last parameter
            if last.hasSuffix(";") { last.removeLast() }
            atoms.append(last)
        }
        return atoms
    }

    /// `key=value;` as atoms: a token as is, printable ASCII as a quoted string, anything else as
    /// `key=` followed by RFC 2047 encoded words (which may not stand inside quotes).
    private func parameter(_ key: String, _ raw: String, alwaysQuote: Bool = false) -> [String] {
        let value = clean(raw)
        if value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
            let isToken = !value.isEmpty && value.unicodeScalars.allSatisfy(Self.isTokenScalar)
            if isToken && !alwaysQuote { return ["\(key)=\(value);"] }
            var quoted = "\""
            for s in value.unicodeScalars {
                if s == "\"" || s == "\\" { quoted.append("\\") }
                quoted.unicodeScalars.append(s)
            }
            quoted += "\""
            // A quoted string that fits on a line stays whole (easy to match in a Sieve rule);
            // a longer one may be folded at its spaces (RFC 5322 FWS inside quoted-string).
            let whole = "\(key)=\(quoted);"
            if whole.utf8.count <= HeaderEdits.preferredLineLength - 2 { return [whole] }
            var result = quoted.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            result[0] = "\(key)=" + result[0]
            result[result.count - 1] += ";"
            return result
        }
        var words = encodedWords(value)
        words[words.count - 1] += ";"
        return ["\(key)="] + words
    }

    /// Removes what may never appear in a header and cuts the value to `maxValueCharacters`.
    private func clean(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        var count = 0
        var lastWasSpace = true
        for s in raw.unicodeScalars {
            // The classes are TextSafety's, shared with the terminal output. C0 controls (CR, LF,
            // NUL, TAB…), DEL, C1 controls, line/paragraph separators -> space. Bidi controls are
            // dropped: they can reorder what a mail reader shows.
            let isSpace: Bool
            switch TextSafety.classify(s) {
            case .bidi: continue
            case .tab, .lineBreak, .control: isSpace = true
            case .plain, .rawByte: isSpace = s.properties.isWhitespace
            }
            if isSpace {
                if lastWasSpace { continue }
                scalars.append(" ")
                lastWasSpace = true
            } else {
                scalars.append(s)
                lastWasSpace = false
            }
            count += 1
            if count >= maxValueCharacters {
                scalars.append(contentsOf: "...".unicodeScalars)
                break
            }
        }
        var text = String(scalars)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// A free-standing token (lower-cased status words, counts): only token characters survive.
    private func sanitizedToken(_ raw: String) -> String {
        let kept = String(String.UnicodeScalarView(raw.unicodeScalars.filter(Self.isTokenScalar).prefix(maxValueCharacters)))
        return kept.isEmpty ? "unknown" : kept
    }

    /// RFC 2045 token characters minus the ones that would confuse a `key=value;` reader.
    private static func isTokenScalar(_ s: Unicode.Scalar) -> Bool {
        guard s.value > 0x20 && s.value < 0x7F else { return false }
        return !"()<>@,;:\\\"/[]?= ".unicodeScalars.contains(s)
    }

    /// RFC 2047 `=?UTF-8?Q?…?=` words of at most 75 octets, never splitting a UTF-8 sequence.
    private func encodedWords(_ text: String) -> [String] {
        let prefix = "=?UTF-8?Q?", suffix = "?="
        let budget = 75 - prefix.count - suffix.count
        var words: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            var encoded = ""
            for byte in String(scalar).utf8 {
                switch byte {
                case 0x20: encoded += "_"
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x21, 0x2A, 0x2B, 0x2D, 0x2F:
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                default:
                    encoded += "=" + Self.hex(byte)
                }
            }
            if current.utf8.count + encoded.utf8.count > budget {
                words.append(prefix + current + suffix)
                current = ""
            }
            current += encoded
        }
        if !current.isEmpty || words.isEmpty { words.append(prefix + current + suffix) }
        return words
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
    }
}
