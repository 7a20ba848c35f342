import Foundation
import PassStore

/// The libraries a long-running server (`serve`) keeps open between requests, by location and
/// library user. Each is checked before it is handed out (`PassLibraryBackend.isCurrent`): once
/// the library at its location is no longer the one kept (`library drop`, then `library create`
/// of the same mailbox; a file put back from a backup), the kept one is let go and the location
/// opened again, so nobody is shown an erased library and nothing is written into a deleted file.
/// Checked on every use: a file by one `stat`, a library on a server by one small query.
package final class KeptLibraries: @unchecked Sendable {
    /// Opens the library of a target; nil when there is none (a mailbox without a library).
    package typealias Opener = @Sendable (LibraryMap.Target) async throws -> (any PassLibraryBackend)?

    private let lock = NSLock()
    private var kept: [LibraryMap.Target: any PassLibraryBackend] = [:]
    private let open: Opener

    package init(open: @escaping Opener) {
        self.open = open
    }

    /// Keeps `library`, opened already, as `target`'s (unless one is kept); the one kept.
    @discardableResult
    package func keep(_ library: any PassLibraryBackend, for target: LibraryMap.Target) -> any PassLibraryBackend {
        lock.withLock {
            if let other = kept[target] { return other }
            kept[target] = library
            return library
        }
    }

    /// The library of `target`: the kept one while it is current, else opened again.
    package func library(_ target: LibraryMap.Target) async throws -> (any PassLibraryBackend)? {
        if let library = lock.withLock({ kept[target] }) {
            if try await library.isCurrent() { return library }
            // Let it go: requests still using it finish with it, and its connection closes with
            // the last of them.
            lock.withLock {
                if kept[target] === library { kept[target] = nil }
            }
        }
        guard let library = try await open(target) else { return nil }
        return keep(library, for: target)
    }
}
