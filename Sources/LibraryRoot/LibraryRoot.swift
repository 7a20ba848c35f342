import Foundation
import PassStore

/// The one place a pass library is opened (the composition root): the executables turn a
/// `--library` value into a backend here, and nothing else in the program chooses one.
///
/// A file path is an SQLite library (`PassLibrary`, created on first use).
package enum LibraryRoot {
    /// Opens the library `location` names (the `--library` value, the config's `[library] path`,
    /// or the default path the caller worked out).
    package static func open(_ location: String, options: LibraryOptions = .default) async throws -> any PassLibraryBackend {
        try PassLibrary(path: location, options: options)
    }

    /// `open` for synchronous callers (a command's main thread, the filter's scan worker).
    package static func openBlocking(_ location: String, options: LibraryOptions = .default) throws -> any PassLibraryBackend {
        try Blocking.run { try await open(location, options: options) }
    }

    /// The opener as a value, for code that must open a library later and must not choose the
    /// backend itself (the delivery filter opens inside its scanning child; a milter per recipient).
    package static var opener: LibraryOpener {
        { location, options in try openBlocking(location, options: options) }
    }
}
