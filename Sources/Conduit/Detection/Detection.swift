/// Decides whether a MIME part (or a whole input) is an Apple Wallet pass, and keeps the reasons
/// in order (`content-type`, `extension`, `magic`), like Mail.app recognising the data by UTI,
/// MIME type or extension — plus content, because senders mislabel attachments.
package enum Detection {
    static let passType = "application/vnd.apple.pkpass"
    static let bundleType = "application/vnd.apple.pkpasses"
    /// libmagic answers after which the central directory is read. Anything else (a PNG, a Word
    /// document, a PDF) is not a pass and is not decoded further.
    static let zipLikeTypes: Set<String> = [passType, bundleType, "application/zip", "application/x-zip",
                                            "application/x-zip-compressed", "application/octet-stream"]

    /// The label checks: `mimeType` is "type/subtype" (any case; parameters and comments are
    /// dropped if still present); `names` are the decoded file names the part carries
    /// (filename*, filename, name*, name). Returns the reasons found and the kind they suggest.
    package static func labels(mimeType: String?, names: [String]) -> (reasons: [DetectionReason], kind: CandidateKind?) {
        var reasons: [DetectionReason] = []
        var kind: CandidateKind?
        if let mimeType {
            switch essence(of: mimeType) {
            case passType: reasons.append(.contentType); kind = .pass
            case bundleType: reasons.append(.contentType); kind = .bundle
            default: break
            }
        }
        for name in names {
            guard let named = kindForName(name) else { continue }
            if !reasons.contains(.fileExtension) { reasons.append(.fileExtension) }
            if kind == nil { kind = named }
        }
        return (reasons, kind)
    }

    /// `.pkpass` -> pass, `.pkpasses` -> bundle, for the last path component of a file name
    /// (Windows or POSIX separators), any case, ignoring surrounding blanks and trailing dots.
    package static func kindForName(_ name: String) -> CandidateKind? {
        // On the UTF-8 bytes: this runs for every named part of every message.
        var bytes = name.utf8[...]
        if let slash = bytes.lastIndex(where: { $0 == 0x2F || $0 == 0x5C }) { bytes = bytes[bytes.index(after: slash)...] }
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x2E || last == 0x22 { bytes = bytes.dropLast() }
        func endsWith(_ suffix: [UInt8]) -> Bool {
            guard bytes.count > suffix.count else { return false }   // a bare ".pkpass" is no name
            // The dot must match exactly; an ASCII letter folds to lower case with | 0x20 (and only
            // the two cases of that letter fold onto it).
            return zip(bytes.suffix(suffix.count), suffix).allSatisfy { $1 == 0x2E ? $0 == 0x2E : ($0 | 0x20) == $1 }
        }
        if endsWith(bundleSuffix) { return .bundle }
        if endsWith(passSuffix) { return .pass }
        return nil
    }

    /// `__MACOSX/…` and `._name`: what a Mac's zip adds beside each file; never a pass.
    static func isResourceFork(_ name: String) -> Bool {
        name.hasPrefix("__MACOSX/") || (name.split(separator: "/").last?.hasPrefix("._") ?? false)
    }

    static let passSuffix = Array(".pkpass".utf8)
    static let bundleSuffix = Array(".pkpasses".utf8)

    /// "Application/VND.Apple.PKPass ; name=x (comment)" -> "application/vnd.apple.pkpass"
    package static func essence(of mimeType: String) -> String {
        // Usually already "type/subtype" in lower case (MailMIME lowercases it): nothing to do.
        // A plain loop: contains(where:) with a closure cost 500 instructions per part (issue 17).
        var plain = true
        for b in mimeType.utf8 where b == 0x3B || b == 0x28 || b <= 0x20 || (b >= 0x41 && b <= 0x5A) {
            plain = false
            break
        }
        if plain { return mimeType }
        var text = Substring(mimeType)
        if let cut = text.firstIndex(where: { $0 == ";" || $0 == "(" }) { text = text[..<cut] }
        return text.filter { !$0.isWhitespace }.lowercased()
    }

    /// Whether libmagic's answer for the first decoded bytes means "read the central directory".
    package static func magicSuggestsZip(_ mimeType: String?) -> Bool {
        guard let mimeType else { return true }   // libmagic failed: let the central directory decide
        return zipLikeTypes.contains(essence(of: mimeType))
    }

    /// The decision from the zip central directory: `pass.json` at the root makes a pass;
    /// `.pkpass` members make a bundle; anything else is some other zip.
    package static func kind(fromEntryNames names: [String]) -> CandidateKind? {
        if names.contains("pass.json") { return .pass }
        // At any depth (a zip of a folder of tickets), but not a Mac resource fork (__MACOSX/, ._name).
        if names.contains(where: { kindForName($0) == .pass && !isResourceFork($0) }) { return .bundle }
        return nil
    }
}
