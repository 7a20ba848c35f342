/// What went wrong, in the one shape every layer reports it: a stable `code` for programs (JSON,
/// logs, tests, exit statuses), a `message` a person understands, and an optional technical
/// `detail` for `--verbose`, logs and bug reports.
///
/// Each error type keeps its own fields and factories and exposes this shape through
/// `ProblemReporting`; JSON writers take a `Problem` (Conduit's `JSONOutput.problem(_:)`), so no
/// writer maps a type's fields by hand. Code review 3 §4 and issue 28 item 6.
package struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// A closed set of codes: a `String`-backed enum, so every code is a case, `allCases` cannot
    /// forget one (a list kept by hand lacked `older-schema`, which then did not round-trip), and a
    /// code cannot be invented at a call site. The raw strings are what JSON and logs carry; a
    /// domain's codes keep the strings they had. Switches over it keep a `default:`, so a new code
    /// breaks no caller.
    package enum Code: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        package var description: String { rawValue }

        /// Every code, once (`allCases`).
        package static var all: [Code] { allCases }

        // MARK: A pass cannot be opened or trusted (PassError; also intake refusals)
        case notAZip = "not-a-zip"
        case tooLarge = "too-large"
        case unsafeArchive = "unsafe-archive"
        case missingPassJSON = "missing-pass-json"
        case missingManifest = "missing-manifest"
        case missingSignature = "missing-signature"
        case badJSON = "bad-json"
        case missingRequiredKey = "missing-required-key"
        case unsupportedFormatVersion = "unsupported-format-version"
        case manifestMismatch = "manifest-mismatch"
        case unlistedFile = "unlisted-file"
        case signatureInvalid = "signature-invalid"
        case untrustedSigner = "untrusted-signer"
        case certificateMismatch = "certificate-mismatch"
        case certificateExpired = "certificate-expired"
        case missingIcon = "missing-icon"
        /// A system library passconduit loads on first use is missing or unusable (NativeLibraryError).
        case libraryMissing = "library-missing"
        /// A translation file of the pass (`pass.strings`) cannot be read to its end (StringsFile).
        case badStrings = "bad-strings"

        // MARK: Trust store, libmagic
        /// A trust store file or folder cannot be read or holds no usable certificate.
        case trustStoreUnreadable = "trust-store-unreadable"
        /// libmagic could not be started or its databases could not be loaded.
        case magicUnavailable = "magic-unavailable"

        // MARK: Barcodes (BarcodeError)
        case unsupportedBarcodeFormat = "unsupported-barcode-format"
        case unknownBarcodeEncoding = "unknown-barcode-encoding"
        case barcodeMessageUnrepresentable = "barcode-message-unrepresentable"
        case barcodeMessageTooLong = "barcode-message-too-long"
        case barcodeMessageInvalid = "barcode-message-invalid"
        case barcodeEncoderFailed = "barcode-encoder-failed"

        // MARK: Rendering (RenderProblem)
        /// An image of the pass cannot be drawn; the card is drawn without it.
        case imageUnusable = "image-unusable"
        /// The picture could not be made or written.
        case renderFailed = "render-failed"

        // MARK: Inputs of scan and add (InputProblem)
        /// The input does not exist, cannot be opened, is empty, or is a folder but not a Maildir.
        case inputUnavailable = "input-unavailable"
        /// Reading the input failed part way (an I/O error).
        case inputReadFailed = "input-read-failed"
        /// The input is neither mail nor a pass, or a message in it was skipped.
        case inputUnusable = "input-unusable"

        // MARK: Mailboxes (MailboxError)
        case cannotOpen = "cannot-open"
        case readFailed = "read-failed"
        case notAMaildir = "not-a-maildir"

        // MARK: Mail the parser worked around (MIMEDefect), with MIMEDefect's strings
        case missingHeaders = "missing-headers"
        case missingHeaderBodySeparator = "missing-header-body-separator"
        case headerTooLong = "header-too-long"
        case unencoded8BitHeader = "unencoded-8bit-header"
        case duplicateContentHeader = "duplicate-content-header"
        case invalidContentType = "invalid-content-type"
        case multipartWithoutBoundary = "multipart-without-boundary"
        case boundaryNotFound = "boundary-not-found"
        case missingCloseBoundary = "missing-close-boundary"
        case nestingTooDeep = "nesting-too-deep"
        case tooManyParts = "too-many-parts"
        case messageTooLarge = "message-too-large"
        case unknownTransferEncoding = "unknown-transfer-encoding"
        case encodedMessage = "encoded-message"
        case invalidEncoding = "invalid-encoding"
        case unknownCharset = "unknown-charset"

        // MARK: The pass library (LibraryError)
        case notALibrary = "not-a-library"
        case cannotCreate = "cannot-create"
        case notFound = "not-found"
        case ambiguousID = "ambiguous-id"
        case refused = "refused"
        case io = "io"
        case busy = "busy"
        case exists = "exists"
        case newerSchema = "newer-schema"
        /// A library file of an older layout opened for reading only: a writer brings it up to date.
        case olderSchema = "older-schema"
        case unavailable = "unavailable"

        // MARK: Configuration (ConfigError)
        case unreadable = "unreadable"
        case syntax = "syntax"
        case unknownKey = "unknown-key"
        case badValue = "bad-value"

        // MARK: The delivery filter (FilterError)
        case inputFailed = "input-failed"
        case spoolFailed = "spool-failed"
        case badArgument = "bad-argument"
        case badConfig = "bad-config"
        case scanFailed = "scan-failed"
        case libraryUnavailable = "library-unavailable"
        case libraryFailed = "library-failed"
        case deadline = "deadline"
        case outputFailed = "output-failed"

        // MARK: The milter (MilterProtocolError)
        /// The MTA said something the milter protocol does not allow; the session ends.
        case milterProtocol = "milter-protocol"

        // MARK: Servers (send, serve, milter)
        /// A server cannot start listening: the address is taken or not this computer's, the
        /// port needs privileges, or the socket or its TLS keys cannot be set up.
        case cannotListen = "cannot-listen"
        /// The mail server a sign-in is checked against closed early or broke IMAP (IMAPFailure).
        case mailServerFailed = "mail-server-failed"

        // MARK: Pass web services (UpdateFailure, UpdateOutcome)
        case badURL = "bad-url"
        case insecureURL = "insecure-url"
        case tokenRefused = "token-refused"
        case passGone = "pass-gone"
        case tryLater = "try-later"
        case timeout = "timeout"
        case unreachable = "unreachable"
        case redirectRefused = "redirect-refused"
        case badResponse = "bad-response"
        /// The pass names no web service, so it has no updates to ask for.
        case noWebService = "no-web-service"
        /// The pass is voided or expired: it is no longer checked.
        case retired = "retired"
        /// The library could not store or answer (the update run, the web API).
        case library = "library"
        /// The library would not store the update (an older version, another team's pass).
        case libraryRefused = "library-refused"

        // MARK: Taking a pass into the library (Intake refusals)
        /// The issuer's server sent a pass with another identity.
        case differentPass = "different-pass"
        case notInLibrary = "not-in-library"
        /// Another team's pass under an identity the library holds.
        case otherTeam = "other-team"
        case olderVersion = "older-version"
        /// The pass cannot be opened, with no more precise code.
        case invalid = "invalid"

        // MARK: The web wallet and its API (APIError, WebSetupError)
        case unauthorized = "unauthorized"
        case invalidToken = "invalid-token"
        case methodNotAllowed = "method-not-allowed"
        case noLibrary = "no-library"
        case notAPass = "not-a-pass"
        case notAccepted = "not-accepted"
        /// Something failed that the request could not cause; nothing was changed.
        case internalError = "internal"
        /// A web page's request that cannot be read (a damaged form).
        case badRequest = "bad-request"
        /// A web page's request this wallet refuses (an expired form, another site's form).
        case forbidden = "forbidden"
        /// A request for a host name the wallet does not answer to.
        case wrongHost = "wrong-host"
        /// `serve` was asked to run in a way it cannot (exit 64).
        case badWebSetup = "bad-web-setup"
        /// The web wallet's mailbox login is set up wrongly (the `--auth` URL, a CA file).
        case badLoginSetup = "bad-login-setup"

        // MARK: The command line (CLIError), by what the command could not do
        case usage = "usage"
        case badData = "bad-data"
        case noInput = "no-input"
        case serviceUnavailable = "service-unavailable"
        case ioFailed = "io-failed"
        case noPermission = "no-permission"
        case failed = "failed"

        // MARK: Low-level helpers (FileDescriptorIO.Errno, ZipWriter.Failure)
        /// A system call failed; the detail is the system's sentence.
        case systemError = "system-error"
        /// An archive could not be written.
        case archiveWriteFailed = "archive-write-failed"
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
