import Conduit

extension Recheck {
    /// `show`'s status line: "valid", or "valid (today: untrusted; its signer is not among …)".
    func text(_ card: PassCard) -> String {
        let terminal = card.terminal
        var text: String
        switch stored {
        case .valid: text = terminal.green("valid")
        case .untrusted: text = terminal.yellow("untrusted")
        default: text = terminal.red(card.safe(stored.rawValue))
        }
        if let reason {
            text += " " + terminal.yellow("(today: \(today.rawValue); \(card.safe(reason)))")
        }
        return text
    }
}
