import Conduit
import Foundation
import PassRender
import PassStore
import WalletPass

/// The compact card a person sees for a pass: what it is, whether it can be trusted, what the
/// library knows, and where it was found. `details` adds the fields, barcode text, signer and
/// notes (the add flow and --verbose). A pass drawn in one of the new layouts (poster event
/// ticket, semantic boarding pass, poster generic pass) is named by its layout, and its details
/// are what that card's face shows (`CardFaceText`, as `show` lists them), not the classic rows.
struct PassCard {
    let terminal: Terminal

    func render(_ found: FoundPass, details: Bool, now: Date = Date()) -> String {
        let verdict = found.verdict
        var lines: [String] = []
        // The face of a new layout; nil for a classic card (whose fields are what it shows).
        let face = verdict.pass.flatMap(CardFaceText.lines)
        if let pass = verdict.pass {
            lines.append(terminal.bold(safe("\(pass.kindName) · \(pass.organizationName)")))
            if let description = Self.visible(pass.description) { lines.append("  " + safe(description)) }
            // show --verbose's words; a classic pass says it only with --verbose, and only when it
            // asked for a newer layout Wallet would not use.
            let scheme = pass.scheme
            if face != nil || (terminal.verbose && scheme.declined != nil) { lines.append(row("Drawn as", safe(scheme.text))) }
            if let date = pass.relevantDate { lines.append(row("When", pass.relevantDateIsDay ? DateText.day(date) : DateText.human(date))) }
            if let expiry = pass.expirationDate { lines.append(row("Expires", expiryText(expiry, now: now))) }
            if pass.voided { lines.append(row("Voided", "yes, the issuer has voided this pass")) }
        } else {
            lines.append(terminal.bold("Not a readable pass" + (found.source.filename.map { " · " + safe($0) } ?? "")))
        }
        lines.append(row("Status", status(verdict)))
        if let state = found.library { lines.append(row("Library", libraryText(state))) }
        lines.append(row("Found in", whereText(found.source)))
        if details, let pass = verdict.pass {
            // The pass's own fields sit under a heading, indented: a field labelled "Status"
            // (Eurowings has one, valued "-") must not read as passconduit's verdict.
            if let face {
                // What the new layout's face shows, as `show` lists it under "On the card".
                let cells = face.lines.filter { !$0.value.isEmpty }.map { row(safe($0.label), safe($0.value), indent: "    ") }
                if !cells.isEmpty { lines += ["  " + terminal.dim("On the card (\(face.layout))")] + cells }
            } else {
                let fields = fieldLines(PassFieldGroup.front.flatMap { $0.fields(of: pass) })
                if !fields.isEmpty { lines += ["  " + terminal.dim("On the pass")] + fields }
            }
            if let barcode = pass.barcodes.first {
                lines.append(row("Barcode", safe(barcode.altText ?? barcode.message)))
            }
            if let signer = pass.signer {
                var text = signer.commonName ?? signer.subject
                if let time = signer.signingTime { text += ", signed \(DateText.human(time))" }
                lines.append(row("Signed by", safe(text)))
            }
        }
        if details || terminal.verbose {
            for note in verdict.notes { lines.append(row("Note", safe(note))) }
        }
        if terminal.verbose {
            if let error = verdict.error { lines.append(row("Detail", safe("\(error.code.rawValue): \(error.detail)"))) }
            if let pass = verdict.pass { lines.append(row("ID", safe("\(pass.passTypeIdentifier)/\(pass.serialNumber)"))) }
            lines.append(row("SHA-256", verdict.sha256))
        }
        return lines.joined(separator: "\n")
    }

    static let labelColumn = 11

    /// Labels are padded to one column; a longer label (a pass's own field label, such as
    /// "NAME OF PASSENGER") is printed whole rather than cut, on a line of its own with the value
    /// below it in the value column, so the two never read as one ("PONTA DELGADA JOAO PAULO II PDL").
    func row(_ label: String, _ value: String, indent: String = "  ") -> String {
        if label.count > Self.labelColumn {
            return indent + terminal.dim(label) + "\n" + indent + String(repeating: " ", count: Self.labelColumn + 1) + value
        }
        return indent + terminal.dim(label.padding(toLength: Self.labelColumn, withPad: " ", startingAt: 0)) + " " + value
    }

