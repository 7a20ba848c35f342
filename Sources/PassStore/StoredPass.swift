import Foundation

/// A pass as the library holds it (without its bytes: `PassLibrary.export` returns those).
package struct StoredPass: Sendable, Equatable {
    package var id: PassID
    package var teamIdentifier: String
    /// "valid" or "untrusted" (an invalid pass is never stored).
    package var status: String
    package var sha256: String
    package var byteCount: Int
    package var organizationName: String
    package var description: String
    package var kind: String
    package var relevantDate: Date?
    package var expirationDate: Date?
    package var voided: Bool
    package var signerSubject: String?
    package var signingTime: Date?
    package var fields: [StoredField]
    package var source: PassSource?
    package var addedAt: Date
    package var updatedAt: Date
    /// How many earlier versions `revert` can go back to (at most `LibraryOptions.keptVersions`).
    package var previousVersions: Int
}
