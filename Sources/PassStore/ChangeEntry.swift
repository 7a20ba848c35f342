import Foundation

/// One entry of the library's change log (this world's `PKPassLibraryDidChangeNotification`).
/// Sequence numbers only grow and are never reused, so a follower can ask for everything after
/// the last one it saw.
package struct ChangeEntry: Sendable, Equatable {
    package var sequence: Int64
    package var kind: ChangeKind
    package var passID: PassID
    /// The bytes the pass has after the change (add, replace, revert, offer), or had before it
    /// (remove, decline).
    package var sha256: String?
    package var at: Date
    /// For a replace: which fields changed and the pass's change messages ("Gate changed to B22").
    package var changes: [FieldChange] = []

    package init(sequence: Int64, kind: ChangeKind, passID: PassID, sha256: String?, at: Date, changes: [FieldChange] = []) {
        self.sequence = sequence
        self.kind = kind
        self.passID = passID
        self.sha256 = sha256
        self.at = at
        self.changes = changes
    }
}
