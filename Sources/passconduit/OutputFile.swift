import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes bytes to a file named with -o (replacing it atomically) or to stdout, refusing to
/// pour binary data onto a terminal.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String?, what: String) throws {
        if let path, path != "-" {
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw CLIError("\(path): cannot write the \(what): \(error.localizedDescription)", status: .cannotCreate)
            }
            return
        }
        guard isatty(1) != 1 else {
            throw CLIError("not writing the \(what) to a terminal; use -o FILE or redirect the output", status: .usage)
        }
        var offset = 0
        while offset < bytes.count {
            // offset < count, so the pointer and length stay inside the array.
            let n = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            throw CLIError("cannot write the \(what) to standard output: \(String(cString: strerror(errno)))", status: .ioError)
        }
    }
}
