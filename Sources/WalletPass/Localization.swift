/// Choosing the `.lproj` folder: the first preferred language that matches (exactly, then with
/// region and script dropped), then `en`, then the first folder in lexical order — Wallet's own pick
/// among unmatched languages is directory order, which is arbitrary (pkpass-format.md §5).
enum Localization {
    /// Preferred languages looked at, and the longest tag accepted (BCP 47 tags in use are far shorter).
    static let maxPreferred = 16
    static let maxTagLength = 64

    /// "de_DE.UTF-8" -> "de-de"; "C"/"POSIX" -> nil.
    static func normalize(_ tag: String) -> String? {
        var t = Substring(tag)
        if let dot = t.firstIndex(of: ".") { t = t[..<dot] }
        if let at = t.firstIndex(of: "@") { t = t[..<at] }
        let s = t.replacingOccurrences(of: "_", with: "-").lowercased()
        if s.isEmpty || s == "c" || s == "posix" { return nil }
        return s
    }

    /// `folders`: names without ".lproj". Returns the chosen folder name.
    static func choose(_ folders: [String], preferred: [String]) -> String? {
        guard !folders.isEmpty else { return nil }
        let sorted = folders.sorted()
        let keyed = sorted.map { ($0, normalize($0) ?? $0.lowercased()) }
        func find(_ want: String) -> String? {
            if let hit = keyed.first(where: { $0.1 == want }) { return hit.0 }
            return nil
        }
        // A language tag has a handful of subtags; longer "tags" are not languages and would make
        // the subtag walk below quadratic.
        for tag in preferred.prefix(maxPreferred).filter({ $0.utf8.count <= maxTagLength }).compactMap(normalize) {
            var parts = tag.split(separator: "-").map(String.init)
            while !parts.isEmpty {
                if let hit = find(parts.joined(separator: "-")) { return hit }
                parts.removeLast()
            }
            // "de" also matches a folder "de-DE".
            let language = String(tag.split(separator: "-").first ?? "")
            if let hit = keyed.first(where: { $0.1.split(separator: "-").first.map(String.init) == language }) { return hit.0 }
        }
        if let en = find("en") { return en }
        if let en = keyed.first(where: { $0.1.hasPrefix("en-") }) { return en.0 }
        return sorted.first
    }
}
