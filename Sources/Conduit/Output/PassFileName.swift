import WalletPass

/// The name and type a pass should travel under, whatever label it arrived with (a chat bridge's
/// `file.zip`, `application/octet-stream`): `<organization> <description>.pkpass` in characters
/// every file system and chat client keeps, and `application/vnd.apple.pkpass`, the type Safari
/// and Mail hand to Wallet.
package enum PassFileName {
    package static let contentType = "application/vnd.apple.pkpass"
    /// UTF-8 bytes of the name before ".pkpass": file systems allow 255 with the extension.
    static let maximumStemBytes = 120

    package static func name(_ pass: PassInfo) -> String {
        name(organization: pass.organizationName, description: pass.description)
    }

    package static func name(organization rawOrganization: String, description rawDescription: String) -> String {
        let organization = clean(rawOrganization), description = clean(rawDescription)
        var stem: String
        if description.isEmpty {
            stem = organization
        } else if organization.isEmpty || description.range(of: organization, options: .caseInsensitive) != nil {
            stem = description
        } else {
            stem = organization + " " + description
        }
        stem = cut(stem)
        if stem.isEmpty { stem = "pass" }
        return stem + ".pkpass"
    }

    /// Letters, digits, marks and the punctuation names commonly hold; runs of anything else
    /// (path separators, controls, quotes, Windows' reserved <>:"/\|?*) become one space; no
    /// leading dot or dash (a hidden file, an option), no trailing dot or space.
    static func clean(_ text: String) -> String {
        let kept: Set<Character> = ["-", "_", "(", ")", "&", "+", ",", "'", "!", "#", "@", "."]
        var out = ""
        var gap = false
        for character in text {
            let ok = character.unicodeScalars.allSatisfy { scalar in
                switch scalar.properties.generalCategory {
                case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                     .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
                    return true
                default:
                    return false
                }
            } || kept.contains(character)
            if ok {
                if gap && !out.isEmpty { out.append(" ") }
                out.append(character)
                gap = false
            } else {
                gap = true
            }
        }
        while let first = out.first, first == "." || first == "-" || first == " " { out.removeFirst() }
        while let last = out.last, last == "." || last == " " { out.removeLast() }
        return out
    }

    /// At most `maximumStemBytes` of UTF-8, cut at a whole character, without a trailing dot or space.
    static func cut(_ text: String) -> String {
        var out = "", bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > maximumStemBytes { break }
            out.append(character)
            bytes += size
        }
        while let last = out.last, last == "." || last == " " { out.removeLast() }
        return out
    }
}
