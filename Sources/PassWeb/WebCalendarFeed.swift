import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PassCalendar

/// The calendar subscription, `/calendar/SECRET.ics`: what `passconduit calendar` writes for the
/// library of the user whose secret it is (the same `LibraryCalendar`), for calendar programs
/// that fetch without cookies. The secret is the only credential; the log names the route,
/// never the secret. An unknown or revoked secret is a 404 that says nothing of anyone.
extension WebApp {
    static let calendarRoute = "/calendar/{secret}.ics"

    func calendarFeed(_ request: Request, segments: [Substring]) async throws -> Answer? {
        guard segments.count == 2, segments[0] == "calendar", segments[1].hasSuffix(".ics") else { return nil }
        let route = Self.calendarRoute
        guard request.method == .get || request.method == .head else {
            throw WebProblem(.methodNotAllowed, route: route, title: "Not allowed", "A calendar subscription is only read (GET).")
        }
        try checkHost(request)
        let secret = String(segments[1].dropLast(".ics".count))
        let nobody = WebProblem(.notFound, route: route, title: "Not found",
                                "There is no such calendar. If you subscribed to it, its address may have been renewed or revoked on the wallet's Settings page.")
        guard let user = try await config.state.calendarUser(secret: secret), let library = try await config.libraries(user) else {
            throw nobody
        }
        // "?alarm=3h" or "?alarm=kind": the reminders of `passconduit calendar --alarm`, chosen
        // where the address is pasted into a calendar program.
        var alarms: CalendarAlarms?
        let query = WebForm.urlEncoded(Substring(request.uri.query ?? ""))
        if let text = query["alarm"] {
            guard let parsed = CalendarAlarms.parse(text) else {
                throw WebProblem(.badRequest, route: route, title: "Bad request",
                                 "alarm= wants a lead time such as 3h, 90m, 1d or 1h30m (at most 4w), or kind.")
            }
            alarms = parsed
        }
        // The descriptions' dates (a pass's date fields): in "?zone=Europe/Berlin" when given, else
        // at each pass's own offset, the zone always named (issue 41 item 2; DTSTART is exact anyway).
        var opener = config.opener
        opener.shownZone = WebTime.shown(WebTime.zone(named: query["zone"]))
        let calendar = try await LibraryCalendar.write(library: library, opener: opener, alarms: alarms)
        var headers = HTTPFields()
        headers[.contentType] = "text/calendar; charset=utf-8"
        headers[.contentDisposition] = "inline; filename=\"passes.ics\""
        let bytes = ByteBuffer(string: calendar.text)
        headers[.contentLength] = "\(bytes.readableBytes)"
        return Answer(route: route, response: Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes)))
    }
}
