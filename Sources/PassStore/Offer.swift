import Foundation

/// A pass the delivery filter found and staged for the user to accept or decline.
/// There is at most one offer per pass id.
package struct Offer: Sendable, Equatable {
    /// Never reused, even after the offer is accepted or declined.
    package var offerID: Int64
    package var passID: PassID
    package var teamIdentifier: String
    package var status: OfferStatus
    package var sha256: String
    package var byteCount: Int
    package var organizationName: String
    package var description: String
    package var kind: String
    package var signingTime: Date?
    package var source: PassSource?
    package var createdAt: Date

    package init(offerID: Int64, passID: PassID, teamIdentifier: String, status: OfferStatus, sha256: String,
                 byteCount: Int, organizationName: String, description: String, kind: String,
                 signingTime: Date?, source: PassSource?, createdAt: Date) {
        self.offerID = offerID
        self.passID = passID
        self.teamIdentifier = teamIdentifier
        self.status = status
        self.sha256 = sha256
        self.byteCount = byteCount
        self.organizationName = organizationName
        self.description = description
        self.kind = kind
        self.signingTime = signingTime
        self.source = source
        self.createdAt = createdAt
    }
}
