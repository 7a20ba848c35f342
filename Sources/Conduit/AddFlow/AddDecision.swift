/// What the add flow does with a found pass before asking anyone (PKAddPassesViewController's rules).
package enum AddDecision: Equatable, Sendable {
    /// Not in the library: ask, then add.
    case add
    /// A newer version of a pass in the library: show what changed, ask, then replace.
    case update
    /// Same id and same bytes: nothing to do.
    case alreadyContained
    /// Not added, with the user message and the exit status it stands for.
    case refuse(message: String, status: ExitStatus)

    /// The decision for `found`; `allowUntrusted` is `add --allow-untrusted`.
    package static func of(_ found: FoundPass, allowUntrusted: Bool) -> AddDecision {
        let verdict = found.verdict
        switch verdict.status {
        case .invalid:
            let reason = verdict.error?.message ?? "This pass cannot be opened."
            return .refuse(message: "Not added: \(reason)", status: .dataError)
        case .untrusted where !allowUntrusted:
            let reason = verdict.error?.message ?? "This pass is signed by someone your trust store does not know."
            return .refuse(message: "Not added: \(reason) Use --allow-untrusted to add it anyway.", status: .dataError)
        case .untrusted, .valid:
            break
        }
        guard found.record != nil else {
            return .refuse(message: "Not added: this pass has no readable pass.json.", status: .dataError)
        }
        switch found.library {
        case .contained: return .alreadyContained
        case .update: return .update
        case .stale:
            return .refuse(message: "Not added: your library already has a newer version of this pass.", status: .dataError)
        case .new, nil: return .add
        }
    }
}
