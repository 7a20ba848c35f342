import Foundation

/// What the library remembers about a pass's web service: where it is (read once per version
/// from pass.json), the validators of the last answer, and the last check.
package struct WebServiceState: Sendable, Equatable {
    package var id: PassID
    /// The pass version (SHA-256) `webServiceURL`, `authenticationToken` and the validators
    /// belong to. A different stored version makes them stale.
    package var sha256: String
    package var webServiceURL: String?
    package var authenticationToken: String?
    package var lastModified: String?
    package var etag: String?
    package var checkedAt: Date?
    /// "updated", "unchanged", "refused", "failed" or "skipped".
    package var outcome: String?
    package var http: Int?
    package var errorCode: String?
    /// The sentence shown for the last check.
    package var message: String?
    /// Not before this time (the server's Retry-After).
    package var retryAfter: Date?

    package init(id: PassID, sha256: String, webServiceURL: String? = nil, authenticationToken: String? = nil,
                 lastModified: String? = nil, etag: String? = nil, checkedAt: Date? = nil, outcome: String? = nil,
                 http: Int? = nil, errorCode: String? = nil, message: String? = nil, retryAfter: Date? = nil) {
        self.id = id
        self.sha256 = sha256
        self.webServiceURL = webServiceURL
        self.authenticationToken = authenticationToken
        self.lastModified = lastModified
        self.etag = etag
        self.checkedAt = checkedAt
        self.outcome = outcome
        self.http = http
        self.errorCode = errorCode
        self.message = message
        self.retryAfter = retryAfter
    }
}

/// A pass this library registered with its issuer's web service (`update --register`).
package struct WebServiceRegistration: Sendable, Equatable {
    package var id: PassID
    package var webServiceURL: String
    package var authenticationToken: String
    package var registeredAt: Date

    package init(id: PassID, webServiceURL: String, authenticationToken: String, registeredAt: Date) {
        self.id = id
        self.webServiceURL = webServiceURL
        self.authenticationToken = authenticationToken
        self.registeredAt = registeredAt
    }
}
