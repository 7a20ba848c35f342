import Conduit
import Foundation
import HTTPTypes
import Hummingbird
import WalletPass

/// Time as Wallet shows it (issue 41 item 2, operator trial D6): every date a page writes is in
/// the viewer's time zone — the one chosen on Settings, else the browser's (app.js sends
/// `Intl.DateTimeFormat().resolvedOptions().timeZone` in a cookie) — and always with its zone
/// written, so no page shows an unlabelled UTC time. Without either (the first page, a browser
/// without JavaScript) a date is written at the pass's own offset when it has one, else in UTC,
/// labelled. A field with `ignoresTimeZone` keeps the time the pass wrote.
enum WebTime {
    /// The zone chosen on Settings (a year-long cookie of this browser).
    static let chosenCookie = "pczone"
    /// The browser's own zone, as app.js reads it.
    static let browserCookie = "pcbzone"

    /// A zone from a cookie: an IANA name Foundation knows ("Europe/Berlin", "UTC"), at most 64
    /// characters of letters, digits and `/ _ + -`; nil for anything else.
    static func zone(named raw: String?) -> TimeZone? {
        guard let raw, !raw.isEmpty, raw.utf8.count <= 64, raw.utf8.allSatisfy({ b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == UInt8(ascii: "/") || b == UInt8(ascii: "_") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-")
        }) else { return nil }
        return TimeZone(identifier: raw)
    }

    /// "Fri 12 Jun 2026, 20:00 CEST": `date` in `zone`, else at `offset` seconds east of UTC
    /// ("GMT+2"), else in UTC ("UTC").
    static func human(_ date: Date, zone: TimeZone?, offset: Int? = nil) -> String {
        let z = zone ?? offset.flatMap { TimeZone(secondsFromGMT: $0) } ?? utc
        return formatters.string(date, format: "EEE d MMM yyyy, HH:mm", timeZone: z) + " " + name(of: z, at: date)
    }

    static let utc = TimeZone(identifier: "UTC")!

    /// The zones Settings offers: every region/city name Foundation knows, and UTC.
    static let zoneNames: [String] = ["UTC"] + TimeZone.knownTimeZoneIdentifiers.filter { $0.contains("/") && zone(named: $0) != nil }.sorted()

    /// How the pass's date fields are shown to a viewer in `zone` (nil: at the pass's own offset),
    /// always with the zone named.
    static func shown(_ zone: TimeZone?) -> PassOpener.ShownZone {
        PassOpener.ShownZone(zone: zone) { date, offset in name(of: zone ?? TimeZone(secondsFromGMT: offset) ?? utc, at: date) }
    }

    /// The zone's short name at `date`: British English's ("CEST", "BST"), else American English's
    /// ("EDT", "PST"), else the offset ("GMT+5:30"); "UTC" for UTC.
    static func name(of zone: TimeZone, at date: Date) -> String {
        if zone.secondsFromGMT(for: date) == 0, ["UTC", "GMT", "Etc/UTC", "Etc/GMT", "Universal", "Zulu"].contains(zone.identifier) {
            return "UTC"
        }
        let british = formatters.string(date, format: "zzz", timeZone: zone)
        guard british.hasPrefix("GMT"), british.count > 3 else { return british }
        let american = formatters.string(date, format: "zzz", timeZone: zone, locale: "en_US")
        return american.hasPrefix("GMT") ? british : american
    }

    /// The formatters `DateText` keeps (one per format, zone and locale).
    static var formatters: DateText.Formatters { DateText.formatters }
}

extension WebPages {
    /// `date` as this viewer reads it (see `WebTime`).
    func when(_ date: Date, offset: Int? = nil) -> String {
        WebTime.human(date, zone: zone, offset: offset)
    }

    /// What the kept drawings of a page are told apart by: the zone, or "-" when none is known.
    var zoneKey: String { zone?.identifier ?? "-" }

    /// Settings' "Time zone": the zone dates are shown in, or the browser's (the first choice).
    func zoneSection(_ request: Request) -> String {
        let chosen = WebTime.zone(named: app.cookie(request, named: WebTime.chosenCookie))
        var h = "<section aria-labelledby=\"zone\"><h2 id=\"zone\">Time zone</h2>\n"
            + "<p>Dates are shown in \(chosen.map { "the zone you chose, <strong>\(Self.e($0.identifier))</strong>" } ?? zone.map { "your browser's zone, <strong>\(Self.e($0.identifier))</strong>" } ?? "each pass's own zone until your browser tells its own")"
            + "; a date a pass writes for its own place's time stays as written.</p>\n"
            + "<form method=\"post\" action=\"/settings/zone\" class=\"search\"><input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\">"
            + "<label>Show dates in <select name=\"zone\"><option value=\"\">your browser's zone</option>"
        for name in WebTime.zoneNames {
            h += "<option\(name == chosen?.identifier ? " selected" : "")>\(Self.e(name))</option>"
        }
        return h + "</select></label> <button type=\"submit\">Save</button></form></section>\n"
    }

    /// Keeps the chosen zone in a cookie of this browser for a year (none: the browser's own).
    func chooseZone(_ request: Request, form: [String: String]) async throws -> Answer {
        let raw = (form["zone"] ?? "").trimmingCharacters(in: .whitespaces)
        guard raw.isEmpty || WebTime.zone(named: raw) != nil else {
            return Answer(route: "/settings/zone", response: try await settingsPage(request,
                notice: "<p class=\"problem\" role=\"alert\">That is not a time zone this wallet knows. Nothing was changed.</p>\n", status: .badRequest))
        }
        var r = app.redirect("/settings")
        let secure = visitor.secure ? "; Secure" : ""
        r.headers[.setCookie] = raw.isEmpty ? "\(WebTime.chosenCookie)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict\(secure)"
                                            : "\(WebTime.chosenCookie)=\(raw); Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict\(secure)"
        return Answer(route: "/settings/zone", response: r)
    }
}
