/// A trust store that could not be loaded: which file or folder, and why.
package struct TrustStoreError: Error, Equatable, CustomStringConvertible {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }
}
