import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PassStore
import Support

/// Checks what sits at the library path before SQLite is allowed near it, so a foreign or
/// corrupt file gets a clear error and is never modified.
///
/// Only `stat` is used, never `open` + `close`: closing any descriptor of a file drops every
/// POSIX lock this process holds on it, including the locks of a library connection already open
/// in the process, which SQLite then reports as a disk I/O error. The bytes themselves are
/// checked by SQLite, which reads the 16-byte "SQLite format 3" magic before anything else and
/// answers SQLITE_NOTADB without writing.
package enum LibraryFile {
    /// The smallest SQLite database: one page of the smallest page size. Shorter non-empty files
    /// cannot be one (and SQLite could mistake them for an empty database and write over them).
    static let minimumDatabaseSize = 512

    /// Which file a path named when it was looked at: its device and inode (`stat`, never `open`,
    /// for the reason above).
    package struct Identity: Equatable, Sendable {
        var device: UInt64
        var inode: UInt64
    }

    /// The identity of the file at `path` now; nil when there is none.
    package static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    enum Contents: Equatable {
        case missing
        case empty
        case nonEmpty
    }

    static func inspect(_ path: String) throws -> Contents {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return .missing }
            throw LibraryError(.cannotCreate, "cannot read the library file: \(errnoText())", path: path)
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

    /// The folders above the library file `path` that do not exist yet, outermost first; a
    /// non-folder in the way is `cannotCreate`.
    package static func missingFolders(above path: String) throws -> [String] {
        var missing: [String] = []
        var current = (path as NSString).deletingLastPathComponent
        while !current.isEmpty && current != "/" {
            var info = stat()
            if stat(current, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw LibraryError(.cannotCreate, "\(current) is not a folder", path: path)
                }
                break
            }
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        return missing.reversed()
    }

    /// Creates every missing folder above `path` with mode 0700 (folders that exist are left as
    /// they are: `--library /tmp/x.sqlite` must not chmod /tmp).
    static func ensureFolder(of path: String) throws {
        for dir in try missingFolders(above: path) {
            if mkdir(dir, 0o700) != 0 && errno != EEXIST {
                throw LibraryError(.cannotCreate, "cannot create the folder \(dir): \(errnoText())", path: path)
            }
            // mkdir applies the umask; make it exactly 0700.
            _ = chmod(dir, 0o700)
        }
    }

    /// Creates the file with mode 0600 if it does not exist; returns true if it did not.
    /// SQLite gives the -wal and -shm files the mode of the database file, so they are 0600 too.
    @discardableResult
    static func ensureFile(_ path: String) throws -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return false }
            throw LibraryError(.cannotCreate, "cannot create the library file: \(errnoText())", path: path)
        }
        _ = fchmod(fd, 0o600)
        close(fd)
        return true
    }

    /// The 16 bytes every SQLite 3 database starts with.
    static let sqliteMagic: [UInt8] = Array("SQLite format 3\0".utf8)

    /// After SQLite refused the file (SQLITE_NOTADB, its connection closed again), says what the
    /// file is instead: not SQLite at all (with its first bytes), or nil when it does carry the
    /// SQLite magic and is therefore a damaged database. Reading the file directly is safe here:
    /// no connection of this process can hold locks on a file SQLite cannot open.
    static func foreignFileError(_ path: String) -> LibraryError? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: sqliteMagic.count)
        // read writes at most header.count bytes into the buffer it is given.
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        let start = header.prefix(count)
        if Array(start) == sqliteMagic { return nil }
        let shown = Digest.hexString(start.prefix(8), separator: " ")
        return LibraryError(.notALibrary,
                            "is not a pass library (not an SQLite database: it starts with \(shown)); it was left untouched",
                            path: path)
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
