/// Why a part was taken for a pass, in the order the checks run. Stable strings: they are the
/// JSON `detectedBy` values.
package enum DetectionReason: String, Sendable, Equatable, CaseIterable {
    /// `Content-Type: application/vnd.apple.pkpass` or `…pkpasses`.
    case contentType = "content-type"
    /// A `.pkpass` / `.pkpasses` file name (filename, filename*, name; decoded).
    case fileExtension = "extension"
    /// The decoded content: libmagic's first cut, then the zip central directory.
    case magic = "magic"
}
