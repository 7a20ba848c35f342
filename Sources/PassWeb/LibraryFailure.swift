import HTTPTypes
import PassStore

/// A library's failure as the wallet answers it, one mapping for the pages and the API (issue 39
/// item 5; it was written out in both): a busy library or a database server that went away is
/// 503 with Retry-After (try again; nothing was changed), anything else 500 naming the kind. The
/// sentence names no path or server: they are the operator's, not the visitor's.
struct LibraryFailure {
    let status: HTTPResponse.Status
    /// Worth trying again in a moment.
    let busy: Bool
    /// Plain text; a page escapes it.
    let sentence: String
    /// Seconds a client is asked to wait before trying again (busy only).
    static let retryAfter = "5"

    init(_ error: LibraryError) {
        busy = error.kind == .busy || error.kind == .unavailable
        status = busy ? .serviceUnavailable : .internalServerError
        sentence = busy ? "Your pass library cannot be reached right now. Nothing was changed; try again in a moment."
                        : "Your pass library could not answer (\(error.kind.rawValue)). Nothing was changed."
    }
}
