import Foundation
import PassStore
import Support
import WalletPass

/// Staging a pass someone handed over (`passconduit offer`, a bot's `POST /api/v1/offers`) as an
/// offer: the filter's staging rules without its switches, and never a write of the pass itself.
/// A valid or untrusted pass the library lacks, or a newer version of one it holds, becomes an
/// offer (one per pass id: a newer version replaces a pending offer); the very bytes the library
/// holds, and an older version, are not offered; an invalid or unsigned pass is refused.
package enum OfferIntake {
    package enum Outcome: Sendable, Equatable {
        /// Staged: a new offer (`replaced` false) or a pending offer now holding this newer version.
        case staged(Offer, replaced: Bool)
        /// A pending offer holds these bytes already (`newer`: it holds a newer version).
        case alreadyOffered(Offer, newer: Bool)
        /// The library holds these very bytes.
        case inLibrary
        /// The library holds a newer version.
        case older
        case refused(code: Problem.Code, message: String)

        /// The stable word `--json` and the API write.
        package var result: String {
            switch self {
            case .staged(_, let replaced): replaced ? "updated" : "offered"
            case .alreadyOffered: "already-offered"
            case .inLibrary: "in-library"
            case .older: "older"
            case .refused: "refused"
            }
        }

        package var offer: Offer? {
            switch self {
            case .staged(let offer, _), .alreadyOffered(let offer, _): offer
            default: nil
            }
        }

        package var isRefusal: Bool {
            if case .refused = self { return true }
            return false
        }
    }

    /// Stages `found` in `library`. `chat`: the chat message that carried it (its network, room,
    /// event, sender and time replace the mail fields; the file name stays).
    package static func stage(_ found: FoundPass, chat: PassSource?, library: any PassLibraryBackend) async throws -> Outcome {
        let verdict = found.verdict
        guard verdict.status != .invalid, var record = found.record else {
            let e = verdict.error
            return .refused(code: e?.code.problemCode ?? .badJSON,
                            message: "Not offered: \(e?.message ?? "This pass has no readable pass.json.")")
        }
        if let chat {
            record.source = PassSource(file: record.source?.file, receivedAt: chat.receivedAt, network: chat.network,
                                       room: chat.room, eventID: chat.eventID, sender: chat.sender)
        }
        switch try await library.contains(record) {
        case .contained: return .inLibrary
        case .stale: return .older
        case .new, .update: break
        }
        let pending = try await library.offers().first { $0.passID == record.id }
        let offer = try await library.stageOffer(record)
        if let pending, pending.offerID == offer.offerID, pending.sha256 == offer.sha256 {
            return .alreadyOffered(offer, newer: offer.sha256 != record.sha256)
        }
        return .staged(offer, replaced: pending != nil)
    }

    /// One line for people: "Air Example · Boarding pass: offered as #3."
    package static func line(_ title: String, _ outcome: Outcome) -> String {
        switch outcome {
        case .staged(let offer, false): "\(title): offered as #\(offer.offerID)."
        case .staged(let offer, true): "\(title): offer #\(offer.offerID) now holds this newer version."
        case .alreadyOffered(let offer, false): "\(title): already offered as #\(offer.offerID)."
        case .alreadyOffered(let offer, true): "\(title): a newer version is already offered as #\(offer.offerID)."
        case .inLibrary: "\(title): already in your library."
        case .older: "\(title): your library has a newer version; not offered."
        case .refused(_, let message): "\(title): \(message)"
        }
    }

    /// The JSON object of one pass's outcome (`offer --json`, `POST /api/v1/offers`).
    package static func json(_ found: FoundPass, _ outcome: Outcome) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            ("schema", .int(FoundPassJSON.schema)),
            ("result", .string(outcome.result)),
            ("id", .string(found.record?.id.description)),
            ("organizationName", .string(found.verdict.pass?.organizationName)),
            ("description", .string(found.verdict.pass?.description)),
            ("sha256", .string(found.verdict.sha256)),
            ("offer", outcome.offer.map { OfferJSON.object($0) } ?? .null),
        ]
        if case .refused(let code, let message) = outcome {
            members.append(("error", .object([("code", .string(code.rawValue)), ("message", .string(message))])))
        }
        return .object(members)
    }

    /// How a person recognises the pass in a line.
    package static func title(_ found: FoundPass) -> String {
        found.verdict.pass.map { "\($0.organizationName) · \($0.description)" } ?? found.source.filename ?? found.source.input
    }
}
