#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable window over a file descriptor: bytes `start..<end` of `storage` are read but not yet
/// consumed. Reads happen in large chunks; consumed bytes are dropped by moving the rest down, so
/// memory is bounded by the largest span a caller keeps plus one chunk.
struct ChunkedInput {
    /// Default read size: large enough that read() costs nothing next to parsing.
    static let defaultChunkSize = 4 << 20
    let chunkSize: Int
    let fd: Int32
    let name: String
    var storage: [UInt8]
    var start = 0
    var end = 0
    private(set) var eof = false

    init(fd: Int32, name: String, prefix: [UInt8], chunkSize: Int = ChunkedInput.defaultChunkSize) {
        self.chunkSize = max(1, chunkSize)
        self.fd = fd
        self.name = name
        storage = prefix
        end = prefix.count
    }

    var count: Int { end - start }

    /// Reads at least one more chunk (or reaches EOF). Returns the number of bytes added.
    @discardableResult
    mutating func fill() throws -> Int {
        if eof { return 0 }
        if start > 0 && (start >= storage.count / 2 || storage.count - end < chunkSize) {
            // Drop consumed bytes: move start..<end to the front.
            storage.withUnsafeMutableBufferPointer { b in
                // start..<end lies inside the buffer; memmove handles the overlap.
                _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if storage.count - end < chunkSize {
            // Grow geometrically (a 2 MB folded header must not cost quadratic copying).
            var grown = [UInt8](repeating: 0, count: max(storage.count * 2, end + chunkSize))
            if end > 0 {  // an empty array may have no base address
                grown.withUnsafeMutableBufferPointer { g in
                    storage.withUnsafeBufferPointer { old in
                        // 0..<end lies inside both buffers (grown.count > end).
                        _ = memcpy(g.baseAddress!, old.baseAddress!, end)
                    }
                }
            }
            storage = grown
        }
        while true {
            let n = storage.withUnsafeMutableBufferPointer { b -> Int in
                // end + chunkSize <= b.count was ensured above.
                read(fd, b.baseAddress! + end, chunkSize)
            }
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
    mutating func consume(upTo index: Int) {
        start = min(max(start, index), end)
        if start == end { start = 0; end = 0 }
    }
}
