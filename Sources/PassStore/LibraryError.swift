/// Errors of the pass library. `path` is always named so a person can find the file.
package struct LibraryError: Error, Sendable, CustomStringConvertible {
    package enum Kind: String, Sendable {
        case notALibrary = "not-a-library"
        case cannotCreate = "cannot-create"
        case notFound = "not-found"
        case ambiguousID = "ambiguous-id"
        case refused = "refused"
        case io = "io"
    }
    package let kind: Kind
    package let message: String
    package let path: String?

    package init(_ kind: Kind, _ message: String, path: String? = nil) {
        self.kind = kind
        self.message = message
        self.path = path
    }
    package var description: String { path.map { "\($0): \(message)" } ?? message }
}
