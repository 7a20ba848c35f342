import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the messages of a Maildir folder: `cur/` then `new/`, each in name order, never `tmp/`
/// (messages being delivered live there). Hidden files and non-regular files are skipped.
package struct MaildirReader: MessageReader {
    /// `cur/` and `new/` as joined paths, and each message as (folder, name): a Maildir of
    /// 100 000 messages holds its names once, not a second, joined copy of each (10 MB of the
    /// scan's peak memory, issue 17). `path(at:)` joins one when it is read.
    private var folders: [String] = []
    private var entries: [(folder: Int, name: String)] = []
    private var position = 0
    private let limits: MIMELimits

    /// `path` and the message paths are `PathBytes` carriers: a file name that is not UTF-8
    /// (`1700000000.M1P2.host\xff,S=1`) is listed, opened and reported with its exact bytes.
    /// readdir's type says which entries are regular files; only where it does not know
    /// (`DT_UNKNOWN`) is the entry looked at with lstat (one system call per message saved).
    package init(path: String, limits: MIMELimits = .default) throws {
        self.limits = limits
        guard Self.isDirectory(path) else {
            throw MailboxError(.notAMaildir, path: path, detail: "not a directory")
        }
        var sawSubdirectory = false
        for sub in ["cur", "new"] {
            let dir = PathBytes.join(path, sub)
            guard Self.isDirectory(dir) else { continue }
            sawSubdirectory = true
            guard var listed = PathBytes.directoryEntries(dir) else {
                throw MailboxError(.cannotOpen, path: dir, detail: "cannot list the directory")
            }
            listed.sort { $0.name < $1.name }
            let folder = folders.count
            folders.append(dir)
            entries.reserveCapacity(entries.count + listed.count)
            for entry in listed where !entry.name.hasPrefix(".") {
                switch Int32(entry.type) {
                case Int32(DT_REG): break
                case Int32(DT_UNKNOWN):
                    var st = stat()
                    guard PathBytes.lstat(PathBytes.join(dir, entry.name), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                default: continue
                }
                entries.append((folder, entry.name))
            }
        }
        guard sawSubdirectory else {
            throw MailboxError(.notAMaildir, path: path, detail: "no cur/ or new/ subdirectory")
        }
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

    /// How many message files there are.
    package var count: Int { entries.count }

    /// The path of message file `index` (0-based, reading order), for callers that read them
    /// on several threads.
    package func path(at index: Int) -> String {
        PathBytes.join(folders[entries[index].folder], entries[index].name)
    }

    /// The message files, in reading order.
    package var paths: [String] { (0..<entries.count).map(path(at:)) }

    package mutating func next() throws -> MailboxMessage? {
        guard position < entries.count else { return nil }
        let file = path(at: position)
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
        // One byte more than the size: filling it means the file grew since fstat. A read that
        // stops at the size is a regular file's end: no second read() to be told so (20 000
        // system calls on a Maildir of 20 000 messages, issue 17).
        var bytes = try [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, count in
            count = try readFully(fd, into: buffer, file: file, endsAt: (st.st_mode & S_IFMT) == S_IFREG ? size : nil)
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
    /// `endsAt`: a read that comes back short with this many bytes in is taken as the end (a
    /// regular file of that size: fstat said so), without another read() returning 0.
    static func readFully(_ fd: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, file: String, endsAt: Int? = nil) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var filled = 0
        while filled < buffer.count {
            // filled < buffer.count: the pointer and length stay inside the buffer.
            let n = read(fd, base + filled, buffer.count - filled)
            if n > 0 {
                filled += n
                if filled == endsAt && filled < buffer.count { break }
                continue
            }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw MailboxError.errno(.readFailed, path: file, errno)
        }
        return filled
    }
}
