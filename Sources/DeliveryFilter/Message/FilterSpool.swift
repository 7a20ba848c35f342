import Conduit
#if canImport(Glibc)
import Glibc
#endif
import Support

/// The incoming message, read to EOF: held in memory up to `memoryLimit` bytes, and beyond that in
/// a private temporary file (O_TMPFILE, or mkstemp + unlink, mode 0600, in `$TMPDIR` or `/tmp`),
/// so a 1 GB message costs a few megabytes of memory. The file has no name and vanishes with the
/// process, whatever way it ends.
package final class FilterSpool {
    /// Read size for stdin and for copying the spool out.
    static let chunkSize = 256 << 10

    private(set) var memory: [UInt8] = []
    private var fileDescriptor: Int32 = -1
    package private(set) var byteCount = 0
    let memoryLimit: Int

    package init(memoryLimit: Int = Limits.default.filterSpoolMemoryBytes) {
        self.memoryLimit = memoryLimit
    }

    /// An empty spool that a caller fills piece by piece (`append`), as the milter does; a file
    /// it spills to goes in `temporaryDirectory` (absolute) or `/tmp`.
    package init(memoryLimit: Int, temporaryDirectory: String?) {
        self.memoryLimit = memoryLimit
        self.temporaryDirectory = temporaryDirectory
    }

    deinit { if fileDescriptor >= 0 { close(fileDescriptor) } }

    /// Whether the message spilled to a temporary file.
    package var isOnDisk: Bool { fileDescriptor >= 0 }

    /// A spool already holding `bytes` (in-process filtering and tests).
    package convenience init(bytes: [UInt8], memoryLimit: Int = Limits.default.filterSpoolMemoryBytes) throws {
        self.init(memoryLimit: memoryLimit)
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Reads `fd` to EOF. On a spool failure (disk full, file size limit) it keeps reading and
    /// discarding to EOF — a host must never see its write end refused — and then throws.
    ///
    /// Up to `memoryLimit` bytes are read straight into the in-memory message: no staging
    /// buffer, so a 100 KB message costs one copy fewer and ~25 page faults fewer at every start
    /// of the filter. Beyond the limit (the spill to the file) and after a failure, reads go
    /// through a `chunkSize` buffer, allocated then. Not zeroed: read(2) fills what is used.
    package func readToEnd(from fd: Int32, temporaryDirectory: String?) throws {
        self.temporaryDirectory = temporaryDirectory
        var chunk: UnsafeMutableRawBufferPointer? = nil
        defer { chunk?.deallocate() }
        var failure: FilterError? = nil
        while true {
            let n: Int
            if failure == nil && fileDescriptor < 0 && memory.count < memoryLimit {
                n = readIntoMemory(fd)
            } else {
                let buffer = chunk ?? .allocate(byteCount: Self.chunkSize, alignment: 16)
                chunk = buffer
                n = read(fd, buffer.baseAddress, buffer.count)
                if n > 0 && failure == nil {
                    do {
                        try append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                    } catch {
                        failure = .from(error, .spoolFailed)
                        releaseStorage()
                    }
                }
            }
            if n > 0 { continue }
            if n == 0 { break }
            if errno == EINTR || errno == EAGAIN {
                if errno == EAGAIN { waitReadable(fd) }
                continue
            }
            throw FilterError(.inputFailed, detail: "read(stdin): \(Self.describe(errno))")
        }
        if let failure { throw failure }
    }

    /// One read(2) into the spare capacity of `memory` (grown by at least `chunkSize`, and
    /// geometrically, when little is left), never past `memoryLimit`. read(2)'s result; errno
    /// is read(2)'s when it is negative.
    private func readIntoMemory(_ fd: Int32) -> Int {
        let spare = memory.capacity - memory.count
        let adding = spare >= Self.minimumRead ? spare : max(Self.chunkSize, memory.count)
        let room = min(adding, memoryLimit - memory.count)
        var result = 0
        var readErrno: Int32 = 0
        memory.append(addingCapacity: room) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                result = read(fd, buffer.baseAddress, buffer.count)
                if result > 0 { initialized = result } else if result < 0 { readErrno = errno }
            }
        }
        if result > 0 { byteCount += result }
        if result < 0 { errno = readErrno }
        return result
    }

    /// Spare capacity below this is grown before the next read rather than read into.
    static let minimumRead = 16 << 10

    private var temporaryDirectory: String? = nil

    /// Adds `bytes` at the end: in memory while the total fits `memoryLimit`, else in the file.
    package func append(_ bytes: UnsafeRawBufferPointer) throws {
        if fileDescriptor < 0 && memory.count + bytes.count <= memoryLimit {
            memory.append(contentsOf: bytes)
            byteCount += bytes.count
            return
        }
        if fileDescriptor < 0 {
            fileDescriptor = try Self.createPrivateFile(in: temporaryDirectory)
            let held = memory
            memory = []
            try held.withUnsafeBytes { try writeAll(fileDescriptor, $0, at: 0) }
        }
        try writeAll(fileDescriptor, bytes, at: byteCount)
        byteCount += bytes.count
    }

    private func releaseStorage() {
        memory = []
        if fileDescriptor >= 0 { close(fileDescriptor); fileDescriptor = -1 }
    }

    /// The whole message, or nil when it is larger than `maxBytes` (the scan's size cap).
    package func contents(maxBytes: Int) throws -> [UInt8]? {
        guard byteCount <= maxBytes else { return nil }
        if !isOnDisk { return memory }
        return try bytes(in: 0..<byteCount)
    }

    /// The bytes in `range` (clamped to the message).
    package func bytes(in range: Range<Int>) throws -> [UInt8] {
        let r = range.clamped(to: 0..<byteCount)
        if !isOnDisk { return Array(memory[r]) }
        var out = [UInt8](repeating: 0, count: r.count)
        var done = 0
        while done < r.count {
            // baseAddress is non-nil and `done` within the buffer: the loop runs only while r.count > done >= 0.
            let n = out.withUnsafeMutableBytes { pread(fileDescriptor, $0.baseAddress! + done, $0.count - done, off_t(r.lowerBound + done)) }
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            throw FilterError(.spoolFailed, detail: n == 0 ? "spool shorter than written" : "pread: \(Self.describe(errno))")
        }
        return out
    }

    /// Writes the bytes in `range` to `sink`, in chunks.
    package func copy(_ range: Range<Int>, to sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let r = range.clamped(to: 0..<byteCount)
        if !isOnDisk {
            try memory.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[r])) }
            return
        }
        var offset = r.lowerBound
        while offset < r.upperBound {
            let piece = try bytes(in: offset..<min(offset + Self.chunkSize, r.upperBound))
            try piece.withUnsafeBytes { try sink($0) }
            offset += piece.count
        }
    }

    // MARK: - The private file

    /// An anonymous 0600 file in `directory` (absolute) or `/tmp`: O_TMPFILE where the file
    /// system has it, else mkstemp and an immediate unlink.
    static func createPrivateFile(in directory: String?) throws -> Int32 {
        var candidates: [String] = []
        if let d = directory, d.hasPrefix("/") { candidates.append(d) }
        if !candidates.contains("/tmp") { candidates.append("/tmp") }
        var lastError: Int32 = 0
        for dir in candidates {
            let fd = open(dir, O_RDWR | oTmpfile | O_CLOEXEC, 0o600)
            if fd >= 0 { return fd }
            lastError = errno
            // A C string array is never empty (it holds at least the NUL), so baseAddress is non-nil.
            var template = Array("\(dir)/passconduit-spool-XXXXXX".utf8CString)
            let fd2 = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd2 >= 0 {
                template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
                _ = fchmod(fd2, 0o600)
                _ = fcntl(fd2, F_SETFD, FD_CLOEXEC)
                return fd2
            }
            lastError = errno
        }
        throw FilterError(.spoolFailed, detail: "cannot create a temporary file in \(candidates.joined(separator: " or ")): \(describe(lastError))")
    }

    /// O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`), a macro the Glibc module does not import.
    private static var oTmpfile: Int32 {
        #if arch(x86_64) || arch(i386)
        return 0o20200000
        #elseif arch(arm64) || arch(arm)
        return 0o20040000
        #else
        return 0o20200000
        #endif
    }

    private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        if let code = FileDescriptorIO.writeAll(fd, bytes, .at(offset), zeroWrite: ENOSPC) {
            throw FilterError(.spoolFailed, detail: "write to the spool file: \(Self.describe(code))")
        }
    }

    private func waitReadable(_ fd: Int32) {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, 1000)
    }

    package static func describe(_ code: Int32) -> String {
        FileDescriptorIO.Errno.text(code)
    }
}
