import Foundation

/// A notice as the library keeps it (issue 43 item 2): something the pass's owner should hear of
/// — a change that carries the issuer's change message, a voided pass, or a reminder before the
/// pass's date. The library records it (a change notice in the same transaction as the change);
/// each channel (mail, desktop, the web wallet's "What changed") claims it once, so it is sent at
/// most once per channel, whichever process or host sends.
package struct Notice: Sendable, Equatable {
    /// The notice's number in its library (never reused).
    package var id: Int64
    package var passID: PassID
    package var kind: Kind
    /// What to say: the change messages, cleaned of control characters and cut
    /// (`Notice.cleaned`); for a reminder, empty (the sender words it from the pass).
    package var text: String
    /// When it may be sent: when it was made for a change, the lead time before `eventAt` for a reminder.
    package var due: Date
    /// A reminder's event time (the pass's relevant date when it was made); nil for a change.
    package var eventAt: Date?
    package var created: Date
    /// The channels that claimed it.
    package var sent: Set<String>
    /// The pass as the library holds it now: nil once it was removed.
    package var pass: Summary?

    package init(id: Int64, passID: PassID, kind: Kind, text: String, due: Date, eventAt: Date?, created: Date,
                 sent: Set<String>, pass: Summary?) {
        self.id = id
        self.passID = passID
        self.kind = kind
        self.text = text
        self.due = due
        self.eventAt = eventAt
        self.created = created
        self.sent = sent
        self.pass = pass
    }

    package enum Kind: String, Sendable, CaseIterable {
        case changed, voided, reminder
    }

    /// What a notice names of its pass: never the bytes, a barcode or a token.
    package struct Summary: Sendable, Equatable {
        package var organizationName: String
        package var description: String
        package var kind: String
        package var relevantDate: Date?
        /// The current version's SHA-256: its page in the web wallet is `/passes/SHA256`.
        package var sha256: String

        package init(organizationName: String, description: String, kind: String, relevantDate: Date?, sha256: String) {
            self.organizationName = organizationName
            self.description = description
            self.kind = kind
            self.relevantDate = relevantDate
            self.sha256 = sha256
        }
    }

    /// The channels a notice is claimed by (`chat`: a chat bot's direct message to the owner).
    package enum Channel: String, Sendable, CaseIterable {
        case mail, desktop, web, chat
    }

    /// Longest notice text kept, in characters: a change message is a line, not a letter (an
    /// issuer's 100 KB of text would otherwise go into every mail and page).
    package static let maxTextCharacters = 500

    /// `text` with every control character (C0, DEL, C1: a line break in a mail header, a
    /// terminal escape) turned into a space, runs of spaces made one, cut to `maxTextCharacters`
    /// (an ellipsis marks the cut).
    package static func cleaned(_ text: String) -> String {
        var out = ""
        var lastWasSpace = true
        var count = 0
        for scalar in text.unicodeScalars {
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || scalar.value == 0x2028 || scalar.value == 0x2029
            let isSpace = isControl || scalar == " " || scalar.properties.isWhitespace
            if isSpace {
                if lastWasSpace { continue }
                lastWasSpace = true
                out.unicodeScalars.append(" ")
            } else {
                lastWasSpace = false
                out.unicodeScalars.append(scalar)
            }
            count += 1
            if count > maxTextCharacters { break }
        }
        while out.hasSuffix(" ") { out.removeLast() }
        if out.count > maxTextCharacters {
            out = String(out.prefix(maxTextCharacters - 1)).trimmingCharacters(in: .whitespaces) + "…"
        }
        return out
    }
}

/// A notice to record: what `LibraryRules` decides, the backends store.
package struct NoticeDraft: Sendable, Equatable {
    package var passID: PassID
    package var kind: Notice.Kind
    package var text: String
    package var due: Date
    package var eventAt: Date?

    package init(passID: PassID, kind: Notice.Kind, text: String, due: Date, eventAt: Date?) {
        self.passID = passID
        self.kind = kind
        self.text = text
        self.due = due
        self.eventAt = eventAt
    }
}

extension LibraryRules.LogEntry {
    /// The notice a change-log entry makes: a replace whose changes carry change messages (the
    /// voiding first among them, `FieldChange.voiding`) makes one, `voided` when the replace voided
    /// the pass; every other entry none. Decided here once for every path that replaces a pass
    /// (update, the filter, add, the web upload, an accepted offer).
    package var notice: NoticeDraft? {
        guard kind == .replace else { return nil }
        let messages = changes.compactMap(\.message).filter { !$0.isEmpty }
        guard !messages.isEmpty else { return nil }
        let voided = changes.contains { $0.key == FieldChange.voiding.key && $0.message == FieldChange.voiding.message }
        return NoticeDraft(passID: id, kind: voided ? .voided : .changed, text: Notice.cleaned(messages.joined(separator: "\n")),
                           due: at, eventAt: nil)
    }
}
