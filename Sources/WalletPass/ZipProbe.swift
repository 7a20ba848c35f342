/// Content detection for the conduit: the entry names of a zip, read from its central directory
/// only. Never inflates, never touches entry data.
package enum ZipProbe {
    /// The names of at most `maxEntries` entries, or nil if `bytes` is not a zip archive
    /// (or declares more entries than `maxEntries`).
    package static func entryNames(_ bytes: [UInt8], maxEntries: Int = 1024) -> [String]? {
        guard case .success(let dir) = ZipDirectory.read(bytes[...], maxEntries: maxEntries) else { return nil }
        return dir.entries.map(\.name)
    }
}
