import Foundation

/// A pass as the library holds it (without its bytes: `PassLibrary.export` returns those).
package struct StoredPass: Sendable, Equatable {
    package var id: PassID
    package var teamIdentifier: String
    /// valid, untrusted or unsigned (an invalid pass is never stored).
    package var status: StoredStatus
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

    package init(id: PassID, teamIdentifier: String, status: StoredStatus, sha256: String, byteCount: Int,
                 organizationName: String, description: String, kind: String, relevantDate: Date?,
                 expirationDate: Date?, voided: Bool, signerSubject: String?, signingTime: Date?,
                 fields: [StoredField], source: PassSource?, addedAt: Date, updatedAt: Date, previousVersions: Int) {
        self.id = id
        self.teamIdentifier = teamIdentifier
        self.status = status
        self.sha256 = sha256
        self.byteCount = byteCount
        self.organizationName = organizationName
        self.description = description
        self.kind = kind
        self.relevantDate = relevantDate
        self.expirationDate = expirationDate
        self.voided = voided
        self.signerSubject = signerSubject
        self.signingTime = signingTime
        self.fields = fields
        self.source = source
        self.addedAt = addedAt
        self.updatedAt = updatedAt
        self.previousVersions = previousVersions
    }
}
