/// A system library that passconduit loads on first use rather than at every start (the
/// trampolines of script/gen-lazy-shims: cairo/pango, zint, libcrypto, libzip, libmagic, SQLite).
/// Loading can fail (the library is not installed, or another version lacks a function), and
/// that is an error with a sentence, never an abort: each layer calls `load()` before its first
/// call into the library and turns the error into its own.
package struct NativeLibrary: Sendable {
    /// What the library is for, in a person's words ("barcodes", "pass signatures").
    package let purpose: String
    let loader: @Sendable () -> String?

    /// `load`: the generated `<target>_load(message, size)`: 0, or -1 with a sentence in message.
    package init(purpose: String, load: @convention(c) (UnsafeMutablePointer<CChar>?, UInt) -> Int32) {
        self.purpose = purpose
        loader = {
            var message = [CChar](repeating: 0, count: 1024)
            let status = message.withUnsafeMutableBufferPointer { load($0.baseAddress, UInt($0.count)) }
            guard status != 0 else { return nil }
            return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Loads the library and checks every function passconduit calls in it; cheap once loaded.
    package func load() throws(NativeLibraryError) {
        if let detail = loader() { throw NativeLibraryError(purpose: purpose, detail: detail) }
    }
}

/// A library that cannot be loaded: `message` for a person, `detail` (the loader's own words:
/// which file or function) for `--verbose`, logs and JSON.
package struct NativeLibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    package let purpose: String
    package let detail: String
    package var message: String { "A system library passconduit needs for \(purpose) is missing or unusable: \(detail)." }
    package var description: String { message }

    /// The library's file name (`libzip.so.4`) from a loader's sentence (`cannot load libzip.so.4: …`),
    /// nil when the sentence names none (a function missing from a library that loaded).
    package static func soname(inDetail detail: String) -> String? {
        let prefix = "cannot load "
        guard detail.hasPrefix(prefix) else { return nil }
        let rest = detail.dropFirst(prefix.count)
        let name = rest.prefix { $0 != ":" && $0 != " " }
        return name.isEmpty ? nil : String(name)
    }

    /// The Debian package that installs each library passconduit loads on first use (Debian 12),
    /// so an operator's log says what to install.
    package static let debianPackages: [String: String] = [
        "libcrypto.so.3": "libssl3", "libzip.so.4": "libzip4", "libmagic.so.1": "libmagic1",
        "libsqlite3.so.0": "libsqlite3-0", "libpangocairo-1.0.so.0": "libpangocairo-1.0-0", "libzint.so.2.11": "libzint2.11",
    ]

    /// `libzip.so.4 (Debian package libzip4)`, or the name alone for a library not in the list.
    package static func described(soname: String) -> String {
        guard let package = debianPackages[soname] else { return soname }
        return "\(soname) (Debian package \(package))"
    }
}

extension NativeLibraryError: ProblemReporting {
    package var problem: Problem { Problem(.libraryMissing, message: message, detail: detail) }
}
