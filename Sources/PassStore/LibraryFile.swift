import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks what sits at the library path before SQLite is allowed near it, so a foreign or
/// corrupt file gets a clear error and is never modified.
///
/// Only `stat` is used, never `open` + `close`: closing any descriptor of a file drops every
/// POSIX lock this process holds on it, including the locks of a library connection already open
/// in the process, which SQLite then reports as a disk I/O error. The bytes themselves are
/// checked by SQLite, which reads the 16-byte "SQLite format 3" magic before anything else and
/// answers SQLITE_NOTADB without writing.
enum LibraryFile {
    /// The smallest SQLite database: one page of the smallest page size. Shorter non-empty files
    /// cannot be one (and SQLite could mistake them for an empty database and write over them).
    static let minimumDatabaseSize = 512

    enum Contents: Equatable {
        case missing
        case empty
        case nonEmpty
    }

    static func inspect(_ path: String) throws -> Contents {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return .missing }
            throw LibraryError(.cannotCreate, "cannot read the library file: \(LibraryLocation.errnoText())", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw LibraryError(.notALibrary, "is not a regular file, so it cannot be a pass library", path: path)
        }
        if info.st_size == 0 { return .empty }
        guard info.st_size >= minimumDatabaseSize else {
            throw LibraryError(.notALibrary,
                               "is not a pass library (\(info.st_size) bytes is too short for an SQLite database); it was left untouched",
                               path: path)
        }
        return .nonEmpty
    }
}
