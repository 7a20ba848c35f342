import CMagic
import Foundation
import WalletPass
#if canImport(Glibc)
import Glibc
#endif

/// libmagic on the first decoded bytes of a part: the "first cut" of content detection.
///
/// passconduit's own rules (`Config/passconduit.magic`) are loaded FIRST, then the system
/// database, both by explicit path: `magic_load(nil)` would honour `$MAGIC`, and a delivery filter
/// must not change behaviour with its environment. With our rules first, a whole pass in the
/// window is `application/vnd.apple.pkpass`; a pass cut off by the window is still `application/zip`;
/// a Word document or a PNG gets its own type and is never decoded further.
///
/// The bytes go to libmagic through a private unlinked temporary file (one per sniffer), not
/// `magic_buffer`: libmagic reads end-relative offsets (the zip's end-of-central-directory
/// record, which our rules use) only from a regular file; on a plain buffer those rules never
/// fire. A libmagic cookie is not thread-safe, so calls are serialised with a lock.
package final class MagicSniffer: @unchecked Sendable {
    /// The database list handed to `magic_load`, for messages and tests.
    package let databases: [String]
    private let cookie: OpaquePointer
    private let lock = NSLock()

    /// The system magic database (`.mgc` is appended by libmagic).
    package static let systemDatabase = "/usr/share/misc/magic"

    /// - Parameter rulesFile: passconduit's magic rules; nil = `shippedRulesFile()`. When no rules
    ///   file is found, only the system database is used (zip passes are then `application/zip`,
    ///   and the central directory still decides).
    package init(rulesFile: String? = MagicSniffer.shippedRulesFile()) throws(MagicError) {
        guard let cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR) else {
            throw MagicError(message: "libmagic could not start (magic_open failed)")
        }
        var list: [String] = []
        if let rulesFile {
            // libmagic skips a missing file in a list without a word; we say it.
            guard FilePaths.isReadable(rulesFile) else {
                magic_close(cookie)
                throw MagicError(message: "\(rulesFile): the magic rules file does not exist or cannot be read")
            }
            list.append(rulesFile)
        }
        list.append(Self.systemDatabase)
        if magic_load(cookie, list.joined(separator: ":")) != 0 {
            let reason = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            magic_close(cookie)
            throw MagicError(message: "libmagic could not load \(list.joined(separator: ":")): \(reason)")
        }
        self.cookie = cookie
        self.databases = list
        // getenv, not ProcessInfo.environment (a dictionary of the whole environment, built on first use).
        scratchFolder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    }

    /// One private unlinked file reused for every call (truncated each time), made on first use.
    private var scratch: Int32 = -1
    /// Where the scratch file is made: $TMPDIR if absolute, else /tmp (read once, at init).
    private let scratchFolder: String

    deinit {
        magic_close(cookie)
        if scratch >= 0 { close(scratch) }
    }

    /// The MIME type libmagic gives `bytes`, e.g. "application/zip"; nil if libmagic fails.
    package func mimeType(of bytes: [UInt8]) -> String? {
        lock.lock()
        defer { lock.unlock() }
        if scratch < 0 { scratch = Self.anonymousFile(in: scratchFolder) }
        if scratch >= 0 {
            if ftruncate(scratch, 0) == 0, lseek(scratch, 0, SEEK_SET) == 0, writeAll(scratch, bytes),
               lseek(scratch, 0, SEEK_SET) == 0 {
                return magic_descriptor(cookie, scratch).map { String(cString: $0) }
            }
            // The file went bad (disk full): drop it; the next call makes a new one.
            close(scratch)
            scratch = -1
        }
        // No temporary file (read-only /tmp): the buffer call still gives the system types and our
        // first-member rules. The pointer is used only during the call; libmagic keeps nothing.
        let result = bytes.withUnsafeBytes { magic_buffer(cookie, $0.baseAddress, $0.count) }
        return result.map { String(cString: $0) }
    }

    /// A file with no name: created 0600 by mkstemp in `dir`, unlinked at once (nothing is left
    /// behind even if the process dies) and marked close-on-exec. -1 if that is impossible.
    private static func anonymousFile(in dir: String) -> Int32 {
        var template = Array((dir + "/passconduit-sniff.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return -1 }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // offset < count, so the pointer and the length stay inside the array.
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            return false
        }
        return true
    }

    /// `Config/passconduit.magic` where an installation or the source tree keeps it:
    /// `$PASSCONDUIT_MAGIC_FILE` (tests, packagers), `<exe>/../share/passconduit/passconduit.magic`,
    /// `<exe dir>/passconduit.magic`, then `Config/` of the source tree this was built from.
    /// Plain system calls (FilePaths), not FileManager/URL: this runs in every filter scan.
    package static func shippedRulesFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        var candidates: [String] = []
        if let explicit = environment["PASSCONDUIT_MAGIC_FILE"], !explicit.isEmpty { candidates.append(explicit) }
        // The running binary's real path, not argv[0]: an MTA runs `passconduit` by name from PATH
        // with its queue folder as working directory, where argv[0] resolves to nothing.
        if let exe = FilePaths.executable() ?? CommandLine.arguments.first.flatMap(resolved) {
            let exeDir = FilePaths.parent(of: exe)
            candidates.append(FilePaths.join(FilePaths.parent(of: exeDir), "share/passconduit/passconduit.magic"))
            candidates.append(FilePaths.join(exeDir, "passconduit.magic"))
        }
        // Sources/Conduit/Detection/MagicSniffer.swift -> <root>/Config/passconduit.magic
        var sourceRoot = #filePath
        for _ in 0..<4 { sourceRoot = FilePaths.parent(of: sourceRoot) }
        candidates.append(FilePaths.join(sourceRoot, "Config/passconduit.magic"))
        return candidates.first(where: FilePaths.isReadable)
    }

    /// `path` with every symbolic link resolved (nil if it does not exist).
    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
