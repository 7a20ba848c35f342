import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the library lives and how its folder and files come into being.
package enum LibraryLocation {
    static let folderName = "passconduit"
    static let fileName = "library.sqlite"

    /// `$XDG_DATA_HOME/passconduit/library.sqlite`; without a usable XDG_DATA_HOME (unset, empty
    /// or relative, which the XDG spec says to ignore) `$HOME/.local/share/...`; without HOME
    /// (a Postfix pipe gives none) the passwd entry's home directory.
    static func defaultPath(environment: [String: String]) -> String {
        "\(dataHome(environment: environment))/\(folderName)/\(fileName)"
    }

    static func dataHome(environment: [String: String]) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return trimmed(xdg) }
        if let home = environment["HOME"], home.hasPrefix("/") { return trimmed(home) + "/.local/share" }
        if let home = passwdHome() { return trimmed(home) + "/.local/share" }
        // No passwd entry for this uid (an arbitrary container uid): a private folder in /tmp,
        // created 0700 like any other.
        return "/tmp/passconduit-\(getuid())"
    }

    private static func trimmed(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p == "/" ? "" : p
    }

    /// The home directory from the passwd entry of the real user id (getpwuid_r: thread-safe).
    /// The one passwd lookup of the project: config, library and filter log all fall back to it
    /// when HOME is unset (a Postfix pipe gives none).
    package static func passwdHome() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let rc = getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result)
        guard rc == 0, result != nil, let dir = entry.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.hasPrefix("/") ? home : nil
    }

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

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
