import CZip
import WalletPass

/// The bytes of each `.pkpass` member of a `.pkpasses` bundle, so a member can be stored in the
/// library like any pass. `PassOpener.openBundle` verifies the members but hands back verdicts
/// only; the library needs the original member bytes (it exports them byte-identical).
///
/// Reads with libzip under the pass limits: at most `maxBundleMembers` members, each at most
/// `maxArchiveBytes` however large it claims to be (a lying size cannot make it read more),
/// all together at most `maxTotalBytes`. Anything over a limit is left out; the verdicts from
/// `openBundle` already report why.
package enum BundleUnpacker {
    package static func members(_ bytes: [UInt8], limits: PassLimits) -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        bytes.withUnsafeBytes { raw in
            // libzip reads the buffer only inside this closure: the archive is discarded before it returns.
            var error = zip_error_t()
            zip_error_init(&error)
            defer { zip_error_fini(&error) }
            guard let source = zip_source_buffer_create(raw.baseAddress, zip_uint64_t(raw.count), 0, &error) else { return }
            guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
                zip_source_free(source)
                return
            }
            defer { zip_discard(archive) }
            let count = zip_get_num_entries(archive, 0)
            guard count > 0 else { return }
            var total = 0
            for index in 0..<min(count, Int64(limits.maxBundleMembers)) {
                guard let cName = zip_get_name(archive, zip_uint64_t(index), ZIP_FL_ENC_GUESS) else { continue }
                let name = String(cString: cName)
                guard Detection.kindForName(name) == .pass, !name.hasSuffix("/") else { continue }
                guard let data = read(archive, index: zip_uint64_t(index), cap: min(limits.maxArchiveBytes, limits.maxTotalBytes - total)) else { continue }
                total += data.count
                result[name] = data
            }
        }
        return result
    }

    /// One entry, stopping past `cap` bytes (then nil).
    private static func read(_ archive: OpaquePointer, index: zip_uint64_t, cap: Int) -> [UInt8]? {
        guard cap > 0, let file = zip_fopen_index(archive, index, 0) else { return nil }
        defer { zip_fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress!, zip_uint64_t($0.count)) }
            if n < 0 { return nil }
            if n == 0 { break }
            // 0 < n <= chunk.count, so the prefix is inside the chunk.
            out.append(contentsOf: chunk.prefix(Int(n)))
            if out.count > cap { return nil }
        }
        return out
    }
}
