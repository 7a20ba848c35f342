import Conduit
import PassStore
import WalletPass

/// The verdict `show` and `list` agree on is the stored one (what the pass was when it was
/// added). `show` also opens the stored bytes again with today's trust anchors; when that
/// re-check differs, it is shown beside the stored verdict with the reason, never instead of it.
struct Recheck {
    let stored: String
    let verdict: PassVerdict

    /// Today's verdict as the library would store it ("unsigned" for a pass with no signature).
    var today: String { PassRecordMapping.storedStatus(verdict) }
    var differs: Bool { today != stored }

    /// Why today's check differs, in words; nil when it agrees.
    var reason: String? {
        guard differs else { return nil }
        switch (stored, verdict.status) {
        case ("valid", .untrusted):
            return "its signer is not among today's trust anchors; give the --trust folder it was added with"
        case ("untrusted", .valid):
            return "its signer is among today's trust anchors, which it was not added with"
        default:
            return verdict.error.map { "\($0.message) (\($0.code.rawValue))" } ?? "it now opens as \(today)"
        }
    }

    /// `show`'s status line: "valid", or "valid (today: untrusted; its signer is not among …)".
    func text(_ card: PassCard) -> String {
        let terminal = card.terminal
        var text: String
        switch stored {
        case "valid": text = terminal.green("valid")
        case "untrusted": text = terminal.yellow("untrusted")
        default: text = terminal.red(card.safe(stored))
        }
        if let reason {
            text += " " + terminal.yellow("(today: \(today); \(card.safe(reason)))")
        }
        return text
    }

    /// `show --json`'s "verification": today's re-check, marked as such, with whether it agrees.
    var json: JSONOutput {
        .object([
            ("stored", .string(stored)),
            ("today", .string(today)),
            ("agrees", .bool(!differs)),
            ("reason", .string(reason)),
            ("error", verdict.error.map(FoundPassJSON.error) ?? .null),
            ("notes", .array(verdict.notes.map { .string($0) })),
        ])
    }
}
