import Foundation
import PassStore
import PassStorePostgres
import PassStoreSQLite
import Support

/// The one place a pass library is opened (the composition root): the executables turn a
/// `--library` value into a backend here, and nothing else in the program chooses one.
///
/// `postgresql://…` or `postgres://…` (libpq's URI rules) is a library on a PostgreSQL server
/// (`PostgresLibrary`, the user's library created on first use); anything else is a file path,
/// an SQLite library (`PassLibrary`, created on first use).
package enum LibraryRoot {
    /// Opens the library `location` names (the `--library` value, the config's `[library] path`,
    /// or the default path the caller worked out). `options.user` picks whose library on a server.
    /// `create: false` (the milter's per-recipient map) opens only a user's library the server
    /// already holds (`LibraryError.Kind.notFound` otherwise), so a typed address creates none.
    package static func open(_ location: String, options: LibraryOptions = .default, create: Bool = true) async throws -> any PassLibraryBackend {
        if isServer(location) {
            return try await PostgresLibrary.open(location, options: options, create: create)
        }
        return try PassLibrary(path: location, options: options)
    }

    /// Opens an existing library to read it (list, show, export, calendar, log, scan): nothing
    /// is created, neither a library file nor a user's library on a server
    /// (`LibraryError.Kind.notFound` says there is none), and a library file in a folder this
    /// user may not write opens read-only.
    package static func openForReading(_ location: String, options: LibraryOptions = .default) async throws -> any PassLibraryBackend {
        if isServer(location) {
            return try await PostgresLibrary.open(location, options: options, create: false)
        }
        return try PassLibrary.reading(location, options: options)
    }

    /// `openForReading` for synchronous callers.
    package static func openForReadingBlocking(_ location: String, options: LibraryOptions = .default) throws -> any PassLibraryBackend {
        try Blocking.run { try await openForReading(location, options: options) }
    }

    /// Where the web wallet keeps its sessions, calendar secrets and API tokens: the library's
    /// PostgreSQL database when `location` names one (tables of its own, made on first use), else
    /// the SQLite file `file` (beside the library file).
    package static func webState(location: String, file: String) throws -> any WebStateStore {
        if isServer(location) {
            var options = LibraryOptions()
            // A page waits for the database this long at most before it says to try again.
            options.retryDeadline = 5
            return try PostgresWebState(location: location, options: options)
        }
        return try WebStateFile(path: file)
    }

    /// The system libraries the backends load on first use (SQLite; the PostgreSQL client is all
    /// Swift), for the checks an administrator runs (`filter --check`).
    package static var nativeLibraries: [NativeLibrary] { [PassLibrary.sqlite] }

    /// The login name: whose library a file is, and whose on a server by default.
    package static var loginName: String { PostgresLocation.loginName() }

    /// Whether `location` names a library on a server rather than a file.
    package static func isServer(_ location: String) -> Bool {
        PostgresLocation.isPostgres(location)
    }

    /// `open` for synchronous callers (a command's main thread, the filter's scan worker).
    package static func openBlocking(_ location: String, options: LibraryOptions = .default, create: Bool = true) throws -> any PassLibraryBackend {
        try Blocking.run { try await open(location, options: options, create: create) }
    }

    /// The opener as a value, for code that must open a library later and must not choose the
    /// backend itself (the delivery filter opens inside its scanning child; a milter per recipient).
    package static var opener: LibraryOpener {
        { location, options in try openBlocking(location, options: options) }
    }

    /// The opener for a library that must already exist on its server (a file library is opened
    /// as `opener` does: the milter checked that file exists before the scan).
    package static var existingOpener: LibraryOpener {
        { location, options in try openBlocking(location, options: options, create: false) }
    }
}
