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

    /// The message files, in reading order (for callers that read them on several threads).
    package var paths: [String] { files }

    package mutating func next() throws -> MailboxMessage? {
        guard position < files.count else { return nil }
        let file = files[position]
        position += 1
        return try Self.readMessage(file, index: position, limits: limits)
    }

    /// Reads one message file whole. The file's size is known, so the bytes go straight into an
    /// array of that size: no buffer sized for a mailbox (a 4 MB zeroed chunk per file was the
    /// Maildir path's per-message cost, issue 17) and no second copy. A file that grows while it
    /// is read is read on to its end, still capped by `maxMessageBytes`.
    package static func readMessage(_ file: String, index: Int, limits: MIMELimits) throws -> MailboxMessage {
        let fd = PathBytes.open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MailboxError.errno(.cannotOpen, path: file, errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw MailboxError.errno(.readFailed, path: file, errno) }
        let size = Int(st.st_size)
        if size > limits.maxMessageBytes {
            return MailboxMessage(index: index, bytes: [], path: file, byteCount: size, oversize: true)
        }
        // One byte more than the size: filling it means the file grew since fstat.
        var bytes = try [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
            count = try readFully(fd, into: buffer, file: file)
        }
        if bytes.count > size {
            while true {
                let piece = try [UInt8](unsafeUninitializedCapacity: 64 * 1024) { buffer, count in
                    count = try readFully(fd, into: buffer, file: file)
                }
                if bytes.count + piece.count > limits.maxMessageBytes {
                    // Grew past the limit while being read: count the rest, keep nothing.
                    var total = bytes.count + piece.count
                    while true {
                        let more = try [UInt8](unsafeUninitializedCapacity: 64 * 1024) { buffer, count in
                            count = try readFully(fd, into: buffer, file: file)
                        }
                        if more.isEmpty { break }
                        total += more.count
                    }
                    return MailboxMessage(index: index, bytes: [], path: file, byteCount: total, oversize: true)
                }
                bytes += piece
                if piece.count < 64 * 1024 { break }
            }
        }
        return MailboxMessage(index: index, bytes: bytes, path: file, byteCount: bytes.count, oversize: false)
    }

    /// Reads until `buffer` is full or the file ends; retries EINTR. Returns the bytes read.
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, file: String) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            // filled < buffer.count: the pointer and length stay inside the buffer.
            let n = read(fd, base + filled, buffer.count - filled)
            if n > 0 { filled += n; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw MailboxError.errno(.readFailed, path: file, errno)
        }
        return filled
    }
}
