#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A window over an input: bytes `start..<end` of `storage` are available but not yet consumed.
///
/// A regular file (up to `mappingCap`) is mapped read-only with `mmap` and read front to back
/// (`MADV_SEQUENTIAL`): every byte is available at once, nothing is copied in, and the pages the
/// reader has left behind are given back (`MADV_DONTNEED`) so resident memory stays bounded
/// however large the file. Anything else (a pipe, stdin, a larger file) is read in large chunks
/// into a buffer of our own; consumed bytes are dropped by moving the rest down, so memory is
/// bounded by the largest span a caller keeps plus one chunk.
///
/// `storage` is valid until the next `fill()` (which may move the buffer) and while this object
/// lives; callers index it only between `start` and `end`. A mapped file's bytes stay valid as
/// long as its `MappedFile` lives: messages handed out as ranges of it hold it.
final class ChunkedInput {
    /// Default read size: large enough that read() costs nothing next to parsing.
    static let defaultChunkSize = 4 << 20
    /// Regular files up to this size are mapped; larger ones are streamed, so the address space a
    /// scan takes stays bounded too.
    static let mappingCap = 1 << 30
    /// Mapped pages more than this far behind `start` are given back. A message handed out as a
    /// range of the mapping may still be unread that far behind (the scan's window holds 8 MB of
    /// messages not yet scanned); a page given back is read again from the file if it is touched
    /// (the mapping is private and never written), so the distance saves only that re-reading.
    static let releaseDistance = 12 << 20
    /// Page tables are filled this far ahead of `start` in one call (`MADV_POPULATE_READ`):
    /// one fault per page cost more than the separator search (a tenth of an mbox scan).
    static let populateStep = 4 << 20
    /// Linux 5.14's MADV_POPULATE_READ (not in every libc's headers); older kernels say EINVAL
    /// and the pages fault in as usual.
    static let adviseFaultIn: Int32 = 22
    static let pageSize = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))

    let chunkSize: Int
    let fd: Int32
    let name: String
    /// Streamed input: our buffer (malloc'd, grown with realloc: never zeroed).
    private var buffer: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    /// Mapped input: the whole file.
    private(set) var file: MappedFile?
    /// Mapped input: bytes before this offset were given back.
    private var released = 0
    /// Mapped input: page tables are filled up to here.
    private var populated = 0
    var start = 0
    var end = 0
    private(set) var eof = false

    /// Streams from `fd`; `prefix` holds the bytes already read from it.
    init(fd: Int32, name: String, prefix: [UInt8], chunkSize: Int = ChunkedInput.defaultChunkSize) {
        self.chunkSize = max(1, chunkSize)
        self.fd = fd
        self.name = name
        reserve(max(prefix.count, 1))
        if let buffer, !prefix.isEmpty {
            // The buffer holds at least prefix.count bytes.
            prefix.withUnsafeBufferPointer { _ = memcpy(buffer, $0.baseAddress!, $0.count) }
        }
        end = prefix.count
    }

    /// The whole input already in memory (an upload): copied once into our buffer, from byte
    /// `skip` on; nothing is ever read.
    init(bytes: ArraySlice<UInt8>, name: String, skip: Int) {
        self.chunkSize = Self.defaultChunkSize
        self.fd = -1
        self.name = name
        let body = bytes.dropFirst(max(skip, 0))
        reserve(max(body.count, 1))
        if let buffer, !body.isEmpty {
            // The buffer holds at least body.count bytes.
            body.withUnsafeBufferPointer { _ = memcpy(buffer, $0.baseAddress!, $0.count) }
        }
        end = body.count
        eof = true
    }

    /// Maps the regular file open at `fd`, starting at byte `skip`; nil when it is not a regular
    /// file, is larger than `mappingCap`, is empty, or cannot be mapped (then stream it).
    init?(mapping fd: Int32, name: String, skip: Int) {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0,
              info.st_size <= off_t(Self.mappingCap) else { return nil }
        let length = Int(info.st_size)
        guard let mapped = MappedFile(fd: fd, length: length) else { return nil }
        _ = madvise(mapped.address, length, MADV_SEQUENTIAL)
        self.chunkSize = Self.defaultChunkSize
        self.fd = fd
        self.name = name
        file = mapped
        start = min(max(skip, 0), length)
        end = length
        eof = true
        populateAhead()
    }

    /// Fills the page tables of the next `populateStep` bytes when the reader comes near them.
    private func populateAhead() {
        guard let file, populated < file.length, start + Self.populateStep / 2 >= populated else { return }
        let from = max(populated, start / Self.pageSize * Self.pageSize)
        let length = min(Self.populateStep, file.length - from)
        // from is page-aligned and from..<from+length inside the mapping.
        _ = madvise(file.address + from, length, Self.adviseFaultIn)
        populated = from + length
    }

    deinit {
        free(buffer)
    }

    /// Whether the input is a mapped file (tests).
    var isMapped: Bool { file != nil }

    /// The bytes `0..<end` (indexes are absolute; only `start..<end` is meaningful).
    var storage: UnsafeBufferPointer<UInt8> {
        if let file {
            return UnsafeBufferPointer(start: file.address.assumingMemoryBound(to: UInt8.self), count: end)
        }
        return UnsafeBufferPointer(start: buffer, count: end)
    }

    var count: Int { end - start }

    /// Reads at least one more chunk (or reaches EOF). Returns the number of bytes added.
    @discardableResult
    func fill() throws -> Int {
        if eof { return 0 }
        if start > 0 && (start >= capacity / 2 || capacity - end < chunkSize), let buffer {
            // Drop consumed bytes: move start..<end to the front (memmove handles the overlap).
            _ = memmove(buffer, buffer + start, end - start)
            end -= start
            start = 0
        }
        if capacity - end < chunkSize {
            // Grow geometrically (a 2 MB folded header must not cost quadratic copying).
            reserve(max(capacity * 2, end + chunkSize))
        }
        while true {
            // end + chunkSize <= capacity was ensured above, and the buffer exists (reserve).
            let n = read(fd, buffer! + end, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw MailboxError.errno(.readFailed, path: name, errno)
            }
            if n == 0 { eof = true }
            end += n
            return n
        }
    }

    /// Drops everything before `index`.
    func consume(upTo index: Int) {
        start = min(max(start, index), end)
        if let file {
            populateAhead()
            // Give back whole pages far enough behind: they are never read again.
            let upTo = (start - Self.releaseDistance) / Self.pageSize * Self.pageSize
            if upTo - released >= Self.releaseDistance / 2 {
                // released..<upTo is page-aligned and inside the mapping (upTo < start <= length).
                _ = madvise(file.address + released, upTo - released, MADV_DONTNEED)
                released = upTo
            }
            return
        }
        if start == end { start = 0; end = 0 }
    }

    private func reserve(_ wanted: Int) {
        guard wanted > capacity else { return }
        // realloc keeps 0..<end; a failure here is out of memory, which Swift's own arrays treat
        // the same way.
        guard let grown = realloc(buffer, wanted) else { fatalError("out of memory reading \(name)") }
        buffer = grown.assumingMemoryBound(to: UInt8.self)
        capacity = wanted
    }
}

/// A whole regular file mapped read-only (private, never written), unmapped when the last holder
/// lets go: the reader, and every message handed out as a range of it, which a worker copies
/// out on its own thread (issue 17: the calling thread only finds where messages start).
///
/// Sendable: nothing of it changes after `init`, and the bytes are only read. The reader gives
/// pages back with MADV_DONTNEED as it goes; a private file mapping reads such a page again
/// from the file when it is touched, so a range handed out stays readable.
package final class MappedFile: @unchecked Sendable {
    let address: UnsafeMutableRawPointer
    let length: Int

    init?(fd: Int32, length: Int) {
        guard length > 0, let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else { return nil }
        self.address = address
        self.length = length
    }

    deinit { munmap(address, length) }

    /// The bytes `range` (inside the file), valid while this object lives.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        precondition(range.lowerBound >= 0 && range.upperBound <= length, "range outside the mapping")
        return UnsafeBufferPointer(start: address.assumingMemoryBound(to: UInt8.self) + range.lowerBound, count: range.count)
    }
}
