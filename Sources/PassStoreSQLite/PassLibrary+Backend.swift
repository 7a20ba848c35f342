import Foundation
import PassStore

/// The SQLite library is a `PassLibraryBackend`: its synchronous operations satisfy the async
/// requirements (a GRDB call is short and local; it runs on the calling task's thread).
extension PassLibrary: PassLibraryBackend {
    package func waitForChanges(after sequence: Int64, timeout: TimeInterval, limit: Int) throws -> [ChangeEntry] {
        try waitForChanges(after: sequence, timeout: timeout, pollInterval: 0.25, limit: limit)
    }

    /// Nothing to release early: the connection closes when the last reference goes.
    package func close() {}

    /// The file at `path` is the one opened (same device and inode). A database the caller made
    /// has no file to be replaced.
    package func isCurrent() -> Bool {
        guard let opened else { return true }
        return LibraryFile.identity(path) == opened
    }
}
