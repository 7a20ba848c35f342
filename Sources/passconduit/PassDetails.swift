import Conduit
import Foundation
import PassRender
import PassStore
import WalletPass

/// `show`: every field by section (back fields too), barcodes, dates, signer, source, library times;
/// with --verbose also the layout the pass is drawn in and pass.json's warnings.
struct PassDetails {
    let terminal: Terminal

    func render(_ stored: StoredPass, verdict: PassVerdict) -> String {
        let card = PassCard(terminal: terminal)
        var lines: [String] = []
        guard let pass = verdict.pass else {
            return card.safe("\(stored.id): the stored pass can no longer be read")
        }
        lines.append(terminal.bold(card.safe("\(pass.kindName) · \(pass.organizationName)")))
        if let description = PassCard.visible(pass.description) { lines.append("  " + card.safe(description)) }
        if let logo = pass.logoText, !logo.isEmpty, logo != pass.organizationName { lines.append(card.row("Logo text", card.safe(logo))) }
        if let date = pass.relevantDate { lines.append(card.row("When", pass.relevantDateIsDay ? DateText.day(date) : DateText.human(date))) }
        if let expiry = pass.expirationDate {
            lines.append(card.row("Expires", card.expiryText(expiry, now: Date())))
        }
        if pass.voided { lines.append(card.row("Voided", "yes")) }
        if let transit = pass.transitType { lines.append(card.row("Transit", card.safe(Self.transitName(transit)))) }
        lines.append(card.row("Status", Recheck(stored: stored.status, verdict: verdict).text(card)))
        if terminal.verbose {
            // The layout Wallet 27 draws (and why not the one the pass asked for), and what
            // pass.json had that Wallet tolerates: a reason for a card that looks unlike the phone's.
            lines.append(card.row("Drawn as", card.safe(pass.scheme.text)))
            for warning in pass.document.warnings { lines.append(card.row("Warning", card.safe(warning))) }
        }
        // A new layout shows its own face, not the classic rows listed below: say what it shows.
        if let face = CardFaceText.lines(pass) {
            lines.append("")
            lines.append(terminal.bold("On the card (\(face.layout))"))
            for line in face.lines { lines.append(card.row(card.safe(line.label), card.safe(line.value))) }
        }
        for group in PassFieldGroup.allCases {
            let name = group.title, fields = group.fields(of: pass)
            guard !fields.isEmpty else { continue }
            lines.append("")
            lines.append(terminal.bold(name + " fields"))
            for field in fields {
                let label = field.label.map { $0.isEmpty ? field.key : $0 } ?? field.key
                lines.append("  " + terminal.dim(card.safe(label)) + card.safe(" [\(field.key)]"))
                for valueLine in TerminalText.lines(field.value).split(separator: "\n", omittingEmptySubsequences: false) {
                    lines.append("    " + valueLine)
                }
            }
        }
        // What Wallet shows under the pass (the Additional Info fields are listed above).
        let below = BelowCard(info: pass, scheme: pass.scheme.scheme, additionalInfo: [])
        if !below.isEmpty {
            lines.append("")
            lines.append(terminal.bold("Below the pass"))
            for section in below.sections {
                lines.append("  " + terminal.dim(section.title))
                for line in section.lines { lines.append(card.row(card.safe(line.label), card.safe(line.value), indent: "    ")) }
            }
            for sentence in below.leftOut { lines.append("  " + card.safe(sentence)) }
        }
        if !pass.barcodes.isEmpty {
            lines.append("")
            lines.append(terminal.bold("Barcodes"))
            for barcode in pass.barcodes {
                var text = "\(barcode.format): \(barcode.message)"
                if let alt = barcode.altText { text += " (\(alt))" }
                lines.append("  " + card.safe(text))
            }
        }
        lines.append("")
        lines.append(card.row("ID", card.safe(stored.id.description)))
        lines.append(card.row("Team", card.safe(stored.teamIdentifier)))
        if let signer = pass.signer {
            lines.append(card.row("Signed by", card.safe(signer.subject)))
            if let time = signer.signingTime { lines.append(card.row("Signed", DateText.human(time))) }
        }
        for note in verdict.notes { lines.append(card.row("Note", card.safe(note))) }
        if let source = stored.source {
            var from = source.subject.map { "\"\($0)\"" } ?? source.file ?? "-"
            if let id = source.messageID { from += " \(id)" }
            if let chat = SourceText.chat(source) { from = chat }
            lines.append(card.row("From", card.safe(from)))
        }
        lines.append(card.row("Added", DateText.human(stored.addedAt)))
        if stored.updatedAt != stored.addedAt { lines.append(card.row("Updated", DateText.human(stored.updatedAt))) }
        lines.append(card.row("SHA-256", stored.sha256))
        return lines.joined(separator: "\n")
    }

    /// "PKTransitTypeAir" -> "Air": the PassKit constant is for programs; a person reads the kind.
    static func transitName(_ raw: String) -> String {
        let prefix = "PKTransitType"
        guard raw.hasPrefix(prefix), raw.count > prefix.count else { return raw }
        return String(raw.dropFirst(prefix.count))
    }
}
