import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    /// Time a copy of `rows` rows and `bytes` bytes of pass archives may take beyond one ordinary
    /// attempt: every row is a round trip and every archive crosses the connection, so a library of
    /// 100 000 passes needs minutes, not the few seconds after which a write is taken to be stuck.
    static func copyAllowance(rows: Int, bytes: Int) -> TimeInterval {
        5 + Double(rows) / 1_000 + Double(bytes) / 10_000_000
    }

    package func snapshot() async throws -> LibrarySnapshot {
        let location = self.location
        let (rows, bytes) = try await read("snapshot") { tx in
            try await tx.rows("""
                SELECT (SELECT count(*) FROM passconduit.pass WHERE "user" = $1) + (SELECT count(*) FROM passconduit.pass_version WHERE "user" = $1)
                  + (SELECT count(*) FROM passconduit.offer WHERE "user" = $1) + (SELECT count(*) FROM passconduit.change_log WHERE "user" = $1)
                  + (SELECT count(*) FROM passconduit.change_field WHERE "user" = $1),
                  (SELECT coalesce(sum(octet_length(bytes)), 0)::bigint FROM passconduit.pass_blob WHERE "user" = $1)
                """, [tx.user])[0].decode((Int, Int).self)
        }
        return try await read("snapshot", snapshot: true, extra: Self.copyAllowance(rows: rows, bytes: bytes)) { tx in
            var s = LibrarySnapshot()
            let decoder = JSONDecoder()
            s.passes = try await tx.rows(PostgresRows.selectPass + #" WHERE p."user" = $1 ORDER BY p.pass_type_identifier, p.serial_number"#,
                                         [tx.user]).map { try PostgresRows.storedPass($0, decoder: decoder, location: location) }
            for row in try await tx.rows("""
                SELECT \(PostgresRows.passColumns), 0::bigint, replaced_at FROM passconduit.pass_version WHERE "user" = $1
                ORDER BY pass_type_identifier, serial_number, id
                """, [tx.user]) {
                let pass = try PostgresRows.storedPass(row, decoder: decoder, location: location)
                let replaced = try row.makeRandomAccess()[PassRow.columnCount + 1].decode(Double.self)
                s.versions.append(LibrarySnapshot.Version(pass: pass, replacedAt: Date(timeIntervalSince1970: replaced)))
            }
            s.offers = try await tx.rows(#"SELECT \#(PostgresRows.offerColumns) FROM passconduit.offer WHERE "user" = $1 ORDER BY id"#,
                                         [tx.user]).map { try PostgresRows.offer($0, location: location) }
            s.changes = try await Self.changes(tx, after: 0, limit: Int.max, location: location, all: true)
            for row in try await tx.rows(#"SELECT sha256, bytes FROM passconduit.pass_blob WHERE "user" = $1"#, [tx.user]) {
                let (digest, buffer) = try row.decode((String, ByteBuffer).self)
                s.blobs[digest] = Array(buffer.readableBytesView)
            }
            s.webServiceStates = try await tx.rows(#"SELECT \#(Self.stateColumns) FROM passconduit.web_service_state WHERE "user" = $1 ORDER BY pass_type_identifier, serial_number"#,
                                                   [tx.user]).map(Self.state)
            s.registrations = try await tx.rows("""
                SELECT pass_type_identifier, serial_number, web_service_url, authentication_token, registered_at
                FROM passconduit.web_service_registration WHERE "user" = $1 ORDER BY pass_type_identifier, serial_number
                """, [tx.user]).map { row in
                let (type, serial, url, token, at) = try row.decode((String, String, String, String, Double).self)
                return WebServiceRegistration(id: PassID(passTypeIdentifier: type, serialNumber: serial), webServiceURL: url,
                                              authenticationToken: token, registeredAt: Date(timeIntervalSince1970: at))
            }
            s.tags = try await tx.rows(#"SELECT web_service_url, pass_type_identifier, tag FROM passconduit.web_service_tag WHERE "user" = $1"#,
                                       [tx.user]).map { row in
                let (url, type, tag) = try row.decode((String, String, String).self)
                return LibrarySnapshot.Tag(webServiceURL: url, passTypeIdentifier: type, tag: tag)
            }
            let (device, lastSequence, lastOffer) = try await tx.rows(
                "SELECT device_library_identifier, last_sequence, last_offer FROM passconduit.library_user WHERE name = $1",
                [tx.user])[0].decode((String?, Int64, Int64).self)
            s.deviceLibraryIdentifier = device
            s.lastSequence = lastSequence
            s.lastOfferID = lastOffer
            var claims: [Int64: [LibrarySnapshot.NoticeRow.Sent]] = [:]
            for row in try await tx.rows(#"SELECT notice, channel, sent_at FROM passconduit.notice_sent WHERE "user" = $1 ORDER BY notice, channel"#, [tx.user]) {
                let (notice, channel, at) = try row.decode((Int64, String, Double).self)
                claims[notice, default: []].append(.init(channel: channel, at: Date(timeIntervalSince1970: at)))
            }
            s.notices = try await tx.rows("""
                SELECT id, pass_type_identifier, serial_number, kind, text, due_at, event_at, created_at
                FROM passconduit.notice WHERE "user" = $1 ORDER BY id
                """, [tx.user]).map { row in
                let (id, type, serial, kindText, text, due, event, created) =
                    try row.decode((Int64, String, String, String, String, Double, Double?, Double).self)
                guard let kind = Notice.Kind(rawValue: kindText) else {
                    throw LibraryError(.notALibrary, "the notices hold an unknown kind “\(kindText)”", path: location)
                }
                return LibrarySnapshot.NoticeRow(id: id, passID: PassID(passTypeIdentifier: type, serialNumber: serial), kind: kind, text: text,
                                                 due: Date(timeIntervalSince1970: due), eventAt: event.map(Date.init(timeIntervalSince1970:)),
                                                 created: Date(timeIntervalSince1970: created), sent: claims[id] ?? [])
            }
            let (lastNotice, enabled, boarding, eventMinutes, other) = try await tx.rows("""
                SELECT last_notice, notices_enabled, notice_boarding_pass_minutes, notice_event_ticket_minutes, notice_other_minutes
                FROM passconduit.library_user WHERE name = $1
                """, [tx.user])[0].decode((Int64, Bool?, Int32?, Int32?, Int32?).self)
            s.lastNoticeID = lastNotice
            s.noticePreferences = NoticePreferences(enabled: enabled, boardingPassMinutes: boarding.map(Int.init),
                                                    eventTicketMinutes: eventMinutes.map(Int.init), otherMinutes: other.map(Int.init))
            return s
        }
    }

    package func restore(_ s: LibrarySnapshot) async throws {
        let location = self.location, now = options.now
        let rows = s.passes.count + s.versions.count + s.offers.count + s.changes.reduce(0) { $0 + 1 + $1.changes.count }
            + s.webServiceStates.count + s.registrations.count + s.tags.count + s.blobs.count
            + s.notices.reduce(0) { $0 + 1 + $1.sent.count }
        let allowance = Self.copyAllowance(rows: rows, bytes: s.blobs.values.reduce(0) { $0 + $1.count })
        try await write("copy", extra: allowance) { tx in
            let held = try await tx.rows("""
                SELECT (SELECT count(*) FROM passconduit.pass WHERE "user" = $1) + (SELECT count(*) FROM passconduit.offer WHERE "user" = $1)
                  + (SELECT count(*) FROM passconduit.change_log WHERE "user" = $1) + (SELECT count(*) FROM passconduit.pass_version WHERE "user" = $1)
                  + (SELECT count(*) FROM passconduit.web_service_state WHERE "user" = $1)
                """, [tx.user])[0].decode(Int.self)
            guard held == 0 else {
                throw LibraryError(.exists, "copy: the library already holds other passes, offers or changes; copy only into an empty one",
                                   path: location)
            }
            for (digest, bytes) in s.blobs.sorted(by: { $0.key < $1.key }) {
                try await tx.run(#"INSERT INTO passconduit.pass_blob ("user", sha256, bytes) VALUES ($1, $2, $3)"#,
                                 [tx.user, digest, ByteBuffer(bytes: bytes)])
            }
            for p in s.passes {
                try await tx.run(#"INSERT INTO passconduit.pass ("user", \#(PostgresRows.passColumns)) VALUES (\#(PostgresRows.placeholders(PassRow.columnCount + 1)))"#,
                                 [tx.user] + PostgresRows.values(try PassRow(p).values))
            }
            for v in s.versions {
                try await tx.run(#"INSERT INTO passconduit.pass_version ("user", \#(PostgresRows.passColumns), replaced_at) VALUES (\#(PostgresRows.placeholders(PassRow.columnCount + 2)))"#,
                                 [tx.user] + PostgresRows.values(try PassRow(v.pass).values) + [v.replacedAt.timeIntervalSince1970])
            }
            for o in s.offers {
                try await tx.run("""
                    INSERT INTO passconduit.offer ("user", \(PostgresRows.offerColumns)) VALUES (\(PostgresRows.placeholders(OfferRow.columnCount + 2)))
                    """, [tx.user, o.offerID] + PostgresRows.values(OfferRow(o).values))
            }
            for c in s.changes {
                try await tx.run("""
                    INSERT INTO passconduit.change_log ("user", sequence, kind, pass_type_identifier, serial_number, sha256, at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7)
                    """, [tx.user, c.sequence, c.kind.rawValue, c.passID.passTypeIdentifier, c.passID.serialNumber, c.sha256,
                          c.at.timeIntervalSince1970])
                for (position, f) in c.changes.enumerated() {
                    try await tx.run("""
                        INSERT INTO passconduit.change_field ("user", sequence, position, key, label, old_value, new_value, message)
                        VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                        """, [tx.user, c.sequence, position, f.key, f.label, f.oldValue, f.newValue, f.message])
                }
            }
            for w in s.webServiceStates {
                try await tx.run("""
                    INSERT INTO passconduit.web_service_state ("user", \(Self.stateColumns)) VALUES (\(PostgresRows.placeholders(14)))
                    """, [tx.user, w.id.passTypeIdentifier, w.id.serialNumber, w.sha256, w.webServiceURL, w.authenticationToken,
                          w.lastModified, w.etag, w.checkedAt?.timeIntervalSince1970, w.outcome, w.http, w.errorCode, w.message,
                          w.retryAfter?.timeIntervalSince1970])
            }
            for r in s.registrations {
                try await tx.run("""
                    INSERT INTO passconduit.web_service_registration
                      ("user", pass_type_identifier, serial_number, web_service_url, authentication_token, registered_at)
                    VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING
                    """, [tx.user, r.id.passTypeIdentifier, r.id.serialNumber, r.webServiceURL, r.authenticationToken,
                          r.registeredAt.timeIntervalSince1970])
            }
            for t in s.tags {
                try await tx.run("""
                    INSERT INTO passconduit.web_service_tag ("user", web_service_url, pass_type_identifier, tag) VALUES ($1, $2, $3, $4)
                    ON CONFLICT DO NOTHING
                    """, [tx.user, t.webServiceURL, t.passTypeIdentifier, t.tag])
            }
            for n in s.notices {
                try await tx.run("""
                    INSERT INTO passconduit.notice ("user", id, pass_type_identifier, serial_number, kind, text, due_at, event_at, created_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                    """, [tx.user, n.id, n.passID.passTypeIdentifier, n.passID.serialNumber, n.kind.rawValue, n.text,
                          n.due.timeIntervalSince1970, n.eventAt?.timeIntervalSince1970, n.created.timeIntervalSince1970])
                for claim in n.sent {
                    try await tx.run(#"INSERT INTO passconduit.notice_sent ("user", notice, channel, sent_at) VALUES ($1, $2, $3, $4)"#,
                                     [tx.user, n.id, claim.channel, claim.at.timeIntervalSince1970])
                }
            }
            let p = s.noticePreferences
            try await tx.run("""
                UPDATE passconduit.library_user SET last_notice = greatest(last_notice, $2), notices_enabled = $3,
                  notice_boarding_pass_minutes = $4, notice_event_ticket_minutes = $5, notice_other_minutes = $6
                WHERE name = $1
                """, [tx.user, max(s.lastNoticeID, s.notices.map(\.id).max() ?? 0), p.enabled, p.boardingPassMinutes.map(Int32.init),
                      p.eventTicketMinutes.map(Int32.init), p.otherMinutes.map(Int32.init)])
            // The counters continue from the copied log and offers, so numbers are never reused.
            try await tx.run("""
                UPDATE passconduit.library_user SET last_sequence = greatest(last_sequence, $2), last_offer = greatest(last_offer, $3),
                  device_library_identifier = coalesce($4, device_library_identifier),
                  device_created_at = CASE WHEN $4::text IS NULL THEN device_created_at ELSE $5 END
                WHERE name = $1
                """, [tx.user, max(s.lastSequence, s.changes.map(\.sequence).max() ?? 0),
                      max(s.lastOfferID, s.offers.map(\.offerID).max() ?? 0), s.deviceLibraryIdentifier,
                      now().timeIntervalSince1970])
            if !s.changes.isEmpty { try await tx.run("SELECT pg_notify($1, $2)", [Self.channel, tx.user]) }
        }
    }
}
