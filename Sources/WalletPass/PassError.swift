/// Why a pass could not be opened or trusted: a stable `code` for programs, a short `message`
/// a person understands, and a technical `detail` for `--verbose`.
///
/// Equality is on the code only (swift-asn1's `ASN1Error` habit), so tests and callers match
/// codes, never wording. Each user sentence is written once, in its factory below.
package struct PassError: Error, Hashable, Sendable, CustomStringConvertible {
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ raw: String) { rawValue = raw }

        package static let notAZip = Code("not-a-zip")
        package static let tooLarge = Code("too-large")
        package static let unsafeArchive = Code("unsafe-archive")
        package static let missingPassJSON = Code("missing-pass-json")
        package static let missingManifest = Code("missing-manifest")
        package static let missingSignature = Code("missing-signature")
        package static let badJSON = Code("bad-json")
        package static let missingRequiredKey = Code("missing-required-key")
        package static let unsupportedFormatVersion = Code("unsupported-format-version")
        package static let manifestMismatch = Code("manifest-mismatch")
        package static let unlistedFile = Code("unlisted-file")
        package static let signatureInvalid = Code("signature-invalid")
        package static let untrustedSigner = Code("untrusted-signer")
        package static let certificateMismatch = Code("certificate-mismatch")
        package static let certificateExpired = Code("certificate-expired")
        package static let missingIcon = Code("missing-icon")

        package static let all: [Code] = [
            .notAZip, .tooLarge, .unsafeArchive, .missingPassJSON, .missingManifest, .missingSignature,
            .badJSON, .missingRequiredKey, .unsupportedFormatVersion, .manifestMismatch, .unlistedFile,
            .signatureInvalid, .untrustedSigner, .certificateMismatch, .certificateExpired, .missingIcon,
        ]
        package var description: String { rawValue }
    }

    package let code: Code
    /// Plain words for the user; no jargon, no file formats.
    package let message: String
    /// What exactly was wrong, for `--verbose` and bug reports.
    package let detail: String

    package init(code: Code, message: String, detail: String) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    package static func == (lhs: PassError, rhs: PassError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
    package var description: String { "\(code): \(message) (\(detail))" }
}
