#if canImport(Glibc)
import Glibc
#endif
import Support

// Reading an input to a limit, and an OS error as the rest of a sentence (strerror).
extension InputScanner {
    struct ReadError: Error { var code: Int32 }

    /// Reads until `count` bytes or end of file; retries EINTR.
    static func readUpTo(_ fd: Int32, count: Int) throws(ReadError) -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        switch buffer.withUnsafeMutableBytes({ FileDescriptorIO.readFully(fd, into: $0) }) {
        case .success(let filled):
            buffer.removeSubrange(filled...)
            return buffer
        case .failure(let error):
            throw ReadError(code: error.code)
        }
    }

    /// An OS reason as the rest of a sentence: "Permission denied" -> "permission denied".
    static func plain(_ detail: String) -> String {
        guard let first = detail.first, first.isUppercase, detail.dropFirst().first?.isLowercase ?? true else { return detail }
        return first.lowercased() + detail.dropFirst()
    }

    static func reason(_ code: Int32, verb: String) -> String {
        switch code {
        case ENOENT: return "no such file or folder"
        case EACCES, EPERM: return "\(verb): permission denied"
        case EISDIR: return "is a folder"
        default: return "\(verb): \(String(cString: strerror(code)))"
        }
    }
}
