import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the messages of a Maildir folder: `cur/` then `new/`, each in name order, never `tmp/`
/// (messages being delivered live there). Hidden files and non-regular files are skipped.
package struct MaildirReader: MessageReader {
    private let listing: Listing
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
        listing = try Listing(path: path)
    }

    /// `cur/` and `new/`, held open while the messages are read, and the names of the message
    /// files as bytes in one buffer. A message file is opened relative to its folder (openat):
    /// one name to look up, not the whole path, and no path built to open it. Per message the
    /// names cost one entry here and no String (the listing, the sort and the path joined to
    /// open a file were ~6 000 instructions a message, 12 ms for 20 000 on the calling thread,
    /// issue 17). Never changed after `init`, so the scan's threads read it at once.
    private final class Listing: @unchecked Sendable {
        struct Folder {
            /// The folder as a carrier (`Maildir/cur`), and `path + "/"` as its UTF-8 bytes.
            let path: String
            let prefix: [UInt8]
            let stream: OpaquePointer
            let descriptor: Int32
        }
        struct Entry {
            /// The name is `names[start ..< start + length]`, followed by a NUL.
            var start: Int
            var length: UInt16
            var folder: UInt8
            /// The name is ASCII: its carrier string is its bytes.
            var ascii: Bool
        }
        let folders: [Folder]
        let names: [UInt8]
        let entries: [Entry]

        init(path: String) throws {
            var folders: [Folder] = []
            var names: [UInt8] = []
            var entries: [Entry] = []
            var sawSubdirectory = false
            for sub in ["cur", "new"] {
                let dir = PathBytes.join(path, sub)
                guard MaildirReader.isDirectory(dir) else { continue }
                sawSubdirectory = true
                guard let stream = PathBytes.withCString(dir, { opendir($0) }) else {
                    for folder in folders { closedir(folder.stream) }
                    throw MailboxError(.cannotOpen, path: dir, detail: "cannot list the directory")
                }
                folders.append(Folder(path: dir, prefix: Array((dir + "/").utf8), stream: stream, descriptor: dirfd(stream)))
                Self.list(folders[folders.count - 1], number: folders.count - 1, names: &names, entries: &entries)
            }
            guard sawSubdirectory else {
                throw MailboxError(.notAMaildir, path: path, detail: "no cur/ or new/ subdirectory")
            }
            self.folders = folders
            // The names again, in reading order: the scan then reads them front to back, not
            // in directory (hash) order, where each name was a cache miss in the kernel's
            // copy of the name at openat (strncpy_from_user, ~5 ms for 20 000 files).
            var ordered: [UInt8] = []
            ordered.reserveCapacity(names.count)
            for k in entries.indices {
                let start = entries[k].start
                entries[k].start = ordered.count
                ordered.append(contentsOf: names[start ..< start + Int(entries[k].length) + 1])
            }
            self.names = ordered
            self.entries = entries
        }

        deinit {
            for folder in folders { closedir(folder.stream) }
        }

        /// Adds the regular, not hidden files of a folder, in name order: String's order (`<`,
        /// as before), which for ASCII names is the order of their bytes, so those are sorted
        /// with memcmp; a folder with any other name is sorted as Strings.
        private static func list(_ folder: Folder, number: Int, names: inout [UInt8], entries: inout [Entry]) {
            let first = entries.count
            var allASCII = true
            let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            while let entry = readdir(folder.stream) {
                let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
                let bytes = UnsafeRawBufferPointer(start: name, count: strlen(name))
                let ascii = !bytes.contains { $0 >= 0x80 }
                // Hidden (".", ".." included): a name whose first Character is "." — for a
                // non-ASCII name that is String's answer (".\u{301}x" does not start with ".").
                if bytes.first == UInt8(ascii: ".") && (ascii || PathBytes.string(bytes).hasPrefix(".")) { continue }
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_REG): break
                case Int32(DT_UNKNOWN):
                    var st = stat()
                    guard fstatat(folder.descriptor, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                default: continue
                }
                entries.append(Entry(start: names.count, length: UInt16(bytes.count), folder: UInt8(number), ascii: ascii))
                names.append(contentsOf: bytes)
                names.append(0)
                allASCII = allASCII && ascii
            }
            names.withUnsafeBufferPointer { names in
                let base = names.baseAddress!
                if allASCII {
                    Self.sortASCII(&entries[first...], names: base)
                } else {
                    // Swift's sort is stable: names equal as Strings (canonically equivalent)
                    // keep their directory order, as when the whole listing was sorted.
                    var keyed = entries[first...].map { entry in
                        (name: PathBytes.string(UnsafeBufferPointer(start: base + entry.start, count: Int(entry.length))), entry: entry)
                    }
                    keyed.sort { $0.name < $1.name }
                    entries.replaceSubrange(first..., with: keyed.map(\.entry))
                }
            }
        }

        /// Sorts entries whose names are ASCII in the order of their bytes. Maildir names of a
        /// folder share their first bytes (`17000…`): the 8 bytes after what all of them share
        /// are a number compared first, and memcmp looks at the rest only on a tie (the sort of
        /// 20 000 names was ~1 300 instructions a name with memcmp on whole names).
        private static func sortASCII(_ entries: inout ArraySlice<Entry>, names base: UnsafePointer<UInt8>) {
            guard let firstEntry = entries.first else { return }
            var common = Int(firstEntry.length)
            for entry in entries.dropFirst() {
                var k = 0
                let limit = min(common, Int(entry.length))
                while k < limit && base[firstEntry.start + k] == base[entry.start + k] { k += 1 }
                common = k
            }
            let skip = common + 8
            var keyed = entries.map { entry -> (key: UInt64, entry: Entry) in
                var key: UInt64 = 0
                let length = Int(entry.length)
                for k in common ..< skip { key = key << 8 | UInt64(k < length ? base[entry.start + k] : 0) }
                return (key, entry)
            }
            keyed.sort { a, b in
                if a.key != b.key { return a.key < b.key }
                // Equal keys: names have no NUL, so a name that ends inside its key ends at the
                // same place as the other one (they are equal): only longer names reach here.
                let la = Int(a.entry.length), lb = Int(b.entry.length)
                guard la > skip && lb > skip else { return la < lb }
                let order = memcmp(base + a.entry.start + skip, base + b.entry.start + skip, min(la, lb) - skip)
                return order != 0 ? order < 0 : la < lb
            }
            for (offset, element) in keyed.enumerated() { entries[entries.startIndex + offset] = element.entry }
        }

        /// Calls `body` with the name of `entry` (NUL-terminated just past its end).
        func withName<R>(_ entry: Entry, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            try names.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[entry.start ..< entry.start + Int(entry.length)])) }
        }

        /// The carrier path of `entry`: `PathBytes.join(folder, name)`.
        func path(_ entry: Entry) -> String {
            let folder = folders[Int(entry.folder)]
            return withName(entry) { name in
                guard entry.ascii else { return PathBytes.join(folder.path, PathBytes.string(name)) }
                return String(unsafeUninitializedCapacity: folder.prefix.count + name.count) { buffer in
                    let (_, end) = buffer.initialize(from: folder.prefix)
                    return end + UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(from: name).1
                }
            }
        }

        /// Opens message file `entry` relative to its folder; -1 with errno set on failure.
        func open(_ entry: Entry) -> Int32 {
            let descriptor = folders[Int(entry.folder)].descriptor
            return withName(entry) { name in
                name.baseAddress!.withMemoryRebound(to: CChar.self, capacity: name.count + 1) {
                    openat(descriptor, $0, O_RDONLY | O_CLOEXEC)
                }
            }
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
    package var count: Int { listing.entries.count }

    /// The path of message file `index` (0-based, reading order).
    package func path(at index: Int) -> String {
        listing.path(listing.entries[index])
    }

    /// The message files, in reading order.
    package var paths: [String] { (0..<count).map(path(at:)) }

    package mutating func next() throws -> MailboxMessage? {
        guard position < count else { return nil }
        position += 1
        return try readMessage(at: position - 1)
    }

    /// Reads message file `position` (0-based, reading order; its `index` is `position + 1`).
    /// The scan's threads call it at once for different files (the reader is not changed).
    package func readMessage(at position: Int) throws -> MailboxMessage {
        let entry = listing.entries[position]
        let fd = listing.open(entry)
        guard fd >= 0 else {
            let number = errno
            throw MailboxError.errno(.cannotOpen, path: listing.path(entry), number)
        }
        defer { close(fd) }
        return try Self.readMessage(fd, file: listing.path(entry), index: position + 1, limits: limits)
    }

    /// Reads the message file at `file` (a carrier path) whole.
    package static func readMessage(_ file: String, index: Int, limits: MIMELimits) throws -> MailboxMessage {
        let fd = PathBytes.open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw MailboxError.errno(.cannotOpen, path: file, errno) }
        defer { close(fd) }
        return try readMessage(fd, file: file, index: index, limits: limits)
    }

    /// Reads one message file whole. The file's size is known, so the bytes go straight into an
    /// array of that size: no buffer sized for a mailbox (a 4 MB zeroed chunk per file was the
    /// Maildir path's per-message cost, issue 17) and no second copy. A file that grows while it
    /// is read is read on to its end, still capped by `maxMessageBytes`.
    /// `fd` is open on `file`; the caller closes it.
    static func readMessage(_ fd: Int32, file: String, index: Int, limits: MIMELimits) throws -> MailboxMessage {
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
