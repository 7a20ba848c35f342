import Foundation
import Support
import PassStore
import WalletPass

/// The one intake policy: what happens to a pass that arrives by the delivery filter, by the
/// user's `add` (or an accepted offer), or from the issuer's web service. PassKit's rules
/// (DESIGN.md): a pass the library lacks is added only with the user's consent (the filter stages
/// it as an offer); a newer version of a stored pass — same passTypeIdentifier and serialNumber,
/// same team, signed no earlier — replaces it; the same bytes change nothing; an older version
/// never replaces a newer one; an invalid pass is never stored, an untrusted one only when the
/// user allows it. Each caller does what the decision says; none decides again.
///
/// | origin      | not valid            | new            | same bytes | newer, same team    | newer, other team | older   |
/// |-------------|----------------------|----------------|------------|---------------------|-------------------|---------|
/// | filter      | nothing              | offer          | nothing    | replace (no asking) | offer             | nothing |
/// | user (add)  | refuse (untrusted: ok with --allow-untrusted; unsigned: ok with --allow-unsigned) | add, asking | nothing | replace, asking | refuse | refuse |
/// | web service | refuse (untrusted: ok only over an untrusted stored version, allowed) | — | nothing | replace (no asking) | refuse | refuse |
///
/// The filter's offers and updates can each be switched off (`[filter]` in the config).
package struct Intake: Sendable, Equatable {
    /// How the pass arrived.
    package enum Origin: Sendable, Equatable {
        /// The delivery filter, for every message: never adds, never asks.
        case filter(stageOffers: Bool, applyUpdates: Bool)
        /// The user's `add`, or accepting an offer: shown, then asked. `allowUnsigned`: a pass
        /// without a signature (KDE Itinerary's, a converter's) is kept, as `unsigned`.
        case user(allowUntrusted: Bool, allowUnsigned: Bool = false)
        /// The issuer's web service, for a pass already in the library (`passconduit update`).
        case webService(allowUntrusted: Bool)
    }

    /// What to do with the arriving pass.
    package enum Decision: Sendable, Equatable {
        /// Add it as a new pass once the user agrees.
        case add
        /// Replace the stored version with it; `askFirst`: only once the user agrees.
        case replace(askFirst: Bool)
        /// Stage it as an offer awaiting the user's consent (`passconduit offers`).
        case offer
        /// Nothing to do, and nothing wrong with that.
        case nothing(Quiet)
        /// Not taken: a stable `code` (JSON, logs), a sentence for people, and the detail.
        case refuse(code: Problem.Code, message: String, detail: String)
    }

    /// Why nothing is done without it being a refusal.
    package enum Quiet: String, Sendable, Equatable {
        /// The library holds these very bytes.
        case contained
        /// The library holds a newer version (the filter leaves it; the others refuse).
        case stale
        /// The filter takes only valid passes with a readable pass.json.
        case notValid
        /// There is no library to ask (the filter's headers-only recipients).
        case noLibrary
        /// The filter's offers (or its updates and offers) are switched off.
        case switchedOff
    }

    /// The pass that arrived: its verdict and, when pass.json could be read, its record.
    package struct Arrival: Sendable {
        package var status: PassStatus
        package var error: PassError?
        /// nil when pass.json could not be read (nothing to identify the pass by).
        package var record: PassRecord?

        package init(status: PassStatus, error: PassError? = nil, record: PassRecord?) {
            self.status = status
            self.error = error
            self.record = record
        }

        package init(_ verdict: PassVerdict, record: PassRecord?) {
            self.init(status: verdict.status, error: verdict.error, record: record)
        }
    }

    package var origin: Origin

    package init(_ origin: Origin) {
        self.origin = origin
    }

    /// The decision for `arrival`. `state` is what the library said of it (`contains`; nil when
    /// there is no library); `stored` the version the library holds under the same id, which the
    /// team and signer checks need (give it whenever `state` is `update` or `stale`; the web
    /// service always has it).
    package func decide(_ arrival: Arrival, state: LibraryState?, stored: StoredPass?) -> Decision {
        if let refusal = statusCheck(arrival, stored: stored) { return refusal }
        guard let record = arrival.record else {
            switch origin {
            case .filter: return .nothing(.notValid)
            case .user: return .refuse(code: .badJSON, message: "Not added: this pass has no readable pass.json.", detail: "")
            case .webService:
                return .refuse(code: .badJSON, message: "The update is not a genuine pass: its pass.json cannot be read.", detail: "")
            }
        }
        if case .webService = origin, let stored, stored.id != record.id {
            return .refuse(code: .differentPass, message: "The issuer's server sent a different pass, so it was not taken.",
                           detail: "asked for \(stored.id), got \(record.id)")
        }
        guard let state else {
            switch origin {
            case .filter: return .nothing(.noLibrary)
            case .user: return .add
            case .webService: return .refuse(code: .notInLibrary, message: "The pass is no longer in your library.", detail: "")
            }
        }
        // The team check needs the stored version: without it the library's own check (inside
        // its transaction) still refuses another team's pass under a stored id.
        let sameTeam = stored.map { $0.teamIdentifier == record.teamIdentifier }
        let otherTeam = sameTeam == false
        switch (state, origin) {
        case (.contained, _):
            return .nothing(.contained)
        case (.new, .filter(let stageOffers, _)):
            return stageOffers ? .offer : .nothing(.switchedOff)
        case (.new, .user):
            return .add
        case (.new, .webService):
            return .refuse(code: .notInLibrary, message: "The pass is no longer in your library.", detail: "")
        case (.stale, .filter):
            return .nothing(.stale)
        case (.update, .filter(let stageOffers, let applyUpdates)):
            // Another team's pass under the same id never replaces it: it waits for consent.
            if applyUpdates, sameTeam == true { return .replace(askFirst: false) }
            return stageOffers ? .offer : .nothing(.switchedOff)
        case (.update, _) where otherTeam, (.stale, .webService) where otherTeam:
            let stored = stored!
            return .refuse(code: .otherTeam, message: origin.isUser
                           ? "Not added: this pass comes from another team than the one in your library."
                           : "The update comes from another team than your pass, so it was not taken.",
                           detail: "stored team \(stored.teamIdentifier), \(origin.isUser ? "new" : "update") team \(record.teamIdentifier)")
        case (.stale, .user):
            return .refuse(code: .olderVersion, message: "Not added: your library already has a newer version of this pass.", detail: "")
        case (.stale, .webService):
            let old = stored?.signingTime.map(DateText.iso) ?? "?"
            let new = record.signingTime.map(DateText.iso) ?? "?"
            return .refuse(code: .olderVersion,
                           message: "The issuer's server sent an older version than the one you have, so it was not taken.",
                           detail: "update signed \(new), stored version signed \(old)")
        case (.update, .user):
            return .replace(askFirst: true)
        case (.update, .webService):
            return .replace(askFirst: false)
        }
    }

    /// The verdict's part: invalid passes are never taken; untrusted ones only as the origin allows.
    private func statusCheck(_ arrival: Arrival, stored: StoredPass?) -> Decision? {
        let e = arrival.error
        switch (arrival.status, origin) {
        case (.valid, _):
            return nil
        case (_, .filter):
            return .nothing(.notValid)
        case (.invalid, .user(_, let allowUnsigned)) where e?.code == .missingSignature:
            if allowUnsigned, let record = arrival.record {
                // Nothing vouches for an unsigned pass, but the library still needs who it claims to be.
                guard !record.id.passTypeIdentifier.isEmpty, !record.id.serialNumber.isEmpty else {
                    return .refuse(code: .missingRequiredKey,
                                   message: "Not added: this unsigned pass has no passTypeIdentifier or serialNumber, which every pass needs.",
                                   detail: "")
                }
                return nil
            }
            return .refuse(code: .missingSignature,
                           message: "Not added: \(e?.message ?? "This pass isn't signed.") Use --allow-unsigned to keep it anyway.",
                           detail: e?.detail ?? "")
        case (.invalid, .user):
            return .refuse(code: e?.code.problemCode ?? .invalid, message: "Not added: \(e?.message ?? "This pass cannot be opened.")",
                           detail: e?.detail ?? "")
        case (.untrusted, .user(let allowUntrusted, _)):
            if allowUntrusted { return nil }
            let reason = e?.message ?? "This pass is signed by someone your trust store does not know."
            return .refuse(code: e?.code.problemCode ?? .untrustedSigner,
                           message: "Not added: \(reason) Use --allow-untrusted to add it anyway.", detail: e?.detail ?? "")
        case (.invalid, .webService):
            return .refuse(code: e?.code.problemCode ?? .invalid, message: "The update is not a genuine pass: \(e?.message ?? "it cannot be opened.")",
                           detail: e?.detail ?? "")
        case (.untrusted, .webService(let allowUntrusted)):
            // Signer continuity: an untrusted version replaces only an untrusted one.
            let storedUntrusted = stored?.status == .untrusted
            if allowUntrusted, storedUntrusted { return nil }
            let why = storedUntrusted
                ? "it is signed by someone your trust store does not know (allow untrusted passes to take it)."
                : "it is signed by someone your trust store does not know, and the version you have is trusted."
            return .refuse(code: e?.code.problemCode ?? .untrustedSigner, message: "The update was not taken: \(why)", detail: e?.detail ?? "")
        }
    }
}

extension Intake.Origin {
    var isUser: Bool {
        if case .user = self { return true }
        return false
    }
}
