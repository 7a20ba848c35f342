/// Pass text into HTML, safely. Everything is escaped; the only markup that survives is a link
/// whose scheme is http, https, tel or mailto — from an `attributedValue`'s `<a href>` (the one
/// tag Apple supports there) or found in plain text, as Wallet's data detectors would.
package enum HTMLText {
    static let allowedSchemes = ["http://", "https://", "tel:", "mailto:"]

    /// Escapes for element content and double-quoted attributes.
    package static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    /// A link target kept only when its scheme is allowed and it holds nothing that could break
    /// out of the attribute (it is escaped anyway).
    package static func safeHref(_ raw: String) -> String? {
        let href = raw.trimmed(of: " \t\r\n")
        let lower = href.lowercased()
        guard allowedSchemes.contains(where: { lower.hasPrefix($0) }), href.count > 6, href.count <= 2048,
              !href.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == " " || $0 == "\u{7F}" }) else { return nil }
        return href
    }

    /// Plain text (a field value) as HTML: escaped, line breaks kept, URLs/e-mail addresses linked.
    static func linkified(_ s: String) -> String {
        var out = ""
        var word = ""
        func flush() {
            guard !word.isEmpty else { return }
            // Trailing punctuation is not part of a link ("see https://x.org.").
            var core = Substring(word)
            var tail = ""
            while let last = core.last, ".,;:!?)]\"'".contains(last) { tail = String(last) + tail; core = core.dropLast() }
            let c = String(core)
            let lower = c.lowercased()
            if let href = safeHref(c), lower.hasPrefix("http") {
                out += "<a href=\"\(escape(href))\" rel=\"noreferrer noopener\">\(escape(c))</a>" + escape(tail)
            } else if c.contains("@"), !c.hasPrefix("@"), !c.hasSuffix("@"), c.split(separator: "@").count == 2,
                      c.split(separator: "@")[1].contains("."), let href = safeHref("mailto:" + c) {
                out += "<a href=\"\(escape(href))\">\(escape(c))</a>" + escape(tail)
            } else {
                out += escape(word)
            }
            word = ""
        }
        for ch in s {
            if ch == "\n" || ch == "\r\n" {
                flush()
                out += "<br>"
            } else if ch == " " || ch == "\t" {
                flush()
                out.append(ch)
            } else {
                word.append(ch)
            }
        }
        flush()
        return out
    }

    /// An `attributedValue` as HTML: `<a href="…">text</a>` with an allowed scheme becomes a
    /// link, every other tag is dropped (its text kept, escaped).
    static func attributed(_ s: String) -> String {
        var out = ""
        var open = false
        for piece in tokens(s) {
            switch piece {
            case .text(let t):
                out += escape(decodeEntities(t)).replacingNewlines()
            case .tag(let name, let href, let closing):
                if name == "a", !closing, !open, let href = href.flatMap(safeHref) {
                    out += "<a href=\"\(escape(href))\" rel=\"noreferrer noopener\">"
                    open = true
                } else if name == "a", closing, open {
                    out += "</a>"
                    open = false
                } else if name == "br" {
                    out += "<br>"
                }
            }
        }
        if open { out += "</a>" }
        return out
    }

    /// The visible text of an `attributedValue` (tags dropped, entities decoded), for the cairo outputs.
    static func plainText(_ s: String) -> String {
        var out = ""
        for piece in tokens(s) {
            switch piece {
            case .text(let t): out += decodeEntities(t)
            case .tag(let name, _, _): if name == "br" { out += "\n" }
            }
        }
        return out
    }

    enum Token {
        case text(String)
        case tag(name: String, href: String?, closing: Bool)
    }

    /// A tolerant tag splitter: `<…>` is a tag, anything else text; only the tag name and an
    /// `href` attribute are read.
    static func tokens(_ s: String) -> [Token] {
        var out: [Token] = []
        var rest = Substring(s)
        while !rest.isEmpty {
            guard let lt = rest.firstIndex(of: "<") else { out.append(.text(String(rest))); break }
            if lt > rest.startIndex { out.append(.text(String(rest[..<lt]))) }
            guard let gt = tagEnd(rest[lt...]) else { out.append(.text(String(rest[lt...]))); break }
            let inner = rest[rest.index(after: lt)..<gt]
            rest = rest[rest.index(after: gt)...]
            var body = inner.trimmed(of: " \t\r\n")
            let closing = body.hasPrefix("/")
            if closing { body.removeFirst() }
            let name = String(body.prefix { $0.isLetter || $0.isNumber }).lowercased()
            out.append(.tag(name: name, href: name == "a" ? attribute("href", in: body) : nil, closing: closing))
        }
        return out
    }

    /// The `>` that ends the tag starting at `tag`'s `<`: one outside a quoted attribute value, so
    /// an href holding `<` or `>` ("…?q=<1>") does not end it early and spill its rest as text.
    /// A quote never closed falls back to the first `>`.
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

    private static func attribute(_ name: String, in tag: String) -> String? {
        let lower = tag.lowercased()
        guard let r = lower.range(of: name + "=") else { return nil }
        var v = tag[r.upperBound...]
        if let q = v.first, q == "\"" || q == "'" {
            v = v.dropFirst()
            guard let end = v.firstIndex(of: q) else { return nil }
            return decodeEntities(String(v[..<end]))
        }
        return decodeEntities(String(v.prefix { $0 != " " && $0 != "\t" && $0 != "/" }))
    }

    /// The entities a pass author is likely to write; the rest stay as written (and get escaped).
    static func decodeEntities(_ s: String) -> String {
        guard s.contains("&") else { return s }
        return s.replacingAll("&lt;", "<").replacingAll("&gt;", ">").replacingAll("&quot;", "\"")
            .replacingAll("&#39;", "'").replacingAll("&nbsp;", "\u{A0}").replacingAll("&amp;", "&")
    }
}

extension String {
    func trimmed(of set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }

    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }

    func replacingNewlines() -> String { replacingAll("\r\n", "<br>").replacingAll("\n", "<br>") }
}

extension Substring {
    func trimmed(of set: String) -> String { String(self).trimmed(of: set) }
}
