import Foundation
import PassStore
import Support

/// What one `update` check of one pass found (one JSON object, one text line).
package struct UpdateOutcome: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case updated, unchanged, refused, failed, skipped
    }

    package var id: PassID
    package var kind: Kind
    /// The HTTP status of the pass request, nil when none was answered.
    package var http: Int?
    /// Why it was refused, failed or skipped: a code of the closed set, the sentence, the detail.
    package var error: Problem?
    package var changes: [FieldChange] = []
    /// Set when this run registered the pass with its issuer (true) or failed to (false).
    package var registered: Bool?
    /// Set when this run told the issuer the pass was removed from the library.
    package var unregistered: Bool?
    /// When the server asked to wait before the next check.
    package var retryAfter: Date?
    /// True when trying again later may work (a network or server failure).
    package var temporary = false

    package init(id: PassID, kind: Kind, http: Int? = nil, error: Problem? = nil, changes: [FieldChange] = []) {
        self.id = id
        self.kind = kind
        self.http = http
        self.error = error
        self.changes = changes
    }
}
