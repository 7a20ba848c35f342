import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    @discardableResult
    package func recordReminders(_ drafts: [NoticeDraft]) async throws -> Int {
        guard !drafts.isEmpty else { return 0 }
        let now = options.now()
        return try await write("reminders") { tx in
            var added = 0
            for draft in drafts {
                if try await PostgresRows.insertNotice(tx, draft, createdAt: now) { added += 1 }
            }
            return added
        }
    }

    package func notices(since: Date, limit: Int) async throws -> [Notice] {
        try await read("notices") { tx in
            let rows = try await tx.rows("""
                SELECT n.id, n.pass_type_identifier, n.serial_number, n.kind, n.text, n.due_at, n.event_at, n.created_at,
                       (SELECT string_agg(channel, ',') FROM passconduit.notice_sent s WHERE s."user" = n."user" AND s.notice = n.id),
                       p.organization_name, p.description, p.kind, p.relevant_date, p.sha256
                FROM passconduit.notice n LEFT JOIN passconduit.pass p
                  ON p."user" = n."user" AND p.pass_type_identifier = n.pass_type_identifier AND p.serial_number = n.serial_number
                WHERE n."user" = $1 AND n.created_at >= $2 ORDER BY n.created_at DESC, n.id DESC LIMIT $3
                """, [tx.user, since.timeIntervalSince1970, Int64(max(0, limit))])
            return try rows.compactMap { row -> Notice? in
                let (id, type, serial, kindText, text, due, event, created, sent, organization, description, passKind, relevant, sha256) =
                    try row.decode((Int64, String, String, String, String, Double, Double?, Double, String?,
                                    String?, String?, String?, Double?, String?).self)
                guard let kind = Notice.Kind(rawValue: kindText) else { return nil }
                var summary: Notice.Summary?
                if let organization, let description, let passKind, let sha256 {
                    summary = Notice.Summary(organizationName: organization, description: description, kind: passKind,
                                             relevantDate: relevant.map(Date.init(timeIntervalSince1970:)), sha256: sha256)
                }
                return Notice(id: id, passID: PassID(passTypeIdentifier: type, serialNumber: serial), kind: kind, text: text,
                              due: Date(timeIntervalSince1970: due), eventAt: event.map(Date.init(timeIntervalSince1970:)),
                              created: Date(timeIntervalSince1970: created),
                              sent: Set((sent ?? "").split(separator: ",").map(String.init)), pass: summary)
            }
        }
    }

    /// The claim is the primary key of `notice_sent`: of two hosts inserting it at once, the
    /// second waits for the first and then does nothing (ON CONFLICT DO NOTHING), so exactly one
    /// gets a row back.
    package func claimNotice(_ id: Int64, channel: Notice.Channel) async throws -> Bool {
        let now = options.now().timeIntervalSince1970
        return try await write("claim notice") { tx in
            !(try await tx.rows("""
                INSERT INTO passconduit.notice_sent ("user", notice, channel, sent_at)
                SELECT "user", id, $3, $4 FROM passconduit.notice WHERE "user" = $1 AND id = $2
                ON CONFLICT DO NOTHING RETURNING notice
                """, [tx.user, id, channel.rawValue, now])).isEmpty
        }
    }

    package func releaseNotice(_ id: Int64, channel: Notice.Channel) async throws {
        try await write("release notice") { tx in
            try await tx.run(#"DELETE FROM passconduit.notice_sent WHERE "user" = $1 AND notice = $2 AND channel = $3"#,
                             [tx.user, id, channel.rawValue])
        }
    }

    package func noticePreferences() async throws -> NoticePreferences {
        try await read("notice settings") { tx in
            guard let row = try await tx.rows("""
                SELECT notices_enabled, notice_boarding_pass_minutes, notice_event_ticket_minutes, notice_other_minutes
                FROM passconduit.library_user WHERE name = $1
                """, [tx.user]).first else { return NoticePreferences() }
            let (enabled, boarding, event, other) = try row.decode((Bool?, Int32?, Int32?, Int32?).self)
            return NoticePreferences(enabled: enabled, boardingPassMinutes: boarding.map(Int.init),
                                     eventTicketMinutes: event.map(Int.init), otherMinutes: other.map(Int.init))
        }
    }

    package func setNoticePreferences(_ preferences: NoticePreferences) async throws {
        guard preferences.isValid else {
            throw LibraryError(.refused, "a notice lead time is 0 to \(NoticePreferences.maxMinutes) minutes")
        }
        try await write("notice settings") { tx in
            try await tx.run("""
                UPDATE passconduit.library_user SET notices_enabled = $2, notice_boarding_pass_minutes = $3,
                    notice_event_ticket_minutes = $4, notice_other_minutes = $5 WHERE name = $1
                """, [tx.user, preferences.enabled, preferences.boardingPassMinutes.map(Int32.init),
                      preferences.eventTicketMinutes.map(Int32.init), preferences.otherMinutes.map(Int32.init)])
        }
    }
}
