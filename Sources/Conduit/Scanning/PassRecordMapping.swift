import Foundation
import PassStore
import Support
import WalletPass

/// PassStore does not import WalletPass: the conduit maps an opened pass to what the library stores.
package enum PassRecordMapping {
    /// nil when pass.json could not be read (nothing to identify the pass by).
    /// `hashed`: the opener's hash of `bytes`, handed on so they are not hashed again.
    package static func record(verdict: PassVerdict, bytes: [UInt8], hashed: HashedBytes? = nil, source: PassSourceInfo?,
                               receivedAt: Date) -> PassRecord? {
        guard let info = verdict.pass else { return nil }
        let origin = source.map {
            PassSource(messageID: $0.messageID, subject: $0.subject,
                       file: $0.input == "-" ? nil : $0.input, receivedAt: receivedAt)
        }
        var record = PassRecord(
            id: PassID(passTypeIdentifier: info.passTypeIdentifier, serialNumber: info.serialNumber),
            teamIdentifier: info.teamIdentifier, status: storedStatus(verdict), hashed: hashed ?? HashedBytes(bytes),
            organizationName: info.organizationName, description: info.description, kind: info.kind.rawValue,
            relevantDate: info.relevantDate, expirationDate: info.expirationDate, voided: info.voided,
            signerSubject: info.signer?.subject, signingTime: info.signer?.signingTime,
            source: origin)
        // Made when the library stores them (add, replace); an offer or a lookup never reads them.
        record.deferredFields = Deferred {
            info.allFields.map { StoredField(key: $0.key, label: $0.label, value: $0.value, changeMessage: $0.changeMessage) }
        }
        return record
    }

    /// A staged offer's bytes as the record accepting it stores, with the offer's own origin (its
    /// message, its time): `add --offer` and the web wallet's Accept make it the same way.
    package static func record(offer: Offer, verdict: PassVerdict, bytes: [UInt8]) -> (source: PassSourceInfo, record: PassRecord?) {
        var source = PassSourceInfo(input: "offer \(offer.offerID)")
        source.messageID = offer.source?.messageID
        source.subject = offer.source?.subject
        var made = record(verdict: verdict, bytes: bytes, source: source, receivedAt: offer.createdAt)
        // A chat offer keeps where it was sent (network, room, event, sender) once accepted, as mail keeps its message.
        if let chat = offer.source, chat.isChat {
            made?.source?.network = chat.network
            made?.source?.room = chat.room
            made?.source?.eventID = chat.eventID
            made?.source?.sender = chat.sender
        }
        return (source, made)
    }

    /// What the library stores as the pass's status: the verdict's, except that a pass whose only
    /// fault is having no signature is `unsigned` (kept only with the user's --allow-unsigned).
    package static func storedStatus(_ verdict: PassVerdict) -> StoredStatus {
        if verdict.status == .invalid && verdict.error?.code == .missingSignature { return .unsigned }
        switch verdict.status {
        case .valid: return .valid
        case .untrusted: return .untrusted
        case .invalid: return .invalid
        }
    }
}
