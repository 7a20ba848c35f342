/// What a change-log entry records.
package enum ChangeKind: String, Sendable, CaseIterable {
    case add, replace, remove, revert, offer, decline
}
