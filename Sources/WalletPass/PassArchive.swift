import CZip
import Foundation
import Support
import CZipLazy   // links the trampolines that load the library on first use (script/gen-lazy-shims)

/// A `.pkpass` (or `.pkpasses`) zip opened from memory and checked the way a careful unpacker
/// must: everything that can be refused from the central directory is refused before libzip
/// inflates a byte, and inflating stops at the declared size even if the data says otherwise.
/// Nothing touches the disk.
struct PassArchive {
    /// Which folder layout is allowed.
    enum Layout {
        /// Files at the root or in `<language>.lproj/`; `__MACOSX/` resource forks are let through
        /// for the manifest check to judge (Wallet: unlisted files make a pass invalid).
        case pass
        /// `.pkpass` members at the root of a `.pkpasses` bundle.
        case bundle
    }

    /// Regular files in archive order with their inflated bytes.
    private(set) var files: [(name: String, bytes: [UInt8])] = []
    private var index: [String: Int] = [:]

    subscript(name: String) -> [UInt8]? { index[name].map { files[$0].bytes } }
    var names: [String] { files.map(\.name) }

    /// libzip, loaded on first use (CZipLazy).
    static let library = NativeLibrary(purpose: "opening passes", load: cziplazy_load)

    static func open(_ bytes: [UInt8], limits: PassLimits, layout: Layout = .pass) -> Result<PassArchive, PassError> {
        guard bytes.count <= limits.maxArchiveBytes else {
            return .failure(.archiveTooLarge(bytes: bytes.count, limit: limits.maxArchiveBytes))
        }
        do { try library.load() } catch { return .failure(.libraryMissing(error)) }
        let directory: ZipDirectory
        switch ZipDirectory.read(bytes[...], maxEntries: limits.maxEntries) {
        case .success(let d): directory = d
        case .failure(.tooManyEntries(let n)): return .failure(.tooManyEntries(n, limit: limits.maxEntries))
        case .failure(.notAZip(let why)): return .failure(.notAZip(why))
        }
        if layout == .pass, let folder = folderHoldingPass(directory) {
            return .failure(.missingPassJSON("pass.json is not at the root of the archive but in the folder \"\(folder)/\": "
                                             + "the pass was zipped together with its folder, which Wallet does not open"))
        }
        var wanted: [Int] = []
        if let refusal = screen(directory, limits: limits, layout: layout, wanted: &wanted) {
            return .failure(refusal)
        }
        return bytes.withUnsafeBytes { raw in inflate(raw, directory: directory, wanted: wanted) }
    }

    /// The folder of a pass zipped with its folder (`MyPass/pass.json`, no `pass.json` at the
    /// root): that pass is missing its pass.json where Wallet looks, not packed unsafely. Only a
    /// folder whose name is itself safe is named; anything odd is left to the full screen.
    private static func folderHoldingPass(_ directory: ZipDirectory) -> String? {
        guard !directory.entries.contains(where: { $0.name == "pass.json" }) else { return nil }
        for entry in directory.entries where entry.name.hasSuffix("/pass.json") {
            let folder = String(entry.name.dropLast("/pass.json".count))
            guard !folder.isEmpty, folder != "__MACOSX", !folder.hasPrefix("__MACOSX/"),
                  unsafeNameReason(entry.rawName) == nil else { continue }
            return folder
        }
        return nil
    }

    // MARK: - Refusals before inflating

