import Foundation
import PassStore

/// A notice as a mail (issue 43 item 2): short text/plain — what changed, the pass's name and
/// date, a link to its page in the web wallet when one is configured — marked
/// `Auto-Submitted: auto-generated` (RFC 3834: no vacation replies to it) and
/// `X-Passconduit-Notice`, by which the filter and the milter pass it unscanned. Never the pass
/// file, a barcode or a token. Every piece of the pass's text is cleaned of control
/// characters (`Notice.cleaned`), so nothing of it can start a header line.
package struct NoticeMail: Sendable {
    package var to: String
    package var from: String?
    /// `[serve] public-url`: the web wallet people open (`https://wallet.example.org`).
    package var publicURL: String?
    package var timeZone: TimeZone = .current

    package init(to: String, from: String?, publicURL: String?) {
        self.to = to
        self.from = from
        self.publicURL = publicURL
    }

    /// The message (LF line ends, as `sendmail` reads a local message), sent at `now`.
    package func message(_ notice: Notice, now: Date) -> [UInt8] {
        // The Message-ID's right side: the sender's domain (no lookup of this host's name).
        let host = from.flatMap { $0.split(separator: "@").last.map(String.init) } ?? "localhost"
        let words = NoticeWords(notice, timeZone: timeZone)
        var lines: [String] = []
        if let from { lines.append("From: passconduit <\(from)>") }
        lines.append("To: <\(to)>")
        lines.append("Subject: " + Self.encodedWord(words.subject))
        lines.append("Date: " + Self.rfc5322(now))
        let safeHost = host.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-") })
            && !host.isEmpty ? host : "localhost"
        lines.append("Message-ID: <notice-\(notice.id)-\(UInt64.random(in: 0...UInt64.max))@\(safeHost)>")
        lines.append("Auto-Submitted: auto-generated")
        lines.append("\(NoticeMail.headerName): \(notice.kind.rawValue)")
        lines.append("MIME-Version: 1.0")
        lines.append("Content-Type: text/plain; charset=utf-8")
        lines.append("Content-Transfer-Encoding: 8bit")
        lines.append("")
        lines.append(words.sentence)
        lines.append("")
        if let pass = words.passLine { lines.append("Pass: " + pass) }
        if let date = words.dateLine { lines.append("Date: " + date) }
        if let link = link(notice) { lines.append("Open it: " + link) }
        lines.append("")
        lines.append("-- ")
        lines.append("passconduit sends this notice because notices are switched on for your pass library.")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The field name the filter and the milter recognise (DeliveryFilter's `HeaderEdits.noticeName`).
    package static let headerName = "X-Passconduit-Notice"

    /// The pass's page in the web wallet: `PUBLIC-URL/passes/SHA256` (a page behind sign-in).
    package func link(_ notice: Notice) -> String? {
        guard var base = publicURL, let pass = notice.pass,
              base.hasPrefix("https://") || base.hasPrefix("http://") else { return nil }
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/passes/" + pass.sha256
    }

    /// `text` as is when it is printable ASCII, else one or more RFC 2047 encoded words (UTF-8,
    /// base64), each at most 75 characters, folded.
    static func encodedWord(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return text }
        var words: [String] = []
        var chunk = ""
        for character in text {
            // 45 bytes of UTF-8 encode to 60 base64 characters: 72 with the markers.
            if (chunk + String(character)).utf8.count > 45 {
                words.append(chunk)
                chunk = ""
            }
            chunk.append(character)
        }
        if !chunk.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?" + Data($0.utf8).base64EncodedString() + "?=" }.joined(separator: "\n ")
    }

    static func rfc5322(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

/// What a notice says, in every channel alike (mail, desktop, the web list).
package struct NoticeWords: Sendable {
    package var subject: String
    package var sentence: String
    package var passLine: String?
    package var dateLine: String?

    package init(_ notice: Notice, timeZone: TimeZone = .current) {
        let name = notice.pass.map { Notice.cleaned([$0.organizationName, $0.description].filter { !$0.isEmpty }.joined(separator: ": ")) }
        let date = (notice.kind == .reminder ? notice.eventAt : notice.pass?.relevantDate).map { Self.format($0, timeZone: timeZone) }
        passLine = name.flatMap { $0.isEmpty ? nil : $0 }
        dateLine = date
        switch notice.kind {
        case .changed, .voided:
            sentence = notice.text.isEmpty ? (notice.kind == .voided ? "The issuer voided this pass." : "The pass changed.") : notice.text
            subject = String(sentence.prefix(120))
        case .reminder:
            sentence = "Coming up" + (date.map { " at \($0)" } ?? "") + (passLine.map { ": \($0)" } ?? "") + "."
            subject = "Coming up: " + (passLine ?? "a pass in your library")
        }
        subject = Notice.cleaned(subject)
    }

    static func format(_ date: Date, timeZone: TimeZone) -> String {
        DateText.human(date, timeZone: timeZone)
    }
}
