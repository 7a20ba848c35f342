/// Finds the line on which a key is set in TOML text, so a bad value can be reported by line.
/// TOMLKit reports lines only for syntax errors; its values carry no source position.
///
/// It follows `[table]` / `[[array]]` headers and `key = value` lines (bare, quoted and dotted
/// keys). It is only used for messages; a key it cannot place is reported without a line.
enum TOMLKeyLocator {
    static func line(of path: [String], in text: String) -> Int? {
        var table: [String] = []
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = rawLine.trimmedTOML([" ", "\t", "\r"])
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                var header = line.drop(while: { $0 == "[" })
                guard let close = header.firstIndex(of: "]") else { continue }
                header = header[..<close]
                table = splitKey(String(header))
                if table == path { return number }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = table + splitKey(String(line[..<equals]))
            if key == path { return number }
        }
        return nil
    }

    /// `a."b.c" . d` -> ["a", "b.c", "d"]
    static func splitKey(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for ch in text {
            if let q = quote {
                if ch == q { quote = nil } else { current.append(ch) }
            } else if ch == "\"" || ch == "'" {
                quote = ch
            } else if ch == "." {
                parts.append(current.trimmedTOML([" ", "\t"]))
                current = ""
            } else {
                current.append(ch)
            }
        }
        parts.append(current.trimmedTOML([" ", "\t"]))
        return parts
    }
}

extension StringProtocol {
    func trimmedTOML(_ set: Set<Character>) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
