import PassStore
import WalletPass

/// The verdict `show` and `list` agree on is the stored one (what the pass was when it was
/// added). `show` also opens the stored bytes again with today's trust anchors; when that
/// re-check differs, it is shown beside the stored verdict with the reason, never instead of it.
package struct Recheck {
    package let stored: StoredStatus
    package let verdict: PassVerdict

    package init(stored: StoredStatus, verdict: PassVerdict) {
        self.stored = stored
        self.verdict = verdict
    }

    /// Today's verdict as the library would store it ("unsigned" for a pass with no signature).
    package var today: StoredStatus { PassRecordMapping.storedStatus(verdict) }
    package var differs: Bool { today != stored }

    /// Why today's check differs, in words; nil when it agrees.
    package var reason: String? {
        guard differs else { return nil }
        switch (stored, verdict.status) {
        case (.valid, .untrusted):
            return "its signer is not among today's trust anchors; give the --trust folder it was added with"
        case (.untrusted, .valid):
            return "its signer is among today's trust anchors, which it was not added with"
        default:
            return verdict.error.map { "\($0.message) (\($0.code.rawValue))" } ?? "it now opens as \(today.rawValue)"
        }
    }

    /// `show --json`'s "verification": today's re-check, marked as such, with whether it agrees.
    package var json: JSONOutput {
        .object([
            ("stored", .string(stored.rawValue)),
            ("today", .string(today.rawValue)),
            ("agrees", .bool(!differs)),
            ("reason", .string(reason)),
            ("error", verdict.error.map(JSONOutput.problem) ?? .null),
            ("notes", .array(verdict.notes.map { .string($0) })),
        ])
    }
}
