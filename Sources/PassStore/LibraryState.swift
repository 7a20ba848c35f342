import Foundation

/// What the library knows about a pass, PassKit's `containsPass` refined.
package enum LibraryState: String, Sendable {
    /// No pass with that id.
    case new
    /// Same id, same bytes.
    case contained
    /// Same id, different content, signed later than the stored one (or either lacks a signing time).
    case update
    /// Same id, different content, signed earlier than the stored one.
    case stale

    /// `incoming` against `stored`, the version held under its id (as `contains` would say).
    package static func of(_ incoming: PassRecord, against stored: StoredPass) -> LibraryState {
        of(incomingSHA256: incoming.sha256.lowercased(), incomingSigningTime: incoming.signingTime,
           storedSHA256: stored.sha256, storedSigningTime: stored.signingTime)
    }

    /// The decision for an incoming pass against the stored one with the same id.
    /// A signing time equal to the stored one is not earlier, so it is an update.
    package static func of(incomingSHA256: String, incomingSigningTime: Date?,
                   storedSHA256: String, storedSigningTime: Date?) -> LibraryState {
        if incomingSHA256 == storedSHA256 { return .contained }
        guard let incoming = incomingSigningTime, let stored = storedSigningTime else { return .update }
        return incoming < stored ? .stale : .update
    }
}
