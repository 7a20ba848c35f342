import Foundation
import PassStore
import PostgresNIO

extension PostgresLibrary {
    static let shareLinkColumns = "id, pass_type_identifier, serial_number, created_at, expires_at, one_download, revoked, uses, last_used_at"

    static func shareLink(_ row: PostgresRow) throws -> ShareLink {
        let (id, type, serial, created, expires, once, revoked, uses, lastUsed)
            = try row.decode((Int64, String, String, Double, Double, Bool, Bool, Int64, Double?).self)
        return ShareLink(id: id, passID: PassID(passTypeIdentifier: type, serialNumber: serial),
                         created: Date(timeIntervalSince1970: created), expires: Date(timeIntervalSince1970: expires),
                         oneDownload: once, revoked: revoked, uses: Int(uses), lastUsed: lastUsed.map(Date.init(timeIntervalSince1970:)))
    }

    package func createShareLink(_ id: PassID, secretHash: String, expires: Date, oneDownload: Bool) async throws -> ShareLink {
        let location = self.location, now = options.now()
        return try await write("share") { tx in
            guard try await PostgresRows.fetchIdentity(tx, id) != nil else {
                throw LibraryError(.notFound, "share: no pass \(id)", path: location)
            }
            let linkID = try await tx.rows("""
                UPDATE passconduit.library_user SET last_share_link = last_share_link + 1 WHERE name = $1 RETURNING last_share_link
                """, [tx.user])[0].decode(Int64.self)
            let rows = try await tx.rows("""
                INSERT INTO passconduit.share_link ("user", id, secret_hash, pass_type_identifier, serial_number, created_at, expires_at, one_download)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING \(Self.shareLinkColumns)
                """, [tx.user, linkID, secretHash, id.passTypeIdentifier, id.serialNumber, now.timeIntervalSince1970,
                      expires.timeIntervalSince1970, oneDownload])
            return try Self.shareLink(rows[0])
        }
    }

    package func shareLinks(_ id: PassID?) async throws -> [ShareLink] {
        try await read("share links") { tx in
            let rows: [PostgresRow]
            if let id {
                rows = try await tx.rows("""
                    SELECT \(Self.shareLinkColumns) FROM passconduit.share_link
                    WHERE "user" = $1 AND pass_type_identifier = $2 AND serial_number = $3 ORDER BY id
                    """, [tx.user, id.passTypeIdentifier, id.serialNumber])
            } else {
                rows = try await tx.rows(#"SELECT \#(Self.shareLinkColumns) FROM passconduit.share_link WHERE "user" = $1 ORDER BY id"#, [tx.user])
            }
            return try rows.map(Self.shareLink)
        }
    }

    package func revokeShareLink(_ linkID: Int64) async throws -> Bool {
        try await write("revoke link") { tx in
            !(try await tx.rows(#"UPDATE passconduit.share_link SET revoked = true WHERE "user" = $1 AND id = $2 RETURNING id"#,
                                [tx.user, linkID])).isEmpty
        }
    }

    /// The use is counted by one UPDATE whose WHERE is the link's liveness (`ShareLink.state`).
    /// Each write holds the library user's row lock, and under READ COMMITTED a second UPDATE of
    /// the same row waits for the first and checks its WHERE again on the row as committed, so a
    /// one-download link is served once whichever host asks.
    package func redeemShareLink(secretHash: String) async throws -> (link: ShareLink, bytes: [UInt8])? {
        let now = options.now().timeIntervalSince1970
        return try await write("redeem link") { tx -> (link: ShareLink, bytes: [UInt8])? in
            let rows = try await tx.rows("""
                UPDATE passconduit.share_link s SET uses = uses + 1, last_used_at = $3
                WHERE s."user" = $1 AND s.secret_hash = $2 AND NOT s.revoked AND s.expires_at > $3 AND (NOT s.one_download OR s.uses = 0)
                  AND EXISTS (SELECT 1 FROM passconduit.pass p WHERE p."user" = s."user"
                              AND p.pass_type_identifier = s.pass_type_identifier AND p.serial_number = s.serial_number)
                RETURNING \(Self.shareLinkColumns.split(separator: ",").map { "s." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
                """, [tx.user, secretHash, now])
            guard let row = rows.first else { return nil }
            let link = try Self.shareLink(row)
            guard let blob = try await tx.rows("""
                SELECT b.bytes FROM passconduit.pass p JOIN passconduit.pass_blob b ON b."user" = p."user" AND b.sha256 = p.sha256
                WHERE p."user" = $1 AND p.pass_type_identifier = $2 AND p.serial_number = $3
                """, [tx.user, link.passID.passTypeIdentifier, link.passID.serialNumber]).first else { return nil }
            let buffer = try blob.decode(ByteBuffer.self)
            return (link, Array(buffer.readableBytesView))
        }
    }
}
