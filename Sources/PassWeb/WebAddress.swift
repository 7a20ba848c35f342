import Foundation
import PassStore
import Support

/// Stable addresses (issue 41 item 6, operator trial D11): a pass's page lives at
/// `/passes/ADDRESS`, where ADDRESS is made from its pass type and serial number (the first 128
/// bits of their SHA-256, in hex), so an update by the issuer keeps it; the version's SHA-256
/// names only its download (`/passes/SHA256.pkpass`), and a version's old page address leads to
/// the pass's page. The list marks the passes added or updated since this browser's last look at
/// it (a cookie holding when that was).
extension WebPages {
    /// "3f2a…" (32 hex digits): the page address of the pass `id`, in every version.
    static func address(_ id: PassID) -> String {
        String(Digest.sha256Hex(Array((id.passTypeIdentifier + "\n" + id.serialNumber).utf8)).prefix(32))
    }

    static func isAddress(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The page of a pass: `/passes/ADDRESS`.
    static func page(_ id: PassID) -> String { "/passes/" + address(id) }

    /// The pass at a page address, in this user's library only (its list, as cached).
    func pass(atAddress address: String) async throws -> StoredPass? {
        let snapshot: WebListCache.Snapshot
        if let known = try await app.lists.current(user: visitor.session.user, library: library) { snapshot = known }
        else { snapshot = try await listSnapshot() }
        return snapshot.pass(address: address)
    }

    /// The cookie that remembers this browser's last look at the list.
    static let seenCookie = "pcseen"

    /// "new" or "updated" for each pass added or updated after `seen` (by SHA-256); none on a
    /// first look.
    static func changed(_ passes: [StoredPass], since seen: Date?) -> [String: String] {
        guard let seen else { return [:] }
        var marks: [String: String] = [:]
        for pass in passes where pass.updatedAt > seen {
            marks[pass.sha256] = pass.addedAt > seen ? "new" : "updated"
        }
        return marks
    }

    /// The cookie that says the list was seen `now`.
    func seenCookie(_ now: Date) -> String {
        "\(Self.seenCookie)=\(Int64(now.timeIntervalSince1970 * 1000)); Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict\(visitor.secure ? "; Secure" : "")"
    }

    /// When this browser last looked at the list, from its cookie (milliseconds since 1970).
    static func seen(_ value: String?) -> Date? {
        guard let value, value.utf8.count <= 15, let milliseconds = Int64(value), milliseconds > 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }
}