    /// Checks every central-directory entry; fills `wanted` with the indexes of regular files to inflate.
    private static func screen(_ directory: ZipDirectory, limits: PassLimits, layout: Layout, wanted: inout [Int]) -> PassError? {
        var exact: Set<String> = []
        var folded: [String: String] = [:]
        var total: UInt64 = 0
        for (i, entry) in directory.entries.enumerated() {
            let name = entry.name
            if let why = unsafeNameReason(entry.rawName) { return .unsafeName(name, why) }
            let isDirectory = name.hasSuffix("/")
            if let why = layoutReason(name, isDirectory: isDirectory, layout: layout) { return .unsafeName(name, why) }
            // Unix file type lives in the high 16 bits of the external attributes when made on Unix (3).
            if entry.versionMadeBy >> 8 == 3 {
                let type = (entry.externalAttributes >> 16) & 0o170000
                if type == 0o120000 { return .symbolicLink(name) }
                if type != 0, type != 0o100000, type != 0o040000 {
                    return .unsafeName(name, "is a special file (type \(String(type, radix: 8)))")
                }
            }
            // Bit 0: encrypted; bit 6: strong encryption.
            if entry.flags & 0x41 != 0 { return .encryptedEntry(name) }
            if !exact.insert(name).inserted { return .duplicateName(name, name) }
            let key = name.lowercased()
            if let other = folded[key] { return .duplicateName(name, other) }
            folded[key] = name
            if isDirectory { continue }
            // Nothing else of a bundle is inflated, so only its members' sizes matter.
            if layout == .bundle, !isBundleMember(name) { continue }
            if entry.method != 0, entry.method != 8 { return .unsupportedCompression(name, method: Int32(entry.method)) }
            if entry.uncompressedSize > UInt64(limits.maxEntryBytes) {
                return .entryTooLarge(name, declared: entry.uncompressedSize, limit: limits.maxEntryBytes)
            }
            total += entry.uncompressedSize  // each term <= maxEntryBytes and count <= maxEntries: no overflow
            if total > UInt64(limits.maxTotalBytes) { return .totalTooLarge(total, limit: limits.maxTotalBytes) }
            if entry.method == 8, entry.uncompressedSize > 65_536,
               entry.uncompressedSize / max(entry.compressedSize, 1) > UInt64(limits.maxCompressionRatio) {
                return .impossibleRatio(name, declared: entry.uncompressedSize, compressed: entry.compressedSize)
            }
            if entry.method == 0, entry.compressedSize != entry.uncompressedSize {
                return .unsafeName(name, "is stored but declares \(entry.compressedSize) bytes stored and \(entry.uncompressedSize) bytes uncompressed")
            }
            wanted.append(i)
        }
        return nil
    }

