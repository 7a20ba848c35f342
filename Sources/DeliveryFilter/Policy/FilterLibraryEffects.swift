import Conduit
import Foundation
import PassStore
import WalletPass

/// What the delivery filter does in the library: the one intake policy (`Intake`, origin
/// `.filter`) decides — a new valid pass becomes an offer awaiting consent; a valid newer version
/// of a pass already in the library from the same team replaces it (with updates switched off,
/// or from another team, it is offered like a new pass instead); nothing else, never an add,
/// never a remove, never an untrusted or invalid pass — and this does the library work.
package struct FilterLibraryEffects: Sendable {
    package var stageOffers: Bool
    package var applyUpdates: Bool

    package init(stageOffers: Bool = true, applyUpdates: Bool = true) {
        self.stageOffers = stageOffers
        self.applyUpdates = applyUpdates
    }

    package init(options: FilterOptions) {
        self.init(stageOffers: options.stageOffers, applyUpdates: options.applyUpdates)
    }

    var intake: Intake { Intake(.filter(stageOffers: stageOffers, applyUpdates: applyUpdates)) }

    /// Library options for a filter run: lock waits bounded well inside the filter's deadline, so
    /// a library held by another process costs the scan, never the message.
    package static func libraryOptions(deadlineSeconds: Double) -> LibraryOptions {
        var o = LibraryOptions()
        o.busyTimeout = max(0.01, min(1, deadlineSeconds / 4))
        o.retryDeadline = max(0.02, deadlineSeconds * 0.6)
        return o
    }

    /// Applies the policy to one found pass and says what happened. `state` is the library's
    /// view before this message (nil when there is no library).
    /// Synchronous, as the scan is: the library work runs as a task the scanning thread waits for.
    /// A write the library could not do (busy past every retry, damaged, full) is thrown, never
    /// turned into a quiet "nothing": the scan then fails with the library's reason, so the
    /// message passes unchanged and the log says why (or 75 with --fail-closed, and the host
    /// retries) instead of the offer being lost.
    package func apply(status: PassStatus, state: LibraryState?, record: PassRecord?, library: (any PassLibraryBackend)?) throws -> FilterAction {
        let arrival = Intake.Arrival(status: status, record: record)
        guard let library, let state else { return .none }   // no library: nothing to do
        let policy = self
        return try Blocking.run { try await policy.apply(arrival, state: state, library: library) }
    }

    func apply(_ arrival: Intake.Arrival, state: LibraryState, library: any PassLibraryBackend) async throws -> FilterAction {
        // The team check needs the stored version; it is read only when an update could apply.
        var stored: StoredPass?
        if state == .update, applyUpdates, let record = arrival.record { stored = try await library.pass(record.id) }
        switch intake.decide(arrival, state: state, stored: stored) {
        case .offer:
            _ = try await library.stageOffer(arrival.record!)
            return .offered
        case .replace:
            try await library.replace(with: arrival.record!)
            return .updated
        case .nothing, .add, .refuse:
            // The filter never adds and never refuses aloud: what it leaves is the user's to add.
            return .none
        }
    }
}

/// The library effect of one pass found by the filter.
package enum FilterAction: String, Sendable, Equatable {
    /// Nothing was done (already present, older, not valid, or no library).
    case none
    /// Staged as an offer awaiting the user's consent (`passconduit offers`).
    case offered
    /// A newer version of a pass in the library replaced it.
    case updated
    /// The library refused to store this one pass (a NUL in its serial number, say): one failed
    /// pass, never a failed scan. The message's other passes are still offered.
    case refused
}
