import Conduit
import Foundation
import PassStore
import Support
import WalletPass

/// The pass list as Wallet's stack (issue 41 item 1): each pass a small card in its own colours,
/// with its logo text and the one field Wallet shows on the stack. To a screen reader it stays a
/// plain list of links; without JavaScript it is the same page.
///
/// The colours reach the page as custom properties in a `style` attribute (`--pbg`, `--pfg`,
/// `--plb`), which the wallet's style sheet turns into the card's colours. The CSP allows that
/// (`style-src 'self' 'unsafe-inline'`, which the pass page's `<style>` already needs), and no
/// pass text is ever copied into it: each colour is parsed (`PassColor`) and written back as
/// `#rrggbb` from its three numbers, so a colour cannot carry a `;`, a quote or a `url(`.
struct StackFace: Sendable, Equatable {
    /// "#rrggbb" each, nil when the pass sets none (the page's own colours then).
    var background: String?
    var foreground: String?
    var label: String?
    /// The pass's logo text, else its organization's name (Wallet draws the logo image; the list
    /// has no image route, so it writes the text).
    var logo: String
    /// The field Wallet shows on the stack: the header field of an event ticket or boarding
    /// pass, the primary field of the others (each falling back on the other).
    var field: PassField?
    /// The offset (seconds east of UTC) the pass writes its first zoned date field with: its
    /// dates are written at it while the viewer's zone is unknown.
    var offset: Int?

    init(background: String? = nil, foreground: String? = nil, label: String? = nil, logo: String, field: PassField? = nil) {
        self.background = background
        self.foreground = foreground
        self.label = label
        self.logo = logo
        self.field = field
    }

    init(_ info: PassInfo) {
        // Without a background the page's colours: the issuer chose its text colours for a
        // background that is not there (light grey text on the page's white would be unreadable).
        background = info.backgroundColor.flatMap(Self.colour)
        foreground = background == nil ? nil : info.foregroundColor.flatMap(Self.colour)
        label = background == nil ? nil : info.labelColor.flatMap(Self.colour) ?? foreground
        let text = (info.logoText ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        logo = text.isEmpty ? info.organizationName : text
        let headerFirst = info.kind == .eventTicket || info.kind == .boardingPass
        let fields = headerFirst ? info.headerFields + info.primaryFields : info.primaryFields + info.headerFields
        field = fields.first { !$0.value.isEmpty }
        offset = (fields + info.secondaryFields + info.auxiliaryFields).lazy.compactMap { $0.rawValue.string.flatMap(PassDate.init)?.utcOffset }.first
    }

    /// "#rrggbb" of a colour as a pass writes it, or nil when it is not a colour.
    static func colour(_ text: String) -> String? {
        PassColor(text)?.hex
    }

    /// The card's `style` attribute (with its leading space), or "" when the pass sets no colour.
    var style: String {
        var parts: [String] = []
        if let background { parts.append("--pbg:\(background)") }
        if let foreground { parts.append("--pfg:\(foreground)") }
        if let label { parts.append("--plb:\(label)") }
        // Only "#", hex digits, ":", "-" and letters of the names above: nothing to escape.
        return parts.isEmpty ? "" : " style=\"\(parts.joined(separator: ";"))\""
    }
}

/// Stack faces by SHA-256 and languages: a face depends only on the pass's bytes and the
/// reader's languages (the texts' `.lproj`). Read once, from the verified opening of the bytes.
final class StackFaces: @unchecked Sendable {
    private let lock = NSLock()
    private var faces: [String: StackFace] = [:]
    static let limit = 20_000

