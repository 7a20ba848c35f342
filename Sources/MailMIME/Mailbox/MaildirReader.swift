import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the messages of a Maildir folder: `cur/` then `new/`, each in name order, never `tmp/`
/// (messages being delivered live there). Hidden files and non-regular files are skipped.
package struct MaildirReader: MessageReader {
    private var files: [String]
    private var position = 0
    private let limits: MIMELimits

    /// `path` and the message paths are `PathBytes` carriers: a file name that is not UTF-8
    /// (`1700000000.M1P2.host\xff,S=1`) is listed, opened and reported with its exact bytes.
    package init(path: String, limits: MIMELimits = .default) throws {
        self.limits = limits
        guard Self.isDirectory(path) else {
            throw MailboxError(.notAMaildir, path: path, detail: "not a directory")
        }
        var found: [String] = []
        var sawSubdirectory = false
        for sub in ["cur", "new"] {
            let dir = PathBytes.join(path, sub)
            guard Self.isDirectory(dir) else { continue }
            sawSubdirectory = true
            guard let names = PathBytes.directoryNames(dir) else {
                throw MailboxError(.cannotOpen, path: dir, detail: "cannot list the directory")
            }
            for name in names.sorted() where !name.hasPrefix(".") {
                let file = PathBytes.join(dir, name)
                var st = stat()
                if PathBytes.lstat(file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { found.append(file) }
            }
        }
        guard sawSubdirectory else {
            throw MailboxError(.notAMaildir, path: path, detail: "no cur/ or new/ subdirectory")
        }
        files = found
    }

    /// True when `path` is a directory with a `cur/` or `new/` subdirectory.
    package static func isMaildir(_ path: String) -> Bool {
        isDirectory(PathBytes.join(path, "cur")) || isDirectory(PathBytes.join(path, "new"))
    }

    /// stat(2) follows symbolic links, as FileManager's fileExists did.
    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return PathBytes.stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    package mutating func next() throws -> MailboxMessage? {
        guard position < files.count else { return nil }
        let file = files[position]
        position += 1
        let fd = PathBytes.open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MailboxError.errno(.cannotOpen, path: file, errno) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, Int(st.st_size) > limits.maxMessageBytes {
            return MailboxMessage(index: position, bytes: [], path: file, byteCount: Int(st.st_size), oversize: true)
        }
        var reader = SingleMessageReader(fileDescriptor: fd, limits: limits, name: file)
        guard var message = try reader.next() else { return nil }
        message.index = position
        message.path = file
        return message
    }
}
