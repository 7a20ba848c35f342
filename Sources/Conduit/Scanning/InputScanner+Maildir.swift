#if canImport(Glibc)
import Glibc
#endif

// Maildir++: the folders beside cur/new/tmp.
extension InputScanner {
    /// The Maildir++ folders of a Maildir (`.Travel/`, `.Archive.2024/`: Dovecot, Courier,
    /// maildrop keep every folder flat beside cur/new/tmp), in name order, at most
    /// `maxMaildirFolders`. A dot folder without cur/ or new/ is not a mail folder and is skipped.
    static func maildirPlusPlusFolders(of path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("."), name != ".", name != ".." else { continue }
            let folder = path.hasSuffix("/") ? path + name : path + "/" + name
            var info = stat()
            guard stat(folder + "/cur", &info) == 0 || stat(folder + "/new", &info) == 0 else { continue }
            names.append(folder)
            if names.count >= maxMaildirFolders { break }
        }
        return names.sorted()
    }
}
