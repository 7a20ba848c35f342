import CMagic
import Foundation
import WalletPass
#if canImport(Glibc)
import Glibc
import CMagicLazy   // links the trampolines that load the library on first use (script/gen-lazy-shims)
#endif
import Support

/// libmagic on the first decoded bytes of a part: the "first cut" of content detection.
///
/// passconduit's own rules (`Config/passconduit.magic`) are loaded FIRST, then the system
/// database, both by explicit path: `magic_load(nil)` would honour `$MAGIC`, and a delivery filter
/// must not change behaviour with its environment. With our rules first, a pass whose first zip
/// member is `pass.json` is `application/vnd.apple.pkpass`, one whose first member is a `.pkpass`
/// is a bundle, any other zip is still `application/zip`; a Word document or a PNG gets its own
/// type and is never decoded further.
///
/// The bytes go to libmagic from memory (`magic_buffer`): no temporary file, no copy. libmagic
/// reads end-relative offsets (our rules' end-of-central-directory checks) only from a regular
/// file, so on a buffer those rules do not fire; they never decided anything here (the window is
/// a prefix, and the zip central directory decides afterwards), and they stay for `file(1)` users.
/// A libmagic cookie is not thread-safe, so calls are serialised with a lock.
///
/// `lazily: true` (the delivery filter) opens libmagic and loads the databases at the first
/// question instead of at init: a message whose only candidates are labelled passes never asks
/// (PassScanner skips libmagic for them), and then neither libmagic nor its database is loaded.
/// A lazy sniffer whose load fails answers nil (the central directory decides), as a scanner
/// without a sniffer does.
package final class MagicSniffer: @unchecked Sendable {
    /// The database list handed to `magic_load`, for messages and tests.
    package let databases: [String]
    private let lock = NSLock()
    /// Guarded by `lock`: the cookie once loaded; `loadFailed` after a lazy load that failed.
    private var cookie: OpaquePointer?
    private var loadFailed = false
    private var calls = 0
    /// How many times libmagic was asked (tests: one sniff per candidate part).
    package var sniffCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return calls
    }

    /// Whether libmagic has been opened and its databases loaded (tests: a lazy sniffer that was
    /// never asked has not).
    package var isLoaded: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cookie != nil
    }

    /// The system magic database (`.mgc` is appended by libmagic).
    package static let systemDatabase = "/usr/share/misc/magic"

    /// - Parameter rulesFile: passconduit's magic rules; nil = `shippedRulesFile()`. When no rules
    ///   file is found, only the system database is used (zip passes are then `application/zip`,
    ///   and the central directory still decides).
    /// - Parameter lazily: load libmagic at the first `mimeType` call, not now. A rules file that
    ///   cannot be read is an error either way; a failing `magic_load` is one only when eager.
    package init(rulesFile: String? = MagicSniffer.shippedRulesFile(), lazily: Bool = false) throws(MagicError) {
        var list: [String] = []
        if let rulesFile {
            // libmagic skips a missing file in a list without a word; we say it.
            guard FilePaths.isReadable(rulesFile) else {
                throw MagicError(message: "\(rulesFile): the magic rules file does not exist or cannot be read")
            }
            list.append(rulesFile)
        }
        list.append(Self.systemDatabase)
        self.databases = list
        if !lazily {
            cookie = try Self.load(list)
        }
    }

    deinit {
        if let cookie { magic_close(cookie) }
    }

    /// libmagic, loaded on first use (CMagicLazy).
    package static let library = NativeLibrary(purpose: "recognising attachments by content", load: cmagiclazy_load)

    private static func load(_ list: [String]) throws(MagicError) -> OpaquePointer {
        do { try library.load() } catch { throw MagicError(message: error.message) }
        guard let cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR) else {
            throw MagicError(message: "libmagic could not start (magic_open failed)")
        }
        if magic_load(cookie, list.joined(separator: ":")) != 0 {
            let reason = magic_error(cookie).map { String(cString: $0) } ?? "unknown error"
            magic_close(cookie)
            throw MagicError(message: "libmagic could not load \(list.joined(separator: ":")): \(reason)")
        }
        return cookie
    }

    /// The MIME type libmagic gives `bytes`, e.g. "application/zip"; nil if libmagic fails.
    package func mimeType(of bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBytes { mimeType(of: $0) }
    }

    package func mimeType(of bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { mimeType(of: $0) }
    }

    /// The pointer is used only during the call; libmagic keeps nothing of the buffer.
    package func mimeType(of bytes: UnsafeRawBufferPointer) -> String? {
        lock.lock()
        defer { lock.unlock() }
        calls += 1
        if cookie == nil && !loadFailed {
            do { cookie = try Self.load(databases) } catch { loadFailed = true }
        }
        guard let cookie else { return nil }
        // magic_buffer wants a non-null pointer even for no bytes.
        var none: UInt8 = 0
        let result = bytes.baseAddress.map { magic_buffer(cookie, $0, bytes.count) } ?? magic_buffer(cookie, &none, 0)
        return result.map { String(cString: $0) }
    }

    /// `Config/passconduit.magic` where an installation or the source tree keeps it
    /// (`FilePaths.shipped`, as the trust anchors are found): `$PASSCONDUIT_MAGIC_FILE`,
    /// `<exe>/../share/passconduit/`, `<exe dir>/`, then `Config/` of the source tree the
    /// executable was built in. Plain system calls (FilePaths): this runs in every filter scan.
    package static func shippedRulesFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        // The running binary's real path, not argv[0]: an MTA runs `passconduit` by name from PATH
        // with its queue folder as working directory, where argv[0] resolves to nothing.
        FilePaths.shipped("passconduit.magic", variable: "PASSCONDUIT_MAGIC_FILE", environment: environment,
                          executable: FilePaths.executable() ?? CommandLine.arguments.first.flatMap(resolved),
                          isWanted: FilePaths.isReadable)
    }

    /// `path` with every symbolic link resolved (nil if it does not exist).
    private static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }
}
