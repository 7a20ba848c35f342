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
        var base = Substring(name)
        if let slash = base.lastIndex(where: { $0 == "/" || $0 == "\\" }) { base = base[base.index(after: slash)...] }
        while let last = base.last, last == " " || last == "\t" || last == "." || last == "\"" { base = base.dropLast() }
        let lower = base.lowercased()
        if lower.hasSuffix(".pkpasses") && lower.count > ".pkpasses".count { return .bundle }
        if lower.hasSuffix(".pkpass") && lower.count > ".pkpass".count { return .pass }
        return nil
    }

    /// "Application/VND.Apple.PKPass ; name=x (comment)" -> "application/vnd.apple.pkpass"
    package static func essence(of mimeType: String) -> String {
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
        if names.contains(where: { kindForName($0) == .pass }) { return .bundle }
        return nil
    }
}
