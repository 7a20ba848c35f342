#if canImport(Glibc)
import Glibc
#endif

/// The one write-everything and read-to-the-end loop over a file descriptor (EINTR retried):
/// the filter's spool, the scan worker's frames, the CLI's output files and the input sniffing
/// use it instead of a loop each.
package enum FileDescriptorIO {
    /// How bytes go out: write(2), pwrite(2) at an offset, or send(2) without SIGPIPE.
    package enum Mode: Sendable {
        case write
        case at(Int)
        case sendNoSignal
    }

    /// Writes every byte of `bytes`; nil on success, else the errno (`zeroWrite` when the system
    /// wrote nothing without an error: ENOSPC for a file, EIO elsewhere).
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ mode: Mode = .write,
                                 zeroWrite: Int32 = EIO) -> Int32? {
        var done = 0
        while done < bytes.count {
            // bytes.baseAddress is non-nil: count > done >= 0.
            let start = bytes.baseAddress! + done, left = bytes.count - done
            let n: Int
            switch mode {
            case .write: n = write(fd, start, left)
            case .at(let offset): n = pwrite(fd, start, left, off_t(offset + done))
            case .sendNoSignal: n = send(fd, start, left, Int32(MSG_NOSIGNAL))
            }
            if n > 0 { done += n; continue }
            if n < 0 && errno == EINTR { continue }
            return n < 0 ? errno : zeroWrite
        }
        return nil
    }

    /// `writeAll` for an array.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ mode: Mode = .write, zeroWrite: Int32 = EIO) -> Int32? {
        bytes.withUnsafeBytes { writeAll(fd, $0, mode, zeroWrite: zeroWrite) }
    }

    /// Reads until `buffer` is full or the input ends: the count read, or the errno of a failure.
    package static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        var filled = 0
        while filled < buffer.count {
            // filled < count, so the pointer stays inside the buffer and the length is positive.
            let n = read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            if n > 0 { filled += n; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            return .failure(Errno(code: errno))
        }
        return .success(filled)
    }

    /// An errno as an error value, with the system's sentence for it.
    package struct Errno: Error, Sendable, Equatable, CustomStringConvertible {
        package var code: Int32
        package init(code: Int32) { self.code = code }
        package var description: String { Self.text(code) }
        /// strerror's sentence for `code` ("No space left on device").
        package static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
    }
}

extension FileDescriptorIO.Errno: ProblemReporting {
    package var problem: Problem { Problem(.systemError, message: description, detail: "errno \(code)") }
}
