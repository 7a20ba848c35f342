#if canImport(Glibc)
import Glibc
#endif

/// The few file-system questions start-up asks (where is the running binary, does this folder
/// exist), answered with plain system calls on path strings. Foundation's FileManager and URL
/// answer them too, but their first use costs a delivery filter, which starts for every message,
/// a measurable share of its run (perf: ~0.4 ms of ~13 ms for a message with a pass).
package enum FilePaths {
    /// The running binary's real path (`/proc/self/exe` resolved), nil where /proc is missing.
    package static func executable() -> String? {
        guard let resolved = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A file or folder passconduit ships (`Config/<name>` in the source tree), the one way to
    /// find one: `$<variable>` when set (tests, packagers: it decides, found or not); else the
    /// first that `isWanted` accepts of `<exe>/../share/passconduit/<name>` (an install prefix),
    /// `<exe dir>/<name>`, and `Config/<name>` of the source tree the executable was built in
    /// (walking up from it to a folder holding Package.swift). No build-machine path is compiled
    /// in: a release binary copied elsewhere finds only what is installed beside it.
    package static func shipped(_ name: String, variable: String, environment: [String: String], executable: String?,
                                isWanted: (String) -> Bool) -> String? {
        if let explicit = environment[variable], !explicit.isEmpty { return isWanted(explicit) ? explicit : nil }
        guard let executable else { return nil }
        let exeDir = parent(of: executable)
        let installed = [join(parent(of: exeDir), "share/passconduit/" + name), join(exeDir, name)]
        if let found = installed.first(where: isWanted) { return found }
        var dir = exeDir
        while dir != "/" && !dir.isEmpty {
            if exists(join(dir, "Package.swift")) {
                let built = join(dir, "Config/" + name)
                return isWanted(built) ? built : nil
            }
            dir = parent(of: dir)
        }
        return nil
    }

    /// Whether `path` names a directory (symbolic links followed).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether something exists at `path` (symbolic links followed).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether this process may read `path`.
    package static func isReadable(_ path: String) -> Bool {
        access(path, R_OK) == 0
    }

    /// "/a/b/c" -> "/a/b", "/a" -> "/", "a" -> "" (trailing slashes ignored), like
    /// NSString.deletingLastPathComponent on the paths used here.
    package static func parent(of path: String) -> String {
        var bytes = path.utf8[...]
        while bytes.count > 1, bytes.last == 0x2F { bytes = bytes.dropLast() }
        guard let slash = bytes.lastIndex(of: 0x2F) else { return "" }
        if slash == bytes.startIndex { return "/" }
        return String(decoding: bytes[..<slash], as: UTF8.self)
    }

    /// `folder` + "/" + `name`, without doubling a slash the folder already ends with.
    package static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
