/// What a candidate part holds: one pass (`.pkpass`) or a bundle of passes (`.pkpasses`).
package enum CandidateKind: String, Sendable, Equatable {
    case pass
    case bundle
}
