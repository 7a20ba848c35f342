import Foundation
import PassStore

/// What the delivery filter may do to the library (PassKit's rules, DESIGN.md): a new valid pass
/// becomes an offer awaiting consent; a valid newer version of a pass already in the library —
/// same passTypeIdentifier and serialNumber, same team — replaces it (with updates switched off,
/// or from another team, it is offered like a new pass instead). Nothing else: never an add,
/// never a remove, never an untrusted or invalid pass.
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
    package func apply(status: String, state: LibraryState?, record: PassRecord?, library: (any PassLibraryBackend)?) throws -> FilterAction {
        guard status == "valid", let record, let library, let state else { return .none }
        let policy = self
        return try Blocking.run { try await policy.apply(state: state, record: record, library: library) }
    }

    func apply(state: LibraryState, record: PassRecord, library: any PassLibraryBackend) async throws -> FilterAction {
        switch state {
        case .new:
            guard stageOffers else { return .none }
            _ = try await library.stageOffer(record)
            return .offered
        case .update:
            if applyUpdates, let stored = try await library.pass(record.id), stored.teamIdentifier == record.teamIdentifier {
                try await library.replace(with: record)
                return .updated
            }
            guard stageOffers else { return .none }
            _ = try await library.stageOffer(record)
            return .offered
        case .contained, .stale:
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
}