    /// Why a stored name is unsafe to use as a path, or nil.
    static func unsafeNameReason(_ raw: ArraySlice<UInt8>) -> String? {
        if raw.isEmpty { return "has an empty name" }
        if raw.contains(0) { return "has a NUL byte in its name" }
        if raw.contains(UInt8(ascii: "\\")) { return "has a backslash in its name" }
        if raw.first == UInt8(ascii: "/") { return "has an absolute name" }
        if raw.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "has a control character in its name" }
        guard let text = String(validating: raw, as: UTF8.self) else { return "has a name that is not UTF-8" }
        if text.count >= 2, text.dropFirst().first == ":" { return "has a drive-letter name" }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        for (n, part) in parts.enumerated() {
            if part == ".." || part == "." { return "climbs out of the pass with \(part)" }
            if part.isEmpty, n != parts.count - 1 { return "has an empty path component" }
        }
        return nil
    }

    /// Files may sit only at the root or in `*.lproj/` (Wallet reads nothing else); `__MACOSX/`
    /// is let through so the manifest check reports it as unlisted, as Wallet does.
    private static func layoutReason(_ name: String, isDirectory: Bool, layout: Layout) -> String? {
        var parts = name.split(separator: "/", omittingEmptySubsequences: true)
        if parts.first == "__MACOSX" { return nil }
        if layout == .bundle {
            // A bundle, or any zip of passes people send (a folder of tickets, made on a Mac with
            // its __MACOSX/ forks): folders are fine, only .pkpass members are read.
            return parts.count > maxBundleDepth ? "is nested more than \(maxBundleDepth) folders deep" : nil
        }
        if isDirectory {
            if parts.count == 1, parts[0].hasSuffix(".lproj") { return nil }
            return "is a folder a pass cannot have"
        }
        parts.removeLast()  // the file's own name; `name` is not empty, so neither is `parts`
        switch (layout, parts.count) {
        case (_, 0): return nil
        case (.pass, 1) where parts[0].hasSuffix(".lproj") && parts[0].count > 6: return nil
        default: return "sits in a folder (\(parts.joined(separator: "/"))) where a pass keeps no files"
        }
    }

    /// How many folders deep a bundle member may sit (a zip of a folder of tickets has 1).
    static let maxBundleDepth = 8

    /// A `.pkpass` file at any depth of a bundle, except Mac resource forks (`__MACOSX/…`,
    /// `._name.pkpass`), which carry no pass.
    static func isBundleMember(_ name: String) -> Bool {
        guard !name.hasSuffix("/"), name.lowercased().hasSuffix(".pkpass") else { return false }
        let base = name.split(separator: "/").last ?? ""
        return !name.hasPrefix("__MACOSX/") && !base.hasPrefix("._") && base.count > ".pkpass".count
    }

    // MARK: - Inflating with libzip

    private static func inflate(_ raw: UnsafeRawBufferPointer, directory: ZipDirectory, wanted: [Int]) -> Result<PassArchive, PassError> {
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        // libzip reads the caller's buffer in place (freep 0); it lives until zip_discard below,
        // which runs before this closure over `raw` returns.
        var archive = openLibzip(raw, flags: ZIP_CHECKCONS | ZIP_RDONLY, &error)
        if archive == nil, zip_error_code_zip(&error) == ZIP_ER_INCONS {
            // libzip's consistency check also refuses harmless quirks of some zip writers (a size in
            // a local header beside a data descriptor: real passes Wallet accepts). Check what
            // matters ourselves and open without it; sizes and CRCs are still enforced on inflating.
            // `raw` holds the caller's [UInt8] for the duration of this call: binding it to UInt8 is exact.
            let bytes = UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
            if let why = ZipDirectory.localHeaderDisagreement(ArraySlice(bytes), directory) {
                return .failure(.inconsistentArchive(why))
            }
            zip_error_fini(&error)
            zip_error_init(&error)
            archive = openLibzip(raw, flags: ZIP_RDONLY, &error)
        }
        guard let archive else { return .failure(.notAZip(message(&error))) }
        defer { zip_discard(archive) }
        let count = zip_get_num_entries(archive, 0)
        guard count == Int64(directory.entries.count) else {
            return .failure(.inconsistentArchive("libzip sees \(count) entries, the central directory declares \(directory.entries.count)"))
        }
        for (i, entry) in directory.entries.enumerated() {
            guard let cName = zip_get_name(archive, zip_uint64_t(i), zip_flags_t(ZIP_FL_ENC_RAW)) else {
                return .failure(.inconsistentArchive("entry \(i) has no name in libzip"))
            }
            // libzip's name is NUL-terminated and lives until zip_discard, after this loop.
            let libzipName = UnsafeRawBufferPointer(start: cName, count: strlen(cName))
            guard libzipName.elementsEqual(entry.rawName) else {
                return .failure(.inconsistentArchive("entry \(i) is named differently by libzip"))
            }
        }
        var result = PassArchive()
        result.files.reserveCapacity(wanted.count)
        for i in wanted {
            let entry = directory.entries[i]
            switch read(archive, index: i, entry: entry) {
            case .success(let data):
                result.index[entry.name] = result.files.count
                result.files.append((entry.name, data))
            case .failure(let e):
                return .failure(e)
            }
        }
        return .success(result)
    }

    /// Inflates one entry into exactly its declared size; more data, less data, or a CRC error is refused.
    private static func read(_ archive: OpaquePointer, index: Int, entry: ZipDirectory.Entry) -> Result<[UInt8], PassError> {
        guard let file = zip_fopen_index(archive, zip_uint64_t(index), 0) else {
            return .failure(.entryDataLies(entry.name, String(cString: zip_strerror(archive))))
        }
        defer { zip_fclose(file) }
        // Declared size was checked against maxEntryBytes, so this allocation is bounded.
        let size = Int(entry.uncompressedSize)
        var failure: String?
        let data = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            initialized = 0
            while initialized < size {
                // zip_fread writes at most the remaining capacity: never past the buffer. The loop runs
                // only while initialized < size, so the capacity is non-zero and baseAddress exists.
                let n = zip_fread(file, buffer.baseAddress! + initialized, zip_uint64_t(size - initialized))
                if n < 0 { failure = String(cString: zip_file_strerror(file)); return }
                if n == 0 { failure = "holds \(initialized) bytes, declares \(size)"; return }
                initialized += Int(n)
            }
        }
        if let failure { return .failure(.entryDataLies(entry.name, failure)) }
        // One more byte must not exist; reading to the end also makes libzip check the CRC.
        var extra: UInt8 = 0
        let n = zip_fread(file, &extra, 1)
        if n < 0 { return .failure(.entryDataLies(entry.name, String(cString: zip_file_strerror(file)))) }
        if n > 0 { return .failure(.entryDataLies(entry.name, "inflates past its declared \(size) bytes")) }
        return .success(data)
    }

    /// libzip over the caller's buffer, read in place (freep 0); the buffer outlives the archive
    /// because the archive is discarded before the caller's closure over the buffer returns.
    private static func openLibzip(_ raw: UnsafeRawBufferPointer, flags: Int32, _ error: inout zip_error_t) -> OpaquePointer? {
        guard let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error) else { return nil }
        guard let archive = zip_open_from_source(source, flags, &error) else {
            zip_source_free(source)
            return nil
        }
        return archive
    }

    private static func message(_ error: inout zip_error_t) -> String {
        String(cString: zip_error_strerror(&error))
    }
}
