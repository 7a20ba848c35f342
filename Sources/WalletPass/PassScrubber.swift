import Foundation
import Support

/// A copy of a pass for a bug report: the same files, keys, styles, images and sizes, with the
/// personal values replaced and the signature removed, so it can never pass for the original.
///
/// Replaced: field values and attributed values (dates stay dates, numbers stay numbers; the
/// markup of an attributed value keeps its tags and attributes, a link's address becomes a
/// placeholder), barcode messages and alt texts (same length and kinds of characters, so the same
/// symbology still encodes them), the serial number, the authentication token, the grouping
/// identifier (often a booking reference), the description, logo text and event logo text, the
/// relevant texts of locations and beacons, the coordinates of locations (0, 0), every date
/// (relevant dates, expiry, semantics: 2001-01-01 in the same shape, an expiry still in the
/// future 2099-01-01), URLs and contact links (every `PassLinkKey`), the NFC message, every string
/// in `userInfo`, `semantics` (of the pass and of fields) and `upcomingPassInformation` except a
/// few enumerations (an entry's fields keep their keys and labels), `featuredActions` but their
/// types, and every value under a top-level key `PassDocument` does not know. In `pass.strings` only the
/// translations of what stays (the organization name, labels, change messages) are kept; every
/// other entry (the translation of a replaced value, or a key no field uses any more, which may
/// greet the holder by name) gets a placeholder key and value. Kept: the organization name, labels,
/// change messages, keys, colours, styles, barcode formats, beacon identifiers, images, and each
/// `pass.strings` file's encoding (UTF-16 stays UTF-16 with its byte-order mark). `pass.json`
/// gains no key; the manifest is rewritten for the new contents; the zip comment says what was done.
package struct PassScrubber {
    package let limits: PassLimits
    /// Replacement characters are random (the system generator): nothing in a placeholder can be
    /// traced back to the value it replaced.
    private var random = SystemRandomNumberGenerator()

    /// What "still in the future" means for an expiry date.
    package let now: Date

    package init(limits: PassLimits = .default, now: Date = Date()) {
        self.limits = limits
        self.now = now
    }

    package static let comment = """
        Scrubbed copy made by passconduit for a bug report: personal values were replaced by \
        placeholders and the signature was removed. This is not the issuer's pass and cannot be added to Wallet.
        """

    static let urlPlaceholder = "https://example.invalid/scrubbed"
    /// Semantic values that name kinds of things, not people: kept so a report still says what the pass is.
    /// A seat section's colour names no one either.
    static let keptSemanticKeys: Set<String> = ["eventType", "currencyCode", "transitStatus", "seatType", "seatSectionColor"]

    /// The scrubbed `.pkpass`; a `PassError` when the bytes are not a pass that can be read.
    package mutating func scrub(_ bytes: [UInt8]) throws -> [UInt8] {
        let archive: PassArchive
        switch PassArchive.open(bytes, limits: limits) {
        case .success(let a): archive = a
        case .failure(let e): throw e
        }
        guard let passJSON = archive["pass.json"] else { throw PassError.missingPassJSON() }
        let parsed: JSONValue
        switch JSONReader.parse(passJSON, maxDepth: limits.maxJSONDepth) {
        case .success(let v): parsed = v
        case .failure(let f): throw PassError.badJSON("pass.json", f.description)
        }
        guard var object = parsed.object else { throw PassError.badJSON("pass.json", "is not a JSON object") }

        // Replacements of values a pass.strings file may translate: original -> placeholder.
        var replaced: [String: String] = [:]
        scrubTopLevel(&object, replaced: &replaced)

        var writer = ZipWriter()
        writer.comment = Self.comment
        var digests: [String: String] = [:]
        for (name, content) in archive.files where name != "signature" && name != "manifest.json" {
            var out = content
            if name == "pass.json" {
                out = Array(JSONText.write(.object(object)).utf8)
            } else if name.hasSuffix(".lproj/pass.strings") {
                out = scrubStrings(content, replaced: replaced, kept: Self.keptTexts(object))
            }
            digests[name] = Digest.hex(.sha1, out)
            try add(&writer, name, out)
        }
        let manifest = JSONValue.object(digests.mapValues { .string($0) })
        try add(&writer, "manifest.json", Array(JSONText.write(manifest).utf8))
        return try write(writer)
    }

    private func add(_ writer: inout ZipWriter, _ name: String, _ bytes: [UInt8]) throws {
        do {
            try writer.add(name, bytes, compression: .deflate)
        } catch {
            throw PassError(code: .unsafeArchive, message: PassError.message(for: .unsafeArchive), detail: "\(error)")
        }
    }

    private func write(_ writer: ZipWriter) throws -> [UInt8] {
        do {
            return try writer.archive()
        } catch {
            throw PassError(code: .notAZip, message: "The scrubbed copy could not be written.", detail: "\(error)")
        }
    }

    // MARK: - pass.json

    private mutating func scrubTopLevel(_ o: inout [String: JSONValue], replaced: inout [String: String]) {
        // groupingIdentifier is often the booking reference that ties a trip's passes together.
        // description and logoText often carry a name ("Carte de Germaine"), relevant texts a
        // greeting with one ("Bienvenue GERMAINE DUPONT").
        // eventLogoText (iOS 18.1) is the poster's logoText: often the event, sometimes the holder.
        for key in ["serialNumber", "authenticationToken", "groupingIdentifier", "description", "logoText", "eventLogoText"] {
            if let v = o[key] { o[key] = scrambled(v, replaced: &replaced) }
        }
        // Dates say when a person travels: 2001-01-01 in the same shape. An expiry still to come
        // becomes 2099-01-01, so the copy is not shown as expired when the original is not.
        if let v = o["relevantDate"] { o["relevantDate"] = scrambled(v, replaced: &replaced) }
        if case .string(let text)? = o["expirationDate"], let date = PassDate(text) {
            let new = Self.placeholderDate(text, year: date.date > now ? "2099" : "2001")
            replaced[text] = new
            o["expirationDate"] = .string(new)
        }
        if let v = o["relevantDates"] { o["relevantDates"] = deep(v, replaced: &replaced) }
        // Where a person lives, works or travels: coordinates become 0, 0 (altitude 0); the texts
        // shown there are replaced.
        if case .array(let places)? = o["locations"] {
            o["locations"] = .array(places.map { place in
                guard case .object(var p) = place else { return place }
                for key in ["latitude", "longitude", "altitude"] where p[key]?.number != nil { p[key] = .number(0) }
                if let v = p["relevantText"] { p["relevantText"] = scrambled(v, replaced: &replaced) }
                return .object(p)
            })
        }
        if case .array(let beacons)? = o["beacons"] {
            o["beacons"] = .array(beacons.map { beacon in
                guard case .object(var b) = beacon else { return beacon }
                if let v = b["relevantText"] { b["relevantText"] = scrambled(v, replaced: &replaced) }
                return .object(b)
            })
        }
        for key in ["webServiceURL", "appLaunchURL"] where o[key]?.string != nil {
            o[key] = .string(Self.urlPlaceholder)
        }
        for key in PassDocument.linkKeys {
            if let v = o[key] { o[key] = link(v, replaced: &replaced) }
        }
        for key in ["userInfo", "semantics"] {
            if let v = o[key] { o[key] = deep(v, replaced: &replaced) }
        }
        // Each upcoming event (iOS 26): its name, date, venue, seats, URLs, image addresses and
        // field values are replaced; its type, its fields' keys and labels stay.
        if case .array(let entries)? = o["upcomingPassInformation"] {
            o["upcomingPassInformation"] = .array(entries.map { upcoming($0, replaced: &replaced) })
        } else if let v = o["upcomingPassInformation"] {
            o["upcomingPassInformation"] = deep(v, replaced: &replaced)
        }
        // Featured actions (iOS 27): a URL often carries a member's token; the type stays.
        if case .array(let actions)? = o["featuredActions"] {
            o["featuredActions"] = .array(actions.map { action in
                guard case .object(var a) = action else { return deep(action, replaced: &replaced) }
                for (key, value) in a where key != "type" {
                    a[key] = key == "url" ? link(value, replaced: &replaced) : deep(value, key: key, replaced: &replaced)
                }
                return .object(a)
            })
        } else if let v = o["featuredActions"] {
            o["featuredActions"] = deep(v, replaced: &replaced)
        }
        // A key Wallet has added since (or an issuer's own) may hold anything: every value under
        // a top-level key this model does not know is replaced, its keys kept.
        for key in o.keys where !PassDocument.knownKeys.contains(key) {
            o[key] = deep(o[key]!, key: key, replaced: &replaced)
        }
        if case .object(var nfc)? = o["nfc"], let message = nfc["message"] {
            nfc["message"] = scrambled(message, replaced: &replaced)
            o["nfc"] = .object(nfc)
        }
        if case .array(let codes)? = o["barcodes"] {
            o["barcodes"] = .array(codes.map { barcode($0, replaced: &replaced) })
        }
        if let code = o["barcode"] { o["barcode"] = barcode(code, replaced: &replaced) }
        for kind in PassKind.allCases {
            guard case .object(var style)? = o[kind.rawValue] else { continue }
            for group in Self.styleGroups {
                guard case .array(let fields)? = style[group] else { continue }
                style[group] = .array(fields.map { field($0, replaced: &replaced) })
            }
            o[kind.rawValue] = .object(style)
        }
    }

    /// Every field group a style dictionary may hold: the classic six and iOS 27's `footerFields`
    /// (a poster generic pass's member name sits there).
    static let styleGroups = PassFieldGroup.allCases.map(\.key) + ["footerFields"]

    private mutating func field(_ value: JSONValue, replaced: inout [String: String]) -> JSONValue {
        guard case .object(var f) = value else { return value }
        if let v = f["value"] { f["value"] = scrambled(v, replaced: &replaced) }
        if case .string(let markup)? = f["attributedValue"] {
            let new = scrambleMarkup(markup)
            replaced[markup] = new
            f["attributedValue"] = .string(new)
        } else if let v = f["attributedValue"] {
            f["attributedValue"] = scrambled(v, replaced: &replaced)
        }
        if let v = f["semantics"] { f["semantics"] = deep(v, replaced: &replaced) }
        return .object(f)
    }

    /// One `upcomingPassInformation` entry: fields as fields (keys and labels kept), `type` kept,
    /// everything else deep-scrubbed (names, dates, semantics, URLs, image digests).
    private mutating func upcoming(_ value: JSONValue, replaced: inout [String: String]) -> JSONValue {
        guard case .object(var entry) = value else { return deep(value, replaced: &replaced) }
        for (key, v) in entry where key != "type" {
            if key == "additionalInfoFields" || key == "backFields", case .array(let fields) = v {
                entry[key] = .array(fields.map { field($0, replaced: &replaced) })
            } else {
                entry[key] = deep(v, key: key, replaced: &replaced)
            }
        }
        return .object(entry)
    }

    private mutating func barcode(_ value: JSONValue, replaced: inout [String: String]) -> JSONValue {
        guard case .object(var b) = value else { return value }
        if let v = b["message"] { b["message"] = scrambled(v, replaced: &replaced) }
        if let v = b["altText"] { b["altText"] = scrambled(v, replaced: &replaced) }
        return .object(b)
    }

    /// A URL becomes the placeholder URL; an e-mail address or phone number keeps its shape, and
    /// a `tel:` or `mailto:` link its scheme.
    private mutating func link(_ value: JSONValue, replaced: inout [String: String]) -> JSONValue {
        guard let s = value.string else { return scrambled(value, replaced: &replaced) }
        if s.contains("://") { return .string(Self.urlPlaceholder) }
        for scheme in ["tel:", "mailto:"] where s.lowercased().hasPrefix(scheme) {
            let new = String(s.prefix(scheme.count)) + scramble(String(s.dropFirst(scheme.count)))
            replaced[s] = new
            return .string(new)
        }
        return scrambled(value, replaced: &replaced)
    }

    /// Every string below `value`, except dates and the kept enumerations; numbers too (seat
    /// numbers, amounts), but not coordinates' structure: they keep their kind and digit count.
    private mutating func deep(_ value: JSONValue, key: String? = nil, replaced: inout [String: String]) -> JSONValue {
        switch value {
        case .object(let o):
            var out: [String: JSONValue] = [:]
            for (k, v) in o { out[k] = Self.keptSemanticKeys.contains(k) ? v : deep(v, key: k, replaced: &replaced) }
            return .object(out)
        case .array(let a):
            return .array(a.map { deep($0, key: key, replaced: &replaced) })
        case .string(let s) where s.contains("://"):
            return .string(Self.urlPlaceholder)
        default:
            return scrambled(value, replaced: &replaced)
        }
    }

    /// A string keeps its length and the kind of each character (a date string becomes another
    /// date in the same shape); a number keeps its digit count; booleans and null stay.
    private mutating func scrambled(_ value: JSONValue, replaced: inout [String: String]) -> JSONValue {
        switch value {
        case .string(let s):
            let new = PassDate(s) != nil ? Self.placeholderDate(s) : scramble(s)
            replaced[s] = new
            return .string(new)
        case .number(let n):
            let text = JSONValue.format(n)
            let new = scramble(text)
            return .number(Double(new) ?? 0)
        case .array(let a):
            return .array(a.map { scrambled($0, replaced: &replaced) })
        case .object:
            return deep(value, replaced: &replaced)
        default:
            return value
        }
    }

    /// Each letter becomes another letter of the same case, each digit another digit, anything
    /// else outside ASCII a lower-case letter; punctuation and spaces stay, so a boarding-pass
    /// barcode keeps its field layout and a Code 128 message stays encodable. No character stays
    /// itself, so no replaced value equals its original.
    package mutating func scramble(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        func pick(_ range: ClosedRange<UInt8>, not original: Unicode.Scalar) -> Unicode.Scalar {
            while true {
                let c = Unicode.Scalar(UInt8.random(in: range, using: &random))
                if c != original { return c }
            }
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "A"..."Z": out.append(pick(0x41...0x5A, not: scalar))
            case "a"..."z": out.append(pick(0x61...0x7A, not: scalar))
            case "0"..."9": out.append(pick(0x30...0x39, not: scalar))
            case _ where scalar.value < 0x80: out.append(scalar)
            case _ where scalar.properties.isWhitespace: out.append(" ")
            default: out.append(pick(0x61...0x7A, not: scalar))
            }
        }
        return String(out)
    }

    /// An attributed value with its text replaced and its markup kept: tag names, attribute names
    /// and values and entities (`&amp;`) stay, so the tags still match; a link's address
    /// (`href`) becomes the placeholder URL, or for mailto: and tel: a scrambled address.
    package mutating func scrambleMarkup(_ text: String) -> String {
        var out = ""
        var run = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if c == "<", let close = Self.tagEnd(text[i...]) {
                out += scramble(run); run = ""
                out += scrubbedTag(String(text[i...close]))
                i = text.index(after: close)
                continue
            }
            if c == "&", let semi = text[i...].prefix(12).firstIndex(of: ";"),
               text[text.index(after: i)..<semi].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "#" }) {
                out += scramble(run); run = ""
                out += text[i...semi]
                i = text.index(after: semi)
                continue
            }
            run.append(c)
            i = text.index(after: i)
        }
        return out + scramble(run)
    }

    /// The `>` ending the tag at `tag`'s `<`, outside quoted attribute values (an href may hold
    /// `>`); a quote never closed falls back to the first `>`.
    static func tagEnd(_ tag: Substring) -> Substring.Index? {
        var quote: Character?
        var i = tag.index(after: tag.startIndex)
        while i < tag.endIndex {
            let c = tag[i]
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == ">" {
                return i
            }
            i = tag.index(after: i)
        }
        return quote == nil ? nil : tag.firstIndex(of: ">")
    }

    /// One tag as written, with the value of its `href` replaced.
    private mutating func scrubbedTag(_ tag: String) -> String {
        guard let range = tag.range(of: "href", options: .caseInsensitive) else { return tag }
        var rest = tag[range.upperBound...].drop(while: { $0 == " " })
        guard rest.first == "=" else { return tag }
        rest = rest.dropFirst().drop(while: { $0 == " " })
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return tag }
        let valueStart = rest.index(after: rest.startIndex)
        guard let valueEnd = rest[valueStart...].firstIndex(of: quote) else { return tag }
        let value = String(rest[valueStart..<valueEnd])
        let lower = value.lowercased()
        let new: String
        if lower.hasPrefix("mailto:") || lower.hasPrefix("tel:") {
            let colon = value.firstIndex(of: ":")!
            new = String(value[...colon]) + scramble(String(value[value.index(after: colon)...]))
        } else {
            new = Self.urlPlaceholder
        }
        return String(tag[..<valueStart]) + new + String(tag[valueEnd...])
    }

    /// The same date shape with 2001-01-01 00:00:00 in it (zone kept): a date field still renders.
    /// `year` replaces the year (an expiry still to come keeps the pass current with 2099).
    static func placeholderDate(_ text: String, year: String = "2001") -> String {
        let template = Array((year + "-01-01T00:00:00").utf8)
        var b = Array(text.utf8)
        let isDigit = { (c: UInt8) in c >= 0x30 && c <= 0x39 }
        // Date and time digits sit at fixed places; the zone (after them) is kept.
        for i in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] where i < b.count && isDigit(b[i]) {
            b[i] = template[i]
        }
        if b.count > 20, b[19] == 0x2E || b[19] == 0x2C {
            var i = 20
            while i < b.count, isDigit(b[i]) { b[i] = 0x30; i += 1 }
        }
        let candidate = String(decoding: b, as: UTF8.self)
        return PassDate(candidate) != nil ? candidate : year + "-01-01T00:00:00Z"
    }

    // MARK: - pass.strings

    /// The texts of the scrubbed `pass.json` that stay as the issuer wrote them and that a
    /// `pass.strings` file may translate: the organization name and each field's label and change
    /// message. Nothing else of a pass is both kept and localized.
    static func keptTexts(_ object: [String: JSONValue]) -> Set<String> {
        var kept: Set<String> = []
        if let name = object["organizationName"]?.string { kept.insert(name) }
        for kind in PassKind.allCases {
            guard case .object(let style)? = object[kind.rawValue] else { continue }
            for group in Self.styleGroups {
                guard case .array(let fields)? = style[group] else { continue }
                for case .object(let f) in fields {
                    for key in ["label", "changeMessage"] { if let text = f[key]?.string { kept.insert(text) } }
                }
            }
        }
        for case .object(let entry) in object["upcomingPassInformation"]?.array ?? [] {
            for group in ["additionalInfoFields", "backFields"] {
                for case .object(let f) in entry[group]?.array ?? [] {
                    for key in ["label", "changeMessage"] { if let text = f[key]?.string { kept.insert(text) } }
                }
            }
        }
        return kept
    }

    /// Entries translating a kept text (a label, the organization name, a change message) stay.
    /// Every other entry is replaced: one translating a replaced value gets the replacement as key
    /// and a scrambled value; one whose key nothing in `pass.json` uses (issuers leave such keys
    /// behind: `"GREETING" = "Hallo Ada";`) gets a scrambled key and value, since either may name
    /// the holder. Comments are dropped. Written back in the file's own encoding (UTF-16 with its
    /// byte-order mark stays so: a bug in reading it must survive into the report).
    private mutating func scrubStrings(_ bytes: [UInt8], replaced: [String: String], kept: Set<String>) -> [UInt8] {
        let file = StringsFile.parse(bytes)
        var lines: [String] = ["/* Scrubbed by passconduit: translations of replaced values are placeholders. */"]
        for key in file.entries.keys.sorted() {
            let value = file.entries[key] ?? ""
            if kept.contains(key) {
                lines.append("\(Self.quoted(key)) = \(Self.quoted(value));")
            }
            if let newKey = replaced[key] {
                lines.append("\(Self.quoted(newKey)) = \(Self.quoted(scramble(value)));")
            } else if !kept.contains(key) {
                lines.append("\(Self.quoted(scramble(key))) = \(Self.quoted(scramble(value)));")
            }
        }
        return StringsEncoding(of: bytes).encode(lines.joined(separator: "\n") + "\n")
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// JSON text from a `JSONValue`: keys sorted, two-space indents, strings escaped per RFC 8259.
enum JSONText {
    static func write(_ value: JSONValue) -> String {
        var out = ""
        emit(value, indent: 0, into: &out)
        return out + "\n"
    }

    private static func emit(_ value: JSONValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closePad = String(repeating: "  ", count: indent)
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.isFinite ? JSONValue.format(n) : "0"
        case .string(let s): out += quoted(s)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "[\n"
            for (i, v) in a.enumerated() {
                out += pad
                emit(v, indent: indent + 1, into: &out)
                out += i == a.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{\n"
            let keys = o.keys.sorted()
            for (i, k) in keys.enumerated() {
                out += pad + quoted(k) + ": "
                emit(o[k]!, indent: indent + 1, into: &out)
                out += i == keys.count - 1 ? "\n" : ",\n"
            }
            out += closePad + "}"
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
