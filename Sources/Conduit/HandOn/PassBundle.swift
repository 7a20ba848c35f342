import Foundation
import WalletPass

/// A `.pkpasses` bundle of passes' original bytes: a zip of `.pkpass` members at its root, the
/// form Wallet, KDE Itinerary and FossWallet open and `PassOpener.openBundle` reads. Members are
/// stored, not deflated again: a `.pkpass` is already compressed, and stored members keep the
/// original bytes visible byte for byte.
package enum PassBundle {
    package struct Member: Sendable {
        package var passTypeIdentifier: String
        package var sha256: String
        package var bytes: [UInt8]

        package init(passTypeIdentifier: String, sha256: String, bytes: [UInt8]) {
            self.passTypeIdentifier = passTypeIdentifier
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    /// The bundle's bytes. Member names are the pass type (letters, digits, `.`, `-`, `_` only)
    /// and the start of the pass's SHA-256: unique, readable, and free of anything a zip reader
    /// could take for a path.
    package static func write(_ members: [Member]) throws -> [UInt8] {
        var writer = ZipWriter()
        var used = Set<String>()
        for member in members {
            let base = memberBase(member)
            var name = base + ".pkpass"
            var n = 2
            while !used.insert(name).inserted {
                name = "\(base)-\(n).pkpass"
                n += 1
            }
            try writer.add(name, member.bytes, compression: .store)
        }
        return try writer.archive()
    }

    static func memberBase(_ member: Member) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        var type = String(member.passTypeIdentifier.map { allowed.contains($0) ? $0 : "_" }.prefix(100))
        while type.hasPrefix(".") { type.removeFirst() }
        let digest = String(member.sha256.prefix(12))
        return type.isEmpty ? digest : "\(type)-\(digest)"
    }
}