    /// The expiry date, saying so when it has passed: Wallet greys out an expired pass.
    func expiryText(_ expiry: Date, now: Date) -> String {
        DateText.human(expiry) + (expiry < now ? " (expired)" : "")
    }

    /// Text from a message or a pass, cleaned for the terminal (one line).
    func safe(_ text: String) -> String { TerminalText.line(text) }

    /// A text worth a line: nil when it is empty or only white space (some issuers put " ").
    static func visible(_ text: String) -> String? {
        text.allSatisfy(\.isWhitespace) ? nil : text
    }

    func status(_ verdict: PassVerdict) -> String {
        switch verdict.status {
        case .valid: return terminal.green("valid")
        case .untrusted: return terminal.yellow("untrusted") + (verdict.error.map { ": " + safe($0.message) } ?? "")
        case .invalid: return terminal.red("invalid") + (verdict.error.map { ": " + safe($0.message) } ?? "")
        }
    }

    func libraryText(_ state: LibraryState) -> String {
        switch state {
        case .new: return "new, not in your library yet"
        case .contained: return "already in your library"
        case .update: return terminal.yellow("update") + ", a newer version of a pass in your library"
        case .stale: return "older than the version in your library"
        }
    }

    func whereText(_ source: PassSourceInfo) -> String {
        // A Maildir message's own file already names the folder it is in.
        var parts = [source.messagePath ?? (source.input == "-" ? "standard input" : source.input)]
        if let message = source.message, source.messagePath == nil { parts.append("message \(message)") }
        if let part = source.part { parts.append("part \(part)") }
        if let name = source.filename { parts.append("\"\(name)\"") }
        if let member = source.member { parts.append("member \"\(member)\"") }
        var text = parts.joined(separator: ", ")
        if let subject = source.subject, !subject.isEmpty { text += " (\(subject))" }
        return safe(text)
    }

    func fieldLines(_ fields: [PassField]) -> [String] {
        fields.compactMap { field in
            guard !field.value.isEmpty else { return nil }
            return row(safe(field.label.map { $0.isEmpty ? field.key : $0 } ?? field.key), safe(field.value), indent: "    ")
        }
    }

    /// One line for a stored pass in `list`.
    /// `dateWidth`: the longest date text in the list, so the dates line up and none is cut
    /// (the zone is part of the time: "Fri 12 Jun 2026, 19:00 CEST").
    func listLine(_ pass: StoredPass, dateWidth: Int = 0, now: Date = Date()) -> String {
        var marks: [String] = []
        if pass.voided { marks.append("voided") }
        if let expiry = pass.expirationDate, expiry < now { marks.append("expired") }
        // The stored verdict, as `show` gives it.
        if pass.status != .valid { marks.append(safe(pass.status.rawValue)) }
        let date = Self.listDate(pass)
        let padded = date.count >= dateWidth ? date : date.padding(toLength: dateWidth, withPad: " ", startingAt: 0)
        var line = "\(terminal.dim(String(pass.sha256.prefix(8))))  \(padded)  "
        line += terminal.bold(safe(pass.organizationName)) + (Self.visible(pass.description).map { " · " + safe($0) } ?? "")
        if !marks.isEmpty { line += "  " + terminal.yellow("[" + marks.joined(separator: ", ") + "]") }
        return line
    }

    /// The library keeps a relevant date as an instant: a day written without a time is
    /// midnight UTC, shown as that day (as `show` and `scan` show it), not shifted by the zone.
    static func listDate(_ pass: StoredPass) -> String {
        pass.relevantDate.map { DateText.isMidnightUTC($0) ? DateText.day($0) : DateText.human($0) } ?? "-"
    }
}
