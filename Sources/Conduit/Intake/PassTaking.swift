import Foundation
import Support
import PassStore
import WalletPass

/// The one way a person's pass is taken into their library (issue 39 item 5): the library's state
/// and stored version read, the decision made by `Intake`, shown and consented to by the caller
/// (the terminal's prompt for `add`, the upload itself on the web, the offer page's Accept button),
/// then written by the race-safe calls. `add`, the web wallet's upload and its offer buttons take
/// passes this way, so none of them can report "added" for a pass another request stored first.
///
///     let taking = PassTaking(library: library, intake: Intake(.user(allowUntrusted: false)))
///     let plan = try await taking.plan(verdict, record: record)
///     // show plan.decision (and plan.changes for a replacement); ask when it says so
///     let taken = try await taking.take(plan)
package struct PassTaking: Sendable {
    package var library: any PassLibraryBackend
    package var intake: Intake
    /// Whether the library may keep an untrusted pass (the person's `--allow-untrusted`).
    package var allowUntrusted: Bool

    package init(library: any PassLibraryBackend, intake: Intake, allowUntrusted: Bool = false) {
        self.library = library
        self.intake = intake
        self.allowUntrusted = allowUntrusted
    }

    /// What the library holds of an arriving pass and what the policy decides.
    package struct Plan: Sendable {
        package var record: PassRecord?
        /// nil for an invalid pass (it has no place in a library) and without a record.
        package var state: LibraryState?
        /// The version stored under the same id, for an update.
        package var stored: StoredPass?
        package var decision: Intake.Decision
        /// For a replacement: what it changes that a person can see.
        package var changes: [FieldChange] {
            guard let record else { return [] }
            return FieldChange.between(old: stored?.fields ?? [], new: record.fields, voids: record.voided && stored?.voided == false)
        }
    }

    /// What was written.
    package enum Taken: Sendable, Equatable {
        /// A new pass, as stored.
        case added(StoredPass)
        /// The stored version replaced by `sha256`; `stored` the new version as stored, when the
        /// write gave it back (accepting an offer does).
        case updated(sha256: String, stored: StoredPass?)
        /// Nothing: the library holds these bytes (another request or process may have stored
        /// them since the plan was made); a staged offer of them is declined.
        case already
        /// Nothing: the policy refused the pass (the plan's decision says why).
        case refused
    }

    /// The plan for `verdict`'s pass. `state`: the library's state when the caller has just asked
    /// it (a scan), else it is asked now.
    package func plan(_ verdict: PassVerdict, record: PassRecord?, state known: LibraryState?? = nil) async throws -> Plan {
        var state: LibraryState?
        if let known {
            state = known
        } else if verdict.status != .invalid, let record {
            state = try await library.contains(record)
        }
        var stored: StoredPass?
        if state == .update, let record { stored = try await library.pass(record.id) }
        let decision = intake.decide(.init(verdict, record: record), state: state, stored: stored)
        return Plan(record: record, state: state, stored: stored, decision: decision)
    }

    /// Writes what `plan` decided, once the person agreed: a new pass only if the library does not
    /// hold it by then, a replacement only if it changes the stored bytes. From a staged offer
    /// (`offerID`) the offer is accepted in the same transaction as the write, or declined when
    /// the library holds the pass already.
    package func take(_ plan: Plan, offerID: Int64? = nil) async throws -> Taken {
        switch plan.decision {
        case .refuse:
            return .refused
        case .nothing, .offer:
            if let offerID { try await library.declineOffer(offerID) }
            return .already
        case .add, .replace:
            guard let record = plan.record else { return .refused }
            let added = plan.decision == .add
            if let offerID {
                let stored = try await library.acceptOffer(offerID, record: record, allowUntrusted: allowUntrusted)
                return added ? .added(stored) : .updated(sha256: record.sha256, stored: stored)
            }
            if added {
                guard let stored = try await library.addIfNew(record, allowUntrusted: allowUntrusted) else { return .already }
                return .added(stored)
            }
            guard try await library.replaceIfChanged(with: record, allowUntrusted: allowUntrusted) != nil else { return .already }
            return .updated(sha256: record.sha256, stored: nil)
        }
    }
}
