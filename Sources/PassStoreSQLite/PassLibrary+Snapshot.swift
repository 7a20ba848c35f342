import Foundation
import GRDB
import PassStore

extension PassLibrary {
    /// Every row, in one read transaction (`library copy`).
    package func snapshot() throws -> LibrarySnapshot {
        try read("snapshot") { db in
            var s = LibrarySnapshot()
            let decoder = JSONDecoder()
            s.passes = try Row.fetchAll(db, sql: LibraryRows.selectPass + " ORDER BY passTypeIdentifier, serialNumber")
                .map { try LibraryRows.storedPass($0, decoder: decoder, path: path) }
            s.versions = try Row.fetchAll(db, sql: """
                SELECT \(LibraryRows.passColumns), 0 AS previousVersions, replacedAt FROM pass_version
                ORDER BY passTypeIdentifier, serialNumber, id
                """).map { row in
                LibrarySnapshot.Version(pass: try LibraryRows.storedPass(row, decoder: decoder, path: path),
                                        replacedAt: Date(timeIntervalSince1970: row["replacedAt"]))
            }
            s.offers = try Row.fetchAll(db, sql: "SELECT \(LibraryRows.offerColumns) FROM offer ORDER BY id").map { try LibraryRows.offer($0, path: path) }
            s.changes = try Row.fetchAll(db, sql: """
                SELECT sequence, kind, passTypeIdentifier, serialNumber, sha256, at FROM change_log ORDER BY sequence
                """).map { row in
                let kindText: String = row["kind"]
                guard let kind = ChangeKind(rawValue: kindText) else {
                    throw LibraryError(.notALibrary, "the change log holds an unknown kind “\(kindText)”", path: path)
                }
                return ChangeEntry(sequence: row["sequence"], kind: kind,
                                   passID: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                                   sha256: row["sha256"], at: Date(timeIntervalSince1970: row["at"]))
            }
            var fields: [Int64: [FieldChange]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT sequence, key, label, oldValue, newValue, message FROM change_field ORDER BY sequence, position
                """) {
                fields[row["sequence"], default: []].append(FieldChange(key: row["key"], label: row["label"], oldValue: row["oldValue"],
                                                                        newValue: row["newValue"], message: row["message"]))
            }
            for index in s.changes.indices { s.changes[index].changes = fields[s.changes[index].sequence] ?? [] }
            for row in try Row.fetchAll(db, sql: "SELECT sha256, bytes FROM pass_blob") {
                let data: Data = row["bytes"]
                s.blobs[row["sha256"]] = [UInt8](data)
            }
            s.webServiceStates = try Row.fetchAll(db, sql: "SELECT * FROM web_service_state ORDER BY passTypeIdentifier, serialNumber").map { row in
                let checked: Double? = row["checkedAt"], retry: Double? = row["retryAfter"]
                return WebServiceState(
                    id: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                    sha256: row["sha256"], webServiceURL: row["webServiceURL"], authenticationToken: row["authenticationToken"],
                    lastModified: row["lastModified"], etag: row["etag"], checkedAt: LibraryRows.date(checked),
                    outcome: row["outcome"], http: row["http"], errorCode: row["errorCode"], message: row["message"],
                    retryAfter: LibraryRows.date(retry))
            }
            s.registrations = try Row.fetchAll(db, sql: "SELECT * FROM web_service_registration ORDER BY passTypeIdentifier, serialNumber").map { row in
                WebServiceRegistration(id: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                                       webServiceURL: row["webServiceURL"], authenticationToken: row["authenticationToken"],
                                       registeredAt: Date(timeIntervalSince1970: row["registeredAt"]))
            }
            s.tags = try Row.fetchAll(db, sql: "SELECT webServiceURL, passTypeIdentifier, tag FROM web_service_tag").map {
                LibrarySnapshot.Tag(webServiceURL: $0["webServiceURL"], passTypeIdentifier: $0["passTypeIdentifier"], tag: $0["tag"])
            }
            s.deviceLibraryIdentifier = try String.fetchOne(db, sql: "SELECT deviceLibraryIdentifier FROM web_service_device WHERE id = 1")
            // AUTOINCREMENT's memory: the highest id ever given, even when that row is gone.
            s.lastOfferID = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'offer'") ?? 0
            s.lastSequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_log'") ?? 0
            var claims: [Int64: [LibrarySnapshot.NoticeRow.Sent]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT notice, channel, sentAt FROM notice_sent ORDER BY notice, channel") {
                claims[row["notice"], default: []].append(.init(channel: row["channel"], at: Date(timeIntervalSince1970: row["sentAt"])))
            }
            s.notices = try Row.fetchAll(db, sql: """
                SELECT id, passTypeIdentifier, serialNumber, kind, text, dueAt, eventAt, createdAt FROM notice ORDER BY id
                """).map { row in
                let kindText: String = row["kind"]
                guard let kind = Notice.Kind(rawValue: kindText) else {
                    throw LibraryError(.notALibrary, "the notices hold an unknown kind “\(kindText)”", path: path)
                }
                let event: Double? = row["eventAt"]
                return LibrarySnapshot.NoticeRow(
                    id: row["id"], passID: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                    kind: kind, text: row["text"], due: Date(timeIntervalSince1970: row["dueAt"]),
                    eventAt: event.map(Date.init(timeIntervalSince1970:)), created: Date(timeIntervalSince1970: row["createdAt"]),
                    sent: claims[row["id"]] ?? [])
            }
            s.lastNoticeID = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'notice'") ?? 0
            if let row = try Row.fetchOne(db, sql: "SELECT enabled, boardingPassMinutes, eventTicketMinutes, otherMinutes FROM notice_setting WHERE id = 1") {
                let enabled: Int? = row["enabled"]
                s.noticePreferences = NoticePreferences(enabled: enabled.map { $0 != 0 }, boardingPassMinutes: row["boardingPassMinutes"],
                                                        eventTicketMinutes: row["eventTicketMinutes"], otherMinutes: row["otherMinutes"])
            }
            return s
        }
    }

    /// Writes `snapshot` into this library, which must hold nothing yet, in one transaction;
    /// sequence numbers, offer ids and times are kept, so the copy's log continues the source's.
    package func restore(_ s: LibrarySnapshot) throws {
        try write("copy") { db in
            let held = try Int.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM pass) + (SELECT count(*) FROM offer) + (SELECT count(*) FROM change_log)
                  + (SELECT count(*) FROM pass_version) + (SELECT count(*) FROM web_service_state) + (SELECT count(*) FROM notice)
                """) ?? 0
            guard held == 0 else {
                throw LibraryError(.exists, "copy: the library already holds other passes, offers or changes; copy only into an empty one",
                                   path: path)
            }
            for (digest, bytes) in s.blobs {
                try db.execute(sql: "INSERT INTO pass_blob (sha256, bytes) VALUES (?, ?)", arguments: [digest, Data(bytes)])
            }
            for p in s.passes {
                try db.execute(sql: "INSERT INTO pass (\(LibraryRows.passColumns)) VALUES (\(LibraryRows.passPlaceholders))",
                               arguments: LibraryRows.arguments(try PassRow(p).values))
            }
            for v in s.versions {
                try db.execute(sql: "INSERT INTO pass_version (\(LibraryRows.passColumns), replacedAt) VALUES (\(LibraryRows.passPlaceholders), ?)",
                               arguments: LibraryRows.arguments(try PassRow(v.pass).values) + [v.replacedAt.timeIntervalSince1970])
            }
            for o in s.offers {
                try db.execute(sql: "INSERT INTO offer (\(LibraryRows.offerColumns)) VALUES (?, \(LibraryRows.offerRowPlaceholders))",
                               arguments: [o.offerID] + LibraryRows.arguments(OfferRow(o).values))
            }
            for c in s.changes {
                try db.execute(sql: "INSERT INTO change_log (sequence, kind, passTypeIdentifier, serialNumber, sha256, at) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [c.sequence, c.kind.rawValue, c.passID.passTypeIdentifier, c.passID.serialNumber, c.sha256,
                                           c.at.timeIntervalSince1970])
                for (position, f) in c.changes.enumerated() {
                    try db.execute(sql: """
                        INSERT INTO change_field (sequence, position, key, label, oldValue, newValue, message) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [c.sequence, position, f.key, f.label, f.oldValue, f.newValue, f.message])
                }
            }
            for w in s.webServiceStates {
                try db.execute(sql: """
                    INSERT INTO web_service_state (passTypeIdentifier, serialNumber, sha256, webServiceURL, authenticationToken,
                      lastModified, etag, checkedAt, outcome, http, errorCode, message, retryAfter)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [w.id.passTypeIdentifier, w.id.serialNumber, w.sha256, w.webServiceURL, w.authenticationToken,
                                     w.lastModified, w.etag, w.checkedAt?.timeIntervalSince1970, w.outcome, w.http, w.errorCode,
                                     w.message, w.retryAfter?.timeIntervalSince1970])
            }
            for r in s.registrations {
                try db.execute(sql: """
                    INSERT OR REPLACE INTO web_service_registration
                      (passTypeIdentifier, serialNumber, webServiceURL, authenticationToken, registeredAt) VALUES (?, ?, ?, ?, ?)
                    """, arguments: [r.id.passTypeIdentifier, r.id.serialNumber, r.webServiceURL, r.authenticationToken,
                                     r.registeredAt.timeIntervalSince1970])
            }
            for t in s.tags {
                try db.execute(sql: "INSERT OR REPLACE INTO web_service_tag (webServiceURL, passTypeIdentifier, tag) VALUES (?, ?, ?)",
                               arguments: [t.webServiceURL, t.passTypeIdentifier, t.tag])
            }
            for n in s.notices {
                try db.execute(sql: """
                    INSERT INTO notice (id, passTypeIdentifier, serialNumber, kind, text, dueAt, eventAt, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [n.id, n.passID.passTypeIdentifier, n.passID.serialNumber, n.kind.rawValue, n.text,
                                     n.due.timeIntervalSince1970, n.eventAt?.timeIntervalSince1970, n.created.timeIntervalSince1970])
                for claim in n.sent {
                    try db.execute(sql: "INSERT INTO notice_sent (notice, channel, sentAt) VALUES (?, ?, ?)",
                                   arguments: [n.id, claim.channel, claim.at.timeIntervalSince1970])
                }
            }
            if s.noticePreferences != NoticePreferences() {
                let p = s.noticePreferences
                try db.execute(sql: """
                    INSERT OR REPLACE INTO notice_setting (id, enabled, boardingPassMinutes, eventTicketMinutes, otherMinutes, updatedAt)
                    VALUES (1, ?, ?, ?, ?, ?)
                    """, arguments: [p.enabled.map { $0 ? 1 : 0 }, p.boardingPassMinutes, p.eventTicketMinutes, p.otherMinutes,
                                     options.now().timeIntervalSince1970])
            }
            for (table, last) in [("offer", max(s.lastOfferID, s.offers.map(\.offerID).max() ?? 0)),
                                  ("change_log", max(s.lastSequence, s.changes.map(\.sequence).max() ?? 0)),
                                  ("notice", max(s.lastNoticeID, s.notices.map(\.id).max() ?? 0))] where last > 0 {
                try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = ?", arguments: [table])
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [table, last])
            }
            if let device = s.deviceLibraryIdentifier {
                try db.execute(sql: "INSERT OR REPLACE INTO web_service_device (id, deviceLibraryIdentifier, createdAt) VALUES (1, ?, ?)",
                               arguments: [device, options.now().timeIntervalSince1970])
            }
        }
    }
}
