import Foundation
import MailMIME
#if canImport(Glibc)
import Glibc
#endif
import Support

/// Writes bytes to a file named with -o (replacing it atomically) or to stdout, refusing to
/// pour binary data onto a terminal.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String?, what: String, allowTerminal: Bool = false) throws {
        if let path, path != "-" {
            try writeFile(bytes, to: path, what: what)
            return
        }
        guard allowTerminal || isatty(1) != 1 else {
            throw CLIError("not writing the \(what) to a terminal; use -o FILE or redirect the output", status: .usage)
        }
        if let code = writeAll(bytes, to: 1) {
            throw CLIError("cannot write the \(what) to standard output: \(String(cString: strerror(code)))", status: .ioError)
        }
    }

    /// `path` is a `PathBytes` carrier: the file gets the exact bytes the user typed.
    /// A temporary file beside `path`, then rename(2): a reader never sees half a pass, and an
    /// existing file is replaced only when the new one is complete. Errors are said in the
    /// OS's words ("no such file or directory"), not Foundation's ("error 512").
    static func writeFile(_ bytes: [UInt8], to path: String, what: String) throws {
        func failure(_ code: Int32) -> CLIError {
            let reason = code == EISDIR ? "it is a folder" : String(cString: strerror(code)).lowercased()
            return CLIError("\(path): cannot write the \(what): \(reason)", status: .cannotCreate)
        }
        var info = stat()
        if PathBytes.stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { throw failure(EISDIR) }
        // The folder part by hand: NSString would repair bytes that are not UTF-8.
        let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "./"
        let temporary = directory + ".passconduit-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = PathBytes.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(errno) }
        if let code = writeAll(bytes, to: fd) {
            close(fd)
            _ = PathBytes.withCString(temporary, unlink)
            throw failure(code)
        }
        guard close(fd) == 0 else {
            let code = errno
            _ = PathBytes.withCString(temporary, unlink)
            throw failure(code)
        }
        guard PathBytes.withCString(temporary, { from in PathBytes.withCString(path) { rename(from, $0) } }) == 0 else {
            let code = errno
            _ = PathBytes.withCString(temporary, unlink)
            throw failure(code)
        }
    }

    /// Writes every byte, retrying EINTR; the errno of a failure, nil on success.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
        FileDescriptorIO.writeAll(fd, bytes)
    }
}
