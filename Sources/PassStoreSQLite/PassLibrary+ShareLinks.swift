import Foundation
import GRDB
import PassStore

extension PassLibrary {
    static let shareLinkColumns = "id, passTypeIdentifier, serialNumber, createdAt, expiresAt, oneDownload, revoked, uses, lastUsedAt"

    static func shareLink(_ row: Row) -> ShareLink {
        let lastUsed: Double? = row["lastUsedAt"]
        return ShareLink(id: row["id"], passID: PassID(passTypeIdentifier: row["passTypeIdentifier"], serialNumber: row["serialNumber"]),
                         created: Date(timeIntervalSince1970: row["createdAt"]), expires: Date(timeIntervalSince1970: row["expiresAt"]),
                         oneDownload: (row["oneDownload"] as Int) != 0, revoked: (row["revoked"] as Int) != 0,
                         uses: row["uses"], lastUsed: lastUsed.map(Date.init(timeIntervalSince1970:)))
    }

    package func createShareLink(_ id: PassID, secretHash: String, expires: Date, oneDownload: Bool) throws -> ShareLink {
        let now = options.now()
        return try write("share") { db in
            guard !id.containsNUL, try Bool.fetchOne(db, sql: "SELECT 1 FROM pass WHERE passTypeIdentifier = ? AND serialNumber = ?",
                                                   arguments: [id.passTypeIdentifier, id.serialNumber]) != nil else {
                throw LibraryError(.notFound, "share: no pass \(id)", path: path)
            }
            try db.execute(sql: """
                INSERT INTO share_link (secretHash, passTypeIdentifier, serialNumber, createdAt, expiresAt, oneDownload)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [secretHash, id.passTypeIdentifier, id.serialNumber, now.timeIntervalSince1970,
                                 expires.timeIntervalSince1970, oneDownload ? 1 : 0])
            let row = try Row.fetchOne(db, sql: "SELECT \(Self.shareLinkColumns) FROM share_link WHERE id = ?", arguments: [db.lastInsertedRowID])
            guard let row else { throw LibraryRules.vanished("share: \(id)", location: path) }
            return Self.shareLink(row)
        }
    }

    package func shareLinks(_ id: PassID?) throws -> [ShareLink] {
        try read("share links") { db in
            if let id {
                return try Row.fetchAll(db, sql: "SELECT \(Self.shareLinkColumns) FROM share_link WHERE passTypeIdentifier = ? AND serialNumber = ? ORDER BY id",
                                        arguments: [id.passTypeIdentifier, id.serialNumber]).map(Self.shareLink)
            }
            return try Row.fetchAll(db, sql: "SELECT \(Self.shareLinkColumns) FROM share_link ORDER BY id").map(Self.shareLink)
        }
    }

    package func revokeShareLink(_ linkID: Int64) throws -> Bool {
        try write("revoke link") { db in
            try db.execute(sql: "UPDATE share_link SET revoked = 1 WHERE id = ?", arguments: [linkID])
            return try Bool.fetchOne(db, sql: "SELECT 1 FROM share_link WHERE id = ?", arguments: [linkID]) != nil
        }
    }

    /// The use is counted by one UPDATE whose WHERE is the link's liveness (`ShareLink.state`):
    /// the write transaction is IMMEDIATE, so two processes never both pass it.
    package func redeemShareLink(secretHash: String) throws -> (link: ShareLink, bytes: [UInt8])? {
        let now = options.now().timeIntervalSince1970
        return try write("redeem link") { db -> (link: ShareLink, bytes: [UInt8])? in
            try db.execute(sql: """
                UPDATE share_link SET uses = uses + 1, lastUsedAt = ?
                WHERE secretHash = ? AND revoked = 0 AND expiresAt > ? AND (oneDownload = 0 OR uses = 0)
                  AND EXISTS (SELECT 1 FROM pass p WHERE p.passTypeIdentifier = share_link.passTypeIdentifier AND p.serialNumber = share_link.serialNumber)
                """, arguments: [now, secretHash, now])
            guard db.changesCount == 1,
                  let row = try Row.fetchOne(db, sql: "SELECT \(Self.shareLinkColumns) FROM share_link WHERE secretHash = ?", arguments: [secretHash])
            else { return nil }
            let link = Self.shareLink(row)
            guard let data = try Data.fetchOne(db, sql: """
                SELECT b.bytes FROM pass p JOIN pass_blob b ON b.sha256 = p.sha256 WHERE p.passTypeIdentifier = ? AND p.serialNumber = ?
                """, arguments: [link.passID.passTypeIdentifier, link.passID.serialNumber]) else { return nil }
            return (link, [UInt8](data))
        }
    }
}
