import Foundation
import Support

/// What the conduit hands the library: one opened pass, its original bytes and the metadata
/// extracted from it. PassStore does not open passes itself (it does not import WalletPass).
package struct PassRecord: Sendable, Equatable {
    package var id: PassID
    package var teamIdentifier: String
    package var status: StoredStatus
    /// The original .pkpass bytes (exported byte-identical) and their SHA-256, hashed when they
    /// were read (the opener's hash, handed on): the digest is right by construction.
    package var hashed: HashedBytes
    package var bytes: [UInt8] { hashed.bytes }
    /// Lowercase hex SHA-256 of `bytes`.
    package var sha256: String { hashed.sha256 }
    package var organizationName: String
    package var description: String
    /// The style key of pass.json ("boardingPass", "eventTicket"...).
    package var kind: String
    package var relevantDate: Date?
    package var expirationDate: Date?
    package var voided: Bool
    package var signerSubject: String?
    package var signingTime: Date?
    /// The pass's fields as shown, made when first read: the conduit defers them
    /// (`PassRecordMapping`), as staging an offer or asking `contains` never reads them.
    package var deferredFields: Deferred<[StoredField]>
    package var fields: [StoredField] {
        get { deferredFields.value }
        set { deferredFields = Deferred(value: newValue) }
    }
    package var source: PassSource?

    package init(id: PassID, teamIdentifier: String, status: StoredStatus, hashed: HashedBytes,
                 organizationName: String, description: String, kind: String,
                 relevantDate: Date? = nil, expirationDate: Date? = nil, voided: Bool = false,
                 signerSubject: String? = nil, signingTime: Date? = nil,
                 fields: [StoredField] = [], source: PassSource? = nil) {
        self.id = id
        self.teamIdentifier = teamIdentifier
        self.status = status
        self.hashed = hashed
        self.organizationName = organizationName
        self.description = description
        self.kind = kind
        self.relevantDate = relevantDate
        self.expirationDate = expirationDate
        self.voided = voided
        self.signerSubject = signerSubject
        self.signingTime = signingTime
        deferredFields = Deferred(value: fields)
        self.source = source
    }
}
