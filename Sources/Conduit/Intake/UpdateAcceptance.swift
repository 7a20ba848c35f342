import Foundation
import PassStore
import WalletPass

/// The intake rule for a newer version of a pass already in the library, as Wallet applies it
/// to an update from the issuer's web service (and `replacePassWithPass`): a small named policy
/// so the one intake policy for filter / add / web updates (issue 10) can fold it in.
///
/// Accepted only when the new bytes are a valid pass (or untrusted, when the stored one is
/// untrusted too and the user allowed untrusted passes); carry the same passTypeIdentifier,
/// serialNumber and teamIdentifier; satisfy the same signer identity rules (the opener already
/// tied the signing certificate's UID and OU to pass.json, so same type and team means the same
/// signer identity); and were signed no earlier than the stored version.
package struct UpdateAcceptance: Sendable, Equatable {
    /// Where the newer version came from.
    package enum Origin: String, Sendable {
        case webService = "web-service"
        case mail
    }

    package enum Decision: Sendable, Equatable {
        /// Replace the stored version.
        case accept
        /// The same bytes as stored: nothing to do.
        case unchanged
        /// Not taken; nothing changes. `code` is stable (JSON), `message` for people.
        case refuse(code: String, message: String, detail: String)
    }

    package var origin: Origin
    package var allowUntrusted: Bool

    package init(origin: Origin, allowUntrusted: Bool = false) {
        self.origin = origin
        self.allowUntrusted = allowUntrusted
    }

    /// The decision for `verdict` (the opened new bytes) against the `stored` version of `requested`.
    package func decide(_ verdict: PassVerdict, stored: StoredPass, requested: PassID) -> Decision {
        switch verdict.status {
        case .invalid:
            let e = verdict.error
            return .refuse(code: e?.code.rawValue ?? "invalid", message: "The update is not a genuine pass: \(e?.message ?? "it cannot be opened.")",
                           detail: e?.detail ?? "")
        case .untrusted:
            guard allowUntrusted, stored.status == "untrusted" else {
                let why = stored.status == "untrusted"
                    ? "it is signed by someone your trust store does not know (allow untrusted passes to take it)."
                    : "it is signed by someone your trust store does not know, and the version you have is trusted."
                return .refuse(code: verdict.error?.code.rawValue ?? "untrusted-signer", message: "The update was not taken: \(why)",
                               detail: verdict.error?.detail ?? "")
            }
        case .valid:
            break
        }
        guard let info = verdict.pass else {
            return .refuse(code: "bad-json", message: "The update is not a genuine pass: its pass.json cannot be read.", detail: "")
        }
        guard info.passTypeIdentifier == requested.passTypeIdentifier, info.serialNumber == requested.serialNumber else {
            return .refuse(code: "different-pass",
                           message: "The issuer's server sent a different pass, so it was not taken.",
                           detail: "asked for \(requested), got \(info.passTypeIdentifier)/\(info.serialNumber)")
        }
        guard info.teamIdentifier == stored.teamIdentifier else {
            return .refuse(code: "other-team", message: "The update comes from another team than your pass, so it was not taken.",
                           detail: "stored team \(stored.teamIdentifier), update team \(info.teamIdentifier)")
        }
        if verdict.sha256 == stored.sha256 { return .unchanged }
        if let new = info.signer?.signingTime, let old = stored.signingTime, new < old {
            return .refuse(code: "older-version",
                           message: "The issuer's server sent an older version than the one you have, so it was not taken.",
                           detail: "update signed \(DateText.iso(new)), stored version signed \(DateText.iso(old))")
        }
        return .accept
    }
}
