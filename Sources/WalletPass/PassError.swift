import Support

/// Why a pass could not be opened or trusted: a stable `code` for programs, a short `message`
/// a person understands, and a technical `detail` for `--verbose`.
///
/// Equality is on the code only (swift-asn1's `ASN1Error` habit), so tests and callers match
/// codes, never wording. Each user sentence is written once, in its factory below.
package struct PassError: Error, Hashable, Sendable, CustomStringConvertible {
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The shared code this one is (same raw string): PassError's codes are a subset of Problem's.
        package let problemCode: Problem.Code
        package var rawValue: String { problemCode.rawValue }
        private init(_ code: Problem.Code) { problemCode = code }

        package static let notAZip = Code(.notAZip)
        package static let tooLarge = Code(.tooLarge)
        package static let unsafeArchive = Code(.unsafeArchive)
        package static let missingPassJSON = Code(.missingPassJSON)
        package static let missingManifest = Code(.missingManifest)
        package static let missingSignature = Code(.missingSignature)
        package static let badJSON = Code(.badJSON)
        package static let missingRequiredKey = Code(.missingRequiredKey)
        package static let unsupportedFormatVersion = Code(.unsupportedFormatVersion)
        package static let manifestMismatch = Code(.manifestMismatch)
        package static let unlistedFile = Code(.unlistedFile)
        package static let signatureInvalid = Code(.signatureInvalid)
        package static let untrustedSigner = Code(.untrustedSigner)
        package static let certificateMismatch = Code(.certificateMismatch)
        package static let certificateExpired = Code(.certificateExpired)
        package static let missingIcon = Code(.missingIcon)
        /// Not the pass's fault: a system library needed to open or check it is missing here.
        package static let libraryMissing = Code(.libraryMissing)

        package static let all: [Code] = [
            .notAZip, .tooLarge, .unsafeArchive, .missingPassJSON, .missingManifest, .missingSignature,
            .badJSON, .missingRequiredKey, .unsupportedFormatVersion, .manifestMismatch, .unlistedFile,
            .signatureInvalid, .untrustedSigner, .certificateMismatch, .certificateExpired, .missingIcon,
            .libraryMissing,
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

    /// The error for `code` with its one user sentence.
    private init(_ code: Code, _ detail: String) {
        self.init(code: code, message: PassError.message(for: code), detail: detail)
    }

    /// The user sentence of each code, written once. Plain words: what it means for the person.
    package static func message(for code: Code) -> String {
        switch code {
        case .notAZip: return "This file isn't a pass, or it is damaged."
        case .tooLarge: return "This pass is too large to open safely."
        case .unsafeArchive: return "This pass is packed in an unsafe way, so it wasn't opened."
        case .missingPassJSON: return "This file doesn't contain a pass."
        case .missingManifest: return "This pass is missing its list of contents, so it can't be checked."
        case .missingSignature: return "This pass isn't signed, so nobody can tell who issued it."
        case .badJSON: return "This pass is damaged: its details can't be read."
        case .missingRequiredKey: return "This pass is incomplete: some details every pass must have are missing."
        case .unsupportedFormatVersion: return "This pass uses a newer format that can't be read yet."
        case .manifestMismatch: return "This pass was changed after it was issued, so it can't be trusted."
        case .unlistedFile: return "Something was added to this pass after it was issued, so it can't be trusted."
        case .signatureInvalid: return "This pass's signature is broken, so it can't be trusted."
        case .untrustedSigner: return "This pass was signed by someone this computer doesn't trust."
        case .certificateMismatch: return "This pass was signed with a certificate that doesn't belong to its issuer."
        case .certificateExpired: return "This pass was signed with a certificate that wasn't valid at the time."
        case .missingIcon: return "This pass has no icon, so Wallet would refuse it."
        case .libraryMissing: return "This pass can't be checked on this computer: a system library passconduit needs is missing."
        default: return "This pass can't be opened."
        }
    }

    // MARK: - Factories, one per situation

    static func notAZip(_ why: String) -> PassError { PassError(.notAZip, why) }
    static func libraryMissing(_ error: NativeLibraryError) -> PassError { PassError(.libraryMissing, error.detail) }
    static func archiveTooLarge(bytes: Int, limit: Int) -> PassError {
        self.limit(.tooLarge, "the file is \(bytes) bytes; the limit is \(limit)", setting: "max-pass-bytes", value: limit)
    }
    static func tooManyEntries(_ count: Int, limit: Int) -> PassError {
        self.limit(.tooLarge, "the archive declares \(count) entries; the limit is \(limit)", setting: "max-pass-entries", value: limit)
    }
    static func entryTooLarge(_ name: String, declared: UInt64, limit: Int) -> PassError {
        self.limit(.tooLarge, "\(name) declares \(declared) bytes uncompressed; the limit is \(limit)", setting: "max-entry-bytes", value: limit)
    }
    static func totalTooLarge(_ total: UInt64, limit: Int) -> PassError {
        self.limit(.tooLarge, "the entries declare \(total) bytes uncompressed in all; the limit is \(limit)", setting: "max-unpacked-bytes", value: limit)
    }
    static func bundleTooLarge(members: Int, limit: Int) -> PassError {
        self.limit(.tooLarge, "the bundle holds \(members) passes; the limit is \(limit)", setting: "max-bundle-members", value: limit)
    }
    /// A tripped limit: the code's sentence, then the limit and the setting that raises it
    /// (the technical detail stays as it was).
    private static func limit(_ code: Code, _ detail: String, setting: String, value: Int) -> PassError {
        let base = message(for: code)
        return PassError(code: code, message: String(base.dropLast()) + " (over the limit of \(value): \(setting) in the config's [limits] raises it).",
                         detail: detail)
    }
    static func unsafeName(_ name: String, _ why: String) -> PassError {
        PassError(.unsafeArchive, "entry \(quoted(name)): \(why)")
    }
    static func symbolicLink(_ name: String) -> PassError {
        PassError(.unsafeArchive, "entry \(quoted(name)) is a symbolic link")
    }
    static func encryptedEntry(_ name: String) -> PassError {
        PassError(.unsafeArchive, "entry \(quoted(name)) is encrypted")
    }
    static func duplicateName(_ name: String, _ other: String) -> PassError {
        PassError(.unsafeArchive, name == other
            ? "entry \(quoted(name)) occurs twice"
            : "entries \(quoted(other)) and \(quoted(name)) differ only in letter case")
    }
    static func unsupportedCompression(_ name: String, method: Int32) -> PassError {
        PassError(.unsafeArchive, "entry \(quoted(name)) uses compression method \(method); passes use stored or deflate")
    }
    static func impossibleRatio(_ name: String, declared: UInt64, compressed: UInt64) -> PassError {
        PassError(.unsafeArchive, "entry \(quoted(name)) claims \(declared) bytes from \(compressed) compressed bytes, more than deflate can produce")
    }
    static func entryDataLies(_ name: String, _ why: String) -> PassError {
        PassError(.unsafeArchive, "entry \(quoted(name)): \(why)")
    }
    static func inconsistentArchive(_ why: String) -> PassError { PassError(.unsafeArchive, why) }
    static func missingPassJSON(_ why: String = "the archive has no pass.json at its root") -> PassError {
        PassError(.missingPassJSON, why)
    }
    static func missingManifest() -> PassError { PassError(.missingManifest, "the archive has no manifest.json") }
    static func missingSignature() -> PassError { PassError(.missingSignature, "the archive has no signature file") }
    static func badJSON(_ file: String, _ why: String) -> PassError { PassError(.badJSON, "\(file): \(why)") }
    static func missingRequiredKey(_ key: String, _ why: String = "is missing") -> PassError {
        PassError(.missingRequiredKey, "pass.json: \(key) \(why)")
    }
    static func missingStyle() -> PassError {
        PassError(.missingRequiredKey, "pass.json: none of boardingPass, coupon, eventTicket, generic, storeCard, posterGeneric is present")
    }
    static func unsupportedFormatVersion(_ found: String) -> PassError {
        PassError(.unsupportedFormatVersion, "pass.json: formatVersion is \(found); only 1 exists")
    }
    static func digestMismatch(_ file: String, algorithm: String, listed: String, actual: String) -> PassError {
        PassError(.manifestMismatch, "manifest.json: \(algorithm) of \(file) is \(actual), listed as \(listed)")
    }
    static func listedFileMissing(_ file: String) -> PassError {
        PassError(.manifestMismatch, "manifest.json lists \(quoted(file)), which is not in the archive")
    }
    static func malformedDigest(_ file: String, _ value: String) -> PassError {
        PassError(.manifestMismatch, "manifest.json: the digest of \(quoted(file)) is \(quoted(value)), neither 40-hex SHA-1 nor 64-hex SHA-256")
    }
    static func unlistedFile(_ file: String) -> PassError {
        PassError(.unlistedFile, "\(quoted(file)) is in the archive but not in manifest.json")
    }
    static func signatureUnreadable(_ why: String) -> PassError { PassError(.signatureInvalid, "signature: \(why)") }
    static func signatureDoesNotVerify(_ why: String) -> PassError {
        PassError(.signatureInvalid, "signature does not verify over manifest.json: \(why)")
    }
    static func noSigningTime() -> PassError {
        PassError(.signatureInvalid, "signature has no signing-time attribute (Wallet requires a signing date)")
    }
    static func embeddedManifestDiffers() -> PassError {
        PassError(.signatureInvalid, "signature embeds a manifest that differs from manifest.json")
    }
    static func untrustedSigner(_ why: String) -> PassError { PassError(.untrustedSigner, why) }
    static func certificateExpired(_ why: String) -> PassError { PassError(.certificateExpired, why) }
    static func certificateMismatch(_ why: String) -> PassError { PassError(.certificateMismatch, why) }
    static func missingIcon(_ why: String = "no icon.png, icon@2x.png or icon@3x.png") -> PassError {
        PassError(.missingIcon, why)
    }

    /// A name for a detail line: quoted, control characters escaped, cut to 200 characters.
    static func quoted(_ name: String) -> String {
        var out = "\""
        for scalar in name.unicodeScalars.prefix(200) {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if name.unicodeScalars.count > 200 { out += "…" }
        return out + "\""
    }

    package static func == (lhs: PassError, rhs: PassError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
    package var description: String { "\(code): \(message) (\(detail))" }
}

extension PassError: ProblemReporting {
    package var problem: Problem { Problem(code.problemCode, message: message, detail: detail) }
}
