import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a library file and its folder come into being (where the library is by default is the
/// executables' business: Conduit's `ConfigLocation.defaultLibraryPath`).
package enum LibraryLocation {
    /// Creates every missing folder above `path` with mode 0700 (folders that exist are left as
    /// they are: `--library /tmp/x.sqlite` must not chmod /tmp).
    static func ensureFolder(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        guard !folder.isEmpty else { return }
        var missing: [String] = []
        var current = folder
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
        for dir in missing.reversed() {
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

    /// `text` with any `:password@` of the authority removed and `password=` parameters
    /// blanked: what messages and logs show of a
    /// location (a `postgresql://` URI may hold a password; a file path comes back unchanged).
    package static func withoutPassword(_ text: String) -> String {
        var out = text
        if let scheme = out.range(of: "://") {
            let authorityEnd = out[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? out.endIndex
            let authority = out[scheme.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                out.replaceSubrange(colon..<at, with: "")
            }
        }
        if let q = out.firstIndex(of: "?") {
            let params = out[out.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
                pair.hasPrefix("password=") ? "password=…" : String(pair)
            }
            out = String(out[...q]) + params.joined(separator: "&")
        }
        return out
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
