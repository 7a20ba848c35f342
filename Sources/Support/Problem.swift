/// What went wrong, in the one shape every layer reports it: a stable `code` for programs (JSON,
/// logs, tests, exit statuses), a `message` a person understands, and an optional technical
/// `detail` for `--verbose`, logs and bug reports.
///
/// Each error type keeps its own fields and factories and exposes this shape through
/// `ProblemReporting`; JSON writers take a `Problem` (Conduit's `JSONOutput.problem(_:)`), so no
/// writer maps a type's fields by hand. Code review 3 §4 and issue 28 item 6.
package struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// A closed set of codes, on the swift-asn1 `ASN1Error` pattern: the initialiser is private,
    /// so only the static members below exist, and a code cannot be invented at a call site. The
    /// raw strings are what JSON and logs carry; a domain's codes keep the strings they had.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// The code whose raw string is `rawValue`, or nil for a word this build does not know.
        package init?(rawValue: String) {
            guard let code = Code.byRawValue[rawValue] else { return nil }
            self = code
        }

        // MARK: A pass cannot be opened or trusted (PassError; also intake refusals)
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
        /// A system library passconduit loads on first use is missing or unusable (NativeLibraryError).
        package static let libraryMissing = Code("library-missing")
        /// A translation file of the pass (`pass.strings`) cannot be read to its end (StringsFile).
        package static let badStrings = Code("bad-strings")

        // MARK: Trust store, libmagic
        /// A trust store file or folder cannot be read or holds no usable certificate.
        package static let trustStoreUnreadable = Code("trust-store-unreadable")
        /// libmagic could not be started or its databases could not be loaded.
        package static let magicUnavailable = Code("magic-unavailable")

        // MARK: Barcodes (BarcodeError)
        package static let unsupportedBarcodeFormat = Code("unsupported-barcode-format")
        package static let unknownBarcodeEncoding = Code("unknown-barcode-encoding")
        package static let barcodeMessageUnrepresentable = Code("barcode-message-unrepresentable")
        package static let barcodeMessageTooLong = Code("barcode-message-too-long")
        package static let barcodeEncoderFailed = Code("barcode-encoder-failed")

        // MARK: Rendering (RenderProblem)
        /// An image of the pass cannot be drawn; the card is drawn without it.
        package static let imageUnusable = Code("image-unusable")
        /// The picture could not be made or written.
        package static let renderFailed = Code("render-failed")

        // MARK: Inputs of scan and add (InputProblem)
        /// The input does not exist, cannot be opened, is empty, or is a folder but not a Maildir.
        package static let inputUnavailable = Code("input-unavailable")
        /// Reading the input failed part way (an I/O error).
        package static let inputReadFailed = Code("input-read-failed")
        /// The input is neither mail nor a pass, or a message in it was skipped.
        package static let inputUnusable = Code("input-unusable")

        // MARK: Mailboxes (MailboxError)
        package static let cannotOpen = Code("cannot-open")
        package static let readFailed = Code("read-failed")
        package static let notAMaildir = Code("not-a-maildir")

        // MARK: Mail the parser worked around (MIMEDefect), with MIMEDefect's strings
        package static let missingHeaders = Code("missing-headers")
        package static let missingHeaderBodySeparator = Code("missing-header-body-separator")
        package static let headerTooLong = Code("header-too-long")
        package static let unencoded8BitHeader = Code("unencoded-8bit-header")
        package static let duplicateContentHeader = Code("duplicate-content-header")
        package static let invalidContentType = Code("invalid-content-type")
        package static let multipartWithoutBoundary = Code("multipart-without-boundary")
        package static let boundaryNotFound = Code("boundary-not-found")
        package static let missingCloseBoundary = Code("missing-close-boundary")
        package static let nestingTooDeep = Code("nesting-too-deep")
        package static let tooManyParts = Code("too-many-parts")
        package static let messageTooLarge = Code("message-too-large")
        package static let unknownTransferEncoding = Code("unknown-transfer-encoding")
        package static let encodedMessage = Code("encoded-message")
        package static let invalidEncoding = Code("invalid-encoding")
        package static let unknownCharset = Code("unknown-charset")

        // MARK: The pass library (LibraryError)
        package static let notALibrary = Code("not-a-library")
        package static let cannotCreate = Code("cannot-create")
        package static let notFound = Code("not-found")
        package static let ambiguousID = Code("ambiguous-id")
        package static let refused = Code("refused")
        package static let io = Code("io")
        package static let busy = Code("busy")
        package static let exists = Code("exists")
        package static let newerSchema = Code("newer-schema")
        /// A library file of an older layout opened for reading only: a writer brings it up to date.
        package static let olderSchema = Code("older-schema")
        package static let unavailable = Code("unavailable")

        // MARK: Configuration (ConfigError)
        package static let unreadable = Code("unreadable")
        package static let syntax = Code("syntax")
        package static let unknownKey = Code("unknown-key")
        package static let badValue = Code("bad-value")

        // MARK: The delivery filter (FilterError)
        package static let inputFailed = Code("input-failed")
        package static let spoolFailed = Code("spool-failed")
        package static let badArgument = Code("bad-argument")
        package static let badConfig = Code("bad-config")
        package static let scanFailed = Code("scan-failed")
        package static let libraryUnavailable = Code("library-unavailable")
        package static let libraryFailed = Code("library-failed")
        package static let deadline = Code("deadline")
        package static let outputFailed = Code("output-failed")

        // MARK: The milter (MilterProtocolError)
        /// The MTA said something the milter protocol does not allow; the session ends.
        package static let milterProtocol = Code("milter-protocol")

        // MARK: Servers (send, serve, milter)
        /// A server cannot start listening: the address is taken or not this computer's, the
        /// port needs privileges, or the socket or its TLS keys cannot be set up.
        package static let cannotListen = Code("cannot-listen")
        /// The mail server a sign-in is checked against closed early or broke IMAP (IMAPFailure).
        package static let mailServerFailed = Code("mail-server-failed")

        // MARK: Pass web services (UpdateFailure, UpdateOutcome)
        package static let badURL = Code("bad-url")
        package static let insecureURL = Code("insecure-url")
        package static let tokenRefused = Code("token-refused")
        package static let passGone = Code("pass-gone")
        package static let tryLater = Code("try-later")
        package static let timeout = Code("timeout")
        package static let unreachable = Code("unreachable")
        package static let redirectRefused = Code("redirect-refused")
        package static let badResponse = Code("bad-response")
        /// The pass names no web service, so it has no updates to ask for.
        package static let noWebService = Code("no-web-service")
        /// The pass is voided or expired: it is no longer checked.
        package static let retired = Code("retired")
        /// The library could not store or answer (the update run, the web API).
        package static let library = Code("library")
        /// The library would not store the update (an older version, another team's pass).
        package static let libraryRefused = Code("library-refused")

        // MARK: Taking a pass into the library (Intake refusals)
        /// The issuer's server sent a pass with another identity.
        package static let differentPass = Code("different-pass")
        package static let notInLibrary = Code("not-in-library")
        /// Another team's pass under an identity the library holds.
        package static let otherTeam = Code("other-team")
        package static let olderVersion = Code("older-version")
        /// The pass cannot be opened, with no more precise code.
        package static let invalid = Code("invalid")

        // MARK: The web wallet and its API (APIError, WebSetupError)
        package static let unauthorized = Code("unauthorized")
        package static let invalidToken = Code("invalid-token")
        package static let methodNotAllowed = Code("method-not-allowed")
        package static let noLibrary = Code("no-library")
        package static let notAPass = Code("not-a-pass")
        package static let notAccepted = Code("not-accepted")
        /// Something failed that the request could not cause; nothing was changed.
        package static let internalError = Code("internal")
        /// A web page's request that cannot be read (a damaged form).
        package static let badRequest = Code("bad-request")
        /// A web page's request this wallet refuses (an expired form, another site's form).
        package static let forbidden = Code("forbidden")
        /// A request for a host name the wallet does not answer to.
        package static let wrongHost = Code("wrong-host")
        /// `serve` was asked to run in a way it cannot (exit 64).
        package static let badWebSetup = Code("bad-web-setup")
        /// The web wallet's mailbox login is set up wrongly (the `--auth` URL, a CA file).
        package static let badLoginSetup = Code("bad-login-setup")

        // MARK: The command line (CLIError), by what the command could not do
        package static let usage = Code("usage")
        package static let badData = Code("bad-data")
        package static let noInput = Code("no-input")
        package static let serviceUnavailable = Code("service-unavailable")
        package static let ioFailed = Code("io-failed")
        package static let noPermission = Code("no-permission")
        package static let failed = Code("failed")

        // MARK: Low-level helpers (FileDescriptorIO.Errno, ZipWriter.Failure)
        /// A system call failed; the detail is the system's sentence.
        package static let systemError = Code("system-error")
        /// An archive could not be written.
        package static let archiveWriteFailed = Code("archive-write-failed")

        /// Every code, once.
        package static let all: [Code] = [
            .notAZip, .tooLarge, .unsafeArchive, .missingPassJSON, .missingManifest, .missingSignature, .badJSON,
            .missingRequiredKey, .unsupportedFormatVersion, .manifestMismatch, .unlistedFile, .signatureInvalid,
            .untrustedSigner, .certificateMismatch, .certificateExpired, .missingIcon, .libraryMissing, .badStrings,
            .trustStoreUnreadable, .magicUnavailable,
            .unsupportedBarcodeFormat, .unknownBarcodeEncoding, .barcodeMessageUnrepresentable, .barcodeMessageTooLong,
            .barcodeEncoderFailed,
            .imageUnusable, .renderFailed,
            .inputUnavailable, .inputReadFailed, .inputUnusable,
            .cannotOpen, .readFailed, .notAMaildir,
            .missingHeaders, .missingHeaderBodySeparator, .headerTooLong, .unencoded8BitHeader, .duplicateContentHeader,
            .invalidContentType, .multipartWithoutBoundary, .boundaryNotFound, .missingCloseBoundary, .nestingTooDeep,
            .tooManyParts, .messageTooLarge, .unknownTransferEncoding, .encodedMessage, .invalidEncoding, .unknownCharset,
            .notALibrary, .cannotCreate, .notFound, .ambiguousID, .refused, .io, .busy, .exists, .newerSchema, .unavailable,
            .unreadable, .syntax, .unknownKey, .badValue,
            .inputFailed, .spoolFailed, .badArgument, .badConfig, .scanFailed, .libraryUnavailable, .libraryFailed,
            .deadline, .outputFailed,
            .milterProtocol,
            .cannotListen, .mailServerFailed,
            .badURL, .insecureURL, .tokenRefused, .passGone, .tryLater, .timeout, .unreachable, .redirectRefused,
            .badResponse, .noWebService, .retired, .library, .libraryRefused,
            .differentPass, .notInLibrary, .otherTeam, .olderVersion, .invalid,
            .unauthorized, .invalidToken, .methodNotAllowed, .noLibrary, .notAPass, .notAccepted, .internalError,
            .badRequest, .forbidden, .wrongHost, .badWebSetup, .badLoginSetup,
            .usage, .badData, .noInput, .serviceUnavailable, .ioFailed, .noPermission, .failed,
            .systemError, .archiveWriteFailed,
        ]

        private static let byRawValue: [String: Code] = Dictionary(all.map { ($0.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
    }

    package var code: Code
    /// Plain words for a person: what happened and what it means for them.
    package var message: String
    /// What exactly was wrong (a file, a line, the system's words), for `--verbose`, logs and JSON;
    /// nil when there is nothing to add (the JSON object then has no `detail` key). Never a secret.
    package var detail: String?

    package init(_ code: Code, message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    package var description: String { detail.map { "\(code): \(message) (\($0))" } ?? "\(code): \(message)" }
}

/// An error that says what happened in the common shape. Every error type of passconduit conforms,
/// in its own module; callers that report errors to programs (JSON, logs) use `problem`, and the
/// command line maps `problem.code` to an exit status.
package protocol ProblemReporting: Error {
    var problem: Problem { get }
}
