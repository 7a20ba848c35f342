import Foundation

/// Who signed a pass, as read from its signature (present whenever the signer certificate could be read).
package struct SignerInfo: Sendable, Equatable {
    /// Subject of the signing certificate as an RFC 2253 line (Apple leaves: "C=US,O=…,OU=<team>,CN=Pass Type ID: …,UID=…").
    package var subject: String
    package var commonName: String?
    /// The team identifier of an Apple pass certificate.
    package var organizationalUnit: String?
    /// The pass type identifier of an Apple pass certificate.
    package var userID: String?
    package var organization: String?
    /// From the CMS signing-time attribute.
    package var signingTime: Date?
    package var certificateNotBefore: Date?
    package var certificateNotAfter: Date?
    /// Subjects from the signing certificate up to the anchor, as far as the chain could be built.
    package var chain: [String]
    /// Whether the chain ends in one of Apple's roots (Apple's pass-signing rules were applied).
    package var appleAnchor: Bool
    /// "SHA-1" / "SHA-256"…: the CMS digest algorithm.
    package var digestAlgorithm: String?

    /// Whether the signing certificate has expired by `now` (fine if it was valid when it signed).
    package func certificateExpired(at now: Date = Date()) -> Bool {
        certificateNotAfter.map { $0 < now } ?? false
    }
}
