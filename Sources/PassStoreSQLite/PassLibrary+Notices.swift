import Foundation
import GRDB
import PassStore

extension PassLibrary {
    @discardableResult
    package func recordReminders(_ drafts: [NoticeDraft]) throws -> Int {
        guard !drafts.isEmpty else { return 0 }
        let now = options.now()
        return try write("reminders") { db in
            var added = 0
            for draft in drafts where !draft.passID.containsNUL {
                try LibraryRows.insertNotice(db, draft, createdAt: now)
                added += db.changesCount
            }
            return added
        }
    }

    package func notices(since: Date, limit: Int) throws -> [Notice] {
        try read("notices") { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT n.id, n.passTypeIdentifier, n.serialNumber, n.kind, n.text, n.dueAt, n.eventAt, n.createdAt,
                       (SELECT group_concat(channel) FROM notice_sent s WHERE s.notice = n.id) AS sent,
                       p.organizationName, p.description, p.kind AS passKind, p.relevantDate, p.sha256, p.id IS NOT NULL AS present
                FROM notice n LEFT JOIN pass p ON p.passTypeIdentifier = n.passTypeIdentifier AND p.serialNumber = n.serialNumber
                WHERE n.createdAt >= ? ORDER BY n.createdAt DESC, n.id DESC LIMIT ?
                """, arguments: [since.timeIntervalSince1970, max(0, limit)])
            return rows.compactMap { row -> Notice? in
                guard let kind = Notice.Kind(rawValue: row["kind"]) else { return nil }
                let eventAt: Double? = row["eventAt"]
                let sent: String? = row["sent"]
                let present: Bool = row["present"]
                let relevant: Double? = row["relevantDate"]
                return Notice(id: row["id"], passID: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                              kind: kind, text: row["text"], due: Date(timeIntervalSince1970: row["dueAt"]),
                              eventAt: eventAt.map(Date.init(timeIntervalSince1970:)), created: Date(timeIntervalSince1970: row["createdAt"]),
                              sent: Set((sent ?? "").split(separator: ",").map(String.init)),
                              pass: present ? Notice.Summary(organizationName: row["organizationName"], description: row["description"],
                                                             kind: row["passKind"], relevantDate: relevant.map(Date.init(timeIntervalSince1970:)),
                                                             sha256: row["sha256"]) : nil)
            }
        }
    }

    /// The claim is the primary key of `notice_sent`; the write transaction is IMMEDIATE, and
    /// INSERT OR IGNORE adds the row for one caller only.
    package func claimNotice(_ id: Int64, channel: Notice.Channel) throws -> Bool {
        let now = options.now().timeIntervalSince1970
        return try write("claim notice") { db in
            try db.execute(sql: """
                INSERT INTO notice_sent (notice, channel, sentAt) SELECT id, ?, ? FROM notice WHERE id = ? ON CONFLICT DO NOTHING
                """, arguments: [channel.rawValue, now, id])
            return db.changesCount == 1
        }
    }

    package func releaseNotice(_ id: Int64, channel: Notice.Channel) throws {
        try write("release notice") { db in
            try db.execute(sql: "DELETE FROM notice_sent WHERE notice = ? AND channel = ?", arguments: [id, channel.rawValue])
        }
    }

    package func noticePreferences() throws -> NoticePreferences {
        try read("notice settings") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT enabled, boardingPassMinutes, eventTicketMinutes, otherMinutes FROM notice_setting WHERE id = 1
                """) else { return NoticePreferences() }
            let enabled: Int? = row["enabled"]
            return NoticePreferences(enabled: enabled.map { $0 != 0 }, boardingPassMinutes: row["boardingPassMinutes"],
                                     eventTicketMinutes: row["eventTicketMinutes"], otherMinutes: row["otherMinutes"])
        }
    }

    package func setNoticePreferences(_ preferences: NoticePreferences) throws {
        guard preferences.isValid else {
            throw LibraryError(.refused, "a notice lead time is 0 to \(NoticePreferences.maxMinutes) minutes", path: path)
        }
        let now = options.now().timeIntervalSince1970
        try write("notice settings") { db in
            try db.execute(sql: """
                INSERT INTO notice_setting (id, enabled, boardingPassMinutes, eventTicketMinutes, otherMinutes, updatedAt)
                VALUES (1, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, boardingPassMinutes = excluded.boardingPassMinutes,
                    eventTicketMinutes = excluded.eventTicketMinutes, otherMinutes = excluded.otherMinutes, updatedAt = excluded.updatedAt
                """, arguments: [preferences.enabled.map { $0 ? 1 : 0 }, preferences.boardingPassMinutes,
                                 preferences.eventTicketMinutes, preferences.otherMinutes, now])
        }
    }
}
