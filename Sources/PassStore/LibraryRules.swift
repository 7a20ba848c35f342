import Foundation
import Support

/// The rules every library backend applies the same way (SQLite's `PassLibrary`, PostgreSQL's
/// `PostgresLibrary`): what a record must be to be stored, and how an ID prefix is read.
package enum LibraryRules {
    /// Git's shortest abbreviation: the fewest hex digits `resolve` accepts as a SHA-256 prefix.
    package static let minimumDigestPrefix = 4

    /// Checks a record before any write: status, identity and size. Its digest needs no check:
    /// a record's bytes and SHA-256 are one `HashedBytes`, hashed when the pass was read.
    package static func validated(_ record: PassRecord, allowUntrusted: Bool, operation: String,
                                  maxPassBytes: Int, location path: String) throws -> PassRecord {
        var r = record
        switch r.status {
        case .valid:
            break
        case .untrusted:
            guard allowUntrusted else {
                throw LibraryError(.refused, "\(operation): \(r.id) is untrusted (its signer does not chain to a trusted root); it is stored only when the user allows untrusted passes",
                                   path: path)
            }
        case .unsigned:
            // A pass nobody signed (KDE Itinerary's, a converter's): only by the user's explicit consent.
            guard allowUntrusted else {
                throw LibraryError(.refused, "\(operation): \(r.id) is unsigned (nobody vouches for who issued it); it is stored only when the user allows unsigned passes",
                                   path: path)
            }
        case .invalid:
            throw LibraryError(.refused, "\(operation): \(r.id) is invalid and is never stored", path: path)
        }
        guard !r.id.passTypeIdentifier.isEmpty, !r.id.serialNumber.isEmpty else {
            throw LibraryError(.refused, "\(operation): a pass needs a passTypeIdentifier and a serialNumber", path: path)
        }
        guard !r.id.containsNUL, !r.teamIdentifier.utf8.contains(0) else {
            throw LibraryError(.refused, "\(operation): the pass's identifier contains a NUL character, which no real pass has",
                               path: path)
        }
        // Display text is kept, but a NUL (which SQLite would cut the text at) becomes U+FFFD.
        r.organizationName = withoutNUL(r.organizationName)
        r.description = withoutNUL(r.description)
        r.kind = withoutNUL(r.kind)
        r.signerSubject = r.signerSubject.map(withoutNUL)
        if var source = r.source {
            source.messageID = source.messageID.map(withoutNUL)
            source.subject = source.subject.map(withoutNUL)
            source.file = source.file.map(withoutNUL)
            r.source = source
        }
        guard !r.id.passTypeIdentifier.contains("/") else {
            throw LibraryError(.refused, "\(operation): passTypeIdentifier “\(r.id.passTypeIdentifier)” contains “/”, which no pass type identifier has",
                               path: path)
        }
        guard r.bytes.count <= maxPassBytes else {
            throw LibraryError(.refused, "\(operation): the pass is \(r.bytes.count) bytes, more than the library's limit of \(maxPassBytes)",
                               path: path)
        }
        return r
    }

    package static func withoutNUL(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }
}
