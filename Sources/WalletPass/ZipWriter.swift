import CZip
import Foundation
import Support

/// Writes a zip archive in memory with libzip: what a `.pkpasses` bundle and a scrubbed `.pkpass`
/// are made of. Entries keep the order they are added in; every entry gets the same fixed
/// modification time, so the same members always give the same bytes.
package struct ZipWriter {
    package enum Compression: Sendable { case store, deflate }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    private var entries: [(name: String, bytes: [UInt8], compression: Compression)] = []
    private var names: Set<String> = []
    /// The archive comment (a zip's own note, shown by `unzip -z`); ASCII or UTF-8.
    package var comment: String?

    package init() {}

    /// Adds a member; a name given twice is refused (readers disagree on which copy wins).
    package mutating func add(_ name: String, _ bytes: [UInt8], compression: Compression) throws {
        guard names.insert(name).inserted else { throw Failure(description: "\(name) is in the archive twice") }
        entries.append((name, bytes, compression))
    }

    /// 2001-01-01 00:00 (a DOS date cannot say 1970): the same instant for every member and every run.
    static let fixedTime: time_t = 978_307_200

    /// The archive's bytes.
    package func archive() throws -> [UInt8] {
        do { try PassArchive.library.load() } catch { throw Failure(description: error.message) }
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let target = zip_source_buffer_create(nil, 0, 0, &error) else {
            throw Failure(description: "libzip: \(String(cString: zip_error_strerror(&error)))")
        }
        // The buffer source belongs to us from here: the archive takes a reference and zip_close
        // drops it, so keep one to read the finished bytes and free it when done.
        zip_source_keep(target)
        defer { zip_source_free(target) }
        guard let archive = zip_open_from_source(target, ZIP_TRUNCATE, &error) else {
            zip_source_free(target)  // zip_open_from_source failed: it did not take its reference
            throw Failure(description: "libzip: \(String(cString: zip_error_strerror(&error)))")
        }
        func fail(_ what: String) -> Failure {
            let reason = String(cString: zip_strerror(archive))
            zip_discard(archive)
            return Failure(description: "\(what): \(reason)")
        }
        for entry in entries {
            // libzip reads member data at zip_close; a malloc'd copy that libzip frees (freep 1)
            // lives exactly as long as it needs to.
            let count = entry.bytes.count
            guard let copy = malloc(max(count, 1)) else { throw fail("out of memory") }
            entry.bytes.withUnsafeBytes { raw in
                if let base = raw.baseAddress { memcpy(copy, base, count) }
            }
            guard let source = zip_source_buffer(archive, copy, zip_uint64_t(count), 1) else {
                free(copy)
                throw fail(entry.name)
            }
            let index = zip_file_add(archive, entry.name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
            guard index >= 0 else {
                zip_source_free(source)
                throw fail(entry.name)
            }
            let method: Int32 = entry.compression == .store ? ZIP_CM_STORE : ZIP_CM_DEFLATE
            guard zip_set_file_compression(archive, zip_uint64_t(index), method, 9) == 0,
                  zip_file_set_mtime(archive, zip_uint64_t(index), Self.fixedTime, 0) == 0 else {
                throw fail(entry.name)
            }
        }
        if let comment {
            let bytes = Array(comment.utf8)
            guard bytes.count <= 65_535 else { throw fail("the archive comment is too long") }
            let ok = bytes.withUnsafeBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                    zip_set_archive_comment(archive, $0, zip_uint16_t(b.count))
                }
            }
            guard ok == 0 else { throw fail("archive comment") }
        }
        guard zip_close(archive) == 0 else { throw fail("writing the archive") }
        return try Self.contents(of: target)
    }

    private static func contents(of source: OpaquePointer) throws -> [UInt8] {
        guard zip_source_open(source) == 0 else { throw Failure(description: "libzip: cannot read the new archive back") }
        defer { zip_source_close(source) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { zip_source_read(source, $0.baseAddress, zip_uint64_t($0.count)) }
            if n < 0 { throw Failure(description: "libzip: cannot read the new archive back") }
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<Int(n)])
        }
        return result
    }
}

extension ZipWriter.Failure: ProblemReporting {
    package var problem: Problem { Problem(.archiveWriteFailed, message: "The archive could not be written.", detail: description) }
}
