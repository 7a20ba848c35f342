import Foundation
import PassStore

/// The libraries a long-running server (`serve`) keeps open between requests, by location and
/// library user. Each is checked before it is handed out (`PassLibraryBackend.isCurrent`): once
/// the library at its location is no longer the one kept (`library drop`, then `library create`
/// of the same mailbox; a file put back from a backup), the kept one is let go and the location
/// opened again, so nobody is shown an erased library and nothing is written into a deleted file.
/// Checked on every use: a file by one `stat`, a library on a server by one small query.
///
/// At most `limit` libraries are kept: past it the least recently used is let go (requests
/// still using it finish with it; a file's handle closes, and a server library gives back its
/// use of the process's one pool). So a server that has seen thousands of people holds no more
/// than `limit` libraries, and no connection per person (issue 39 item 4).
package final class KeptLibraries: @unchecked Sendable {
    /// Opens the library of a target; nil when there is none (a mailbox without a library).
    package typealias Opener = @Sendable (LibraryMap.Target) async throws -> (any PassLibraryBackend)?

    private struct Kept {
        var library: any PassLibraryBackend
        var lastUse: UInt64
    }

    private let lock = NSLock()
    private var kept: [LibraryMap.Target: Kept] = [:]
    private var clock: UInt64 = 0
    private let open: Opener
    /// Libraries kept at most.
    package let limit: Int

    package init(limit: Int = 256, open: @escaping Opener) {
        self.limit = max(1, limit)
        self.open = open
    }

    /// How many libraries are kept now.
    package var count: Int { lock.withLock { kept.count } }

    /// Keeps `library`, opened already, as `target`'s (unless one is kept); the one kept.
    @discardableResult
    package func keep(_ library: any PassLibraryBackend, for target: LibraryMap.Target) -> any PassLibraryBackend {
        lock.withLock {
            clock &+= 1
            if let other = kept[target] {
                kept[target]?.lastUse = clock
                return other.library
            }
            kept[target] = Kept(library: library, lastUse: clock)
            while kept.count > limit, let oldest = kept.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                kept[oldest] = nil
            }
            return library
        }
    }

    /// The library of `target`: the kept one while it is current, else opened again.
    package func library(_ target: LibraryMap.Target) async throws -> (any PassLibraryBackend)? {
        let found = lock.withLock { () -> (any PassLibraryBackend)? in
            clock &+= 1
            kept[target]?.lastUse = clock
            return kept[target]?.library
        }
        if let library = found {
            if try await library.isCurrent() { return library }
            // Let it go: requests still using it finish with it, and its connection closes with
            // the last of them.
            lock.withLock {
                if kept[target]?.library === library { kept[target] = nil }
            }
        }
        guard let library = try await open(target) else { return nil }
        return keep(library, for: target)
    }
}
