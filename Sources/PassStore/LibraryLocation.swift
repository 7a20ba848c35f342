import Foundation

/// What a library's location may show of itself (where the library is by default is the
/// executables' business: Conduit's `ConfigLocation.defaultLibraryPath`; how a library file and its
/// folder come into being, the SQLite backend's: `LibraryFile`).
package enum LibraryLocation {
    /// `text` with any `:password@` of the authority removed and `password=` parameters
    /// blanked: what messages and logs show of a
    /// location (a `postgresql://` URI may hold a password; a file path comes back unchanged).
    package static func withoutPassword(_ text: String) -> String {
        var out = text
        if let scheme = out.range(of: "://") {
            let authorityEnd = out[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? out.endIndex
            let authority = out[scheme.upperBound..<authorityEnd]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                out.replaceSubrange(colon..<at, with: "")
            }
        }
        if let q = out.firstIndex(of: "?") {
            let params = out[out.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
                pair.hasPrefix("password=") ? "password=…" : String(pair)
            }
            out = String(out[...q]) + params.joined(separator: "&")
        }
        return out
    }
}
