import PassStore

/// `[notices]` (issue 43 item 2): whether passconduit tells a pass's owner of a change with a
/// change message, a voided pass and a coming date, and how. Off unless switched on.
package struct NoticeSettings: Sendable, Equatable {
    /// `enabled`: reminders are made and notices sent (`notices --send`, and `update` after its
    /// run). Off: a change notice is still recorded with its change, but nothing is sent.
    package var enabled: Bool = false
    /// `opt-in`: a library is sent notices only once its owner switched them on (the web
    /// Settings page); off: every library is, unless its owner switched them off there.
    package var optIn: Bool = false
    /// `mail`: send each notice by mail to the library's owner.
    package var mail: Bool = true
    /// `mail-to`: the owner's address for a library of one person (a file, `--user`); a library
    /// of a `--library-map` goes to its mailbox.
    package var mailTo: String?
    /// `mail-from`: the From of a notice; unset: the one `sendmail` gives (the running user's).
    package var mailFrom: String?
    /// `sendmail`: the program handed each notice on its standard input as `PROGRAM -i -- ADDRESS`.
    package var sendmail: String = "/usr/sbin/sendmail"
    /// `smtp`: hand each notice to this SMTP server ("HOST:PORT", plain SMTP as to a local
    /// Postfix on loopback) instead of `sendmail`.
    package var smtp: SMTPServer?
    /// `desktop`: a notification on the session bus (org.freedesktop.Notifications, by `gdbus`).
    package var desktop: Bool = false
    /// `quiet-hours`: "22:00-07:00" on this machine's clock; notices wait for its end.
    package var quietHours: NoticeRules.QuietHours?
    /// `*-lead-minutes`: reminders before a pass's date, per style.
    package var leadTimes: NoticeRules.LeadTimes = .default

    package init() {}

    /// The config keys of the lead times, with the pass style each sets.
    package static let leadKeys: [(key: String, kind: String)] = [
        ("boarding-pass-lead-minutes", "boardingPass"), ("event-ticket-lead-minutes", "eventTicket"),
        ("generic-lead-minutes", "generic"), ("coupon-lead-minutes", "coupon"), ("store-card-lead-minutes", "storeCard"),
    ]

    /// Whether `text` is a plain mail address a notice may go to: `local@domain`, printable
    /// ASCII without spaces, quotes, brackets or separators (nothing that could end a header
    /// line or reach `sendmail` as an option), at most 254 characters.
    package static func isAddress(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...254).contains(bytes.count), bytes.first != UInt8(ascii: "-") else { return false }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !Array("\"(),:;<>[\\]`'".utf8).contains($0) }) else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !parts[1].hasPrefix("."), !parts[1].hasSuffix(".") else { return false }
        return true
    }

    /// An SMTP server: "host:port", "[v6-address]:port".
    package struct SMTPServer: Sendable, Equatable, CustomStringConvertible {
        package var host: String
        package var port: Int

        package init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        package init?(_ text: String) {
            var host: Substring
            let portText: Substring
            if text.hasPrefix("[") {
                guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
                host = text[text.index(after: text.startIndex)..<close]
                portText = text[text.index(close, offsetBy: 2)...]
            } else {
                guard let colon = text.lastIndex(of: ":") else { return nil }
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
                if host.contains(":") { return nil }
            }
            guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }),
                  let port = Int(portText), (1...65535).contains(port) else { return nil }
            host = host.prefix(253)
            self.init(host: String(host), port: port)
        }

        package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }
}