    func faces(for passes: [StoredPass], languages: [String], library: any PassLibraryBackend,
               opener: PassOpener) async -> [String: StackFace] {
        let suffix = "|" + languages.joined(separator: ",")
        var out: [String: StackFace] = [:]
        for pass in passes {
            let key = pass.sha256 + suffix
            if let known = lock.withLock({ faces[key] }) {
                out[pass.sha256] = known
                continue
            }
            guard let bytes = try? await library.export(pass.id), let info = opener.open(bytes).pass else {
                out[pass.sha256] = StackFace(logo: pass.organizationName)
                continue
            }
            let face = StackFace(info)
            lock.withLock {
                if faces.count >= Self.limit { faces.removeAll(keepingCapacity: true) }
                faces[key] = face
            }
            out[pass.sha256] = face
        }
        return out
    }
}

extension WebPages {
    /// One pass of the list, as a small card: a link whose text a screen reader reads as
    /// "logo, field, organization · description, date, marks".
    func card(_ item: LibraryView.Item, face: StackFace?, changed: String? = nil, now: Date) -> String {
        let p = item.pass
        let face = face ?? StackFace(logo: p.organizationName)
        var marks: [String] = []
        if p.voided { marks.append("voided") }
        if let x = p.expirationDate, x <= now { marks.append("expired") }
        if p.status != .valid { marks.append(p.status.rawValue) }
        let date = (item.next ?? item.times.dates.last ?? p.relevantDate).map { when($0, offset: face.offset) } ?? ""
        var h = "<li class=\"card\(face.background == nil ? " plain" : "")\"\(face.style)\(marks.isEmpty ? Self.expiry(p, now: now, zone: zone) : "")>"
        h += "<a href=\"\(Self.page(p.id))\"><span class=\"top\"><span class=\"logo\" dir=\"auto\">\(Self.e(face.logo))</span>"
        if let field = face.field {
            h += " <span class=\"field\">"
                + (field.label.flatMap { $0.isEmpty ? nil : $0 }.map { "<span class=\"label\" dir=\"auto\">\(Self.e($0))</span> " } ?? "")
                + "<span class=\"value\" dir=\"auto\">\(Self.e(field.value))</span></span>"
        }
        h += "</span> <span class=\"name\"><span class=\"org\" dir=\"auto\">\(Self.e(p.organizationName))</span> "
            + "<span class=\"desc\" dir=\"auto\">\(Self.e(p.description))</span></span>"
            + (date.isEmpty ? "" : " <span class=\"date\">\(Self.e(date))</span>")
            + marks.map { " <span class=\"mark\">\(Self.e($0))</span>" }.joined()
            + (changed.map { " <strong class=\"mark changed\">\($0)</strong>" } ?? "") + "</a></li>"
        return h
    }

    /// The cards of one section: a pass alone, or the passes of one group (`groupingIdentifier`)
    /// stacked in a list of their own inside the section's list.
    func stack(_ groups: [LibraryView.Group], faces: [String: StackFace], changed: [String: String] = [:], now: Date) -> String {
        var h = "<ul class=\"stack\">"
        for group in groups {
            let cards = group.items.map { card($0, face: faces[$0.pass.sha256], changed: changed[$0.pass.sha256], now: now) }.joined()
            if group.items.count > 1 {
                h += "<li class=\"group\"><ul class=\"stack grouped\" aria-label=\"\(group.items.count) passes of one trip or order\">\(cards)</ul></li>"
            } else {
                h += cards
            }
        }
        return h + "</ul>\n"
    }

    /// The stack's rules, part of the wallet's style sheet.
    static let stackStyle = """
    ul.stack { list-style: none; padding: 0; margin: 0 0 12px; display: flex; flex-direction: column; gap: 8px; }
    ul.stack li.group { margin: 0; }
    ul.stack.grouped { gap: 0; margin: 0; }
    ul.stack.grouped > li.card + li.card { margin-top: -4px; box-shadow: 0 -3px 6px rgba(0,0,0,.3); }
    ul.stack li.card { background: var(--pbg, var(--panel)); color: var(--pfg, var(--fg)); border: 1px solid var(--line);
      border-radius: 12px; position: relative; }
    ul.stack li.card a { display: flex; flex-direction: column; gap: 2px; padding: 10px 14px 12px; color: inherit; text-decoration: none; min-height: 64px; }
    ul.stack .top { display: flex; gap: 8px 12px; align-items: baseline; justify-content: space-between; flex-wrap: wrap; }
    ul.stack .logo { font-weight: bold; font-size: 1.05em; overflow-wrap: anywhere; }
    ul.stack .field { text-align: end; overflow-wrap: anywhere; }
    ul.stack .field .label { display: block; font-size: .7em; text-transform: uppercase; color: var(--plb, inherit); }
    ul.stack .field .value { font-size: 1.05em; }
    ul.stack .name { font-size: .9em; overflow-wrap: anywhere; }
    ul.stack .name .org { font-weight: normal; }
    ul.stack .date { font-size: .85em; }
    ul.stack .mark { background: #fff; color: #b3261e; border-color: #b3261e; align-self: flex-start; }
    ul.stack .mark.changed { background: #0b57d0; color: #fff; border-color: #0b57d0; }
    section.past ul.stack li.card { filter: grayscale(1); border-style: dashed; }
    """
}
