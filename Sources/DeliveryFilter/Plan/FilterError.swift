/// Why the delivery filter could not do its full job. Every one of these still ends in "the message
/// passes unchanged, exit 0" or, with `--fail-closed` (or when the message itself could not be
/// kept), "no output, exit 75": see `DeliveryFilter`.
package struct FilterError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Hashable, Sendable {
        // A closed set: only the codes below exist (callers match them, never text).
        package let rawValue: String
        private init(rawValue: String) { self.rawValue = rawValue }
        /// Reading stdin failed: the message is not complete, so it cannot be passed on.
        package static let inputFailed = Code(rawValue: "input-failed")
        /// The temporary spool could not be created or written (disk full, `ulimit -f`).
        package static let spoolFailed = Code(rawValue: "spool-failed")
        /// A filter argument was not understood.
        package static let badArgument = Code(rawValue: "bad-argument")
        /// The configuration file could not be read.
        package static let badConfig = Code(rawValue: "bad-config")
        /// The scan (or its library work) failed or crashed.
        package static let scanFailed = Code(rawValue: "scan-failed")
        /// The library's server cannot be used now (down, refuses the login, read-only): the
        /// message must wait, so nothing is written and the host retries (exit 75, tempfail),
        /// whatever `--fail-closed` says, rather than delivering it without its offer.
        package static let libraryUnavailable = Code(rawValue: "library-unavailable")
        /// The library could not be used for another reason (cannot be opened or created, damaged,
        /// busy past every retry, a write it could not take). Like `libraryUnavailable`, what
        /// happens then is the library-error policy's (`--on-library-error`).
        package static let libraryFailed = Code(rawValue: "library-failed")
        /// The scan did not finish within the deadline.
        package static let deadline = Code(rawValue: "deadline")
        /// Writing stdout failed (the host closed the pipe, disk full).
        package static let outputFailed = Code(rawValue: "output-failed")
    }

    package var code: Code
    package var detail: String

    package init(_ code: Code, detail: String) {
        self.code = code
        self.detail = detail
    }

    package var description: String { "\(code.rawValue): \(detail)" }

    /// Whether the message bytes themselves are lost (nothing can be written but exit 75).
    package var messageUnavailable: Bool { code == .inputFailed || code == .spoolFailed }

    /// Whether the library, not the message or the scan, failed: the library-error policy decides.
    package var isLibraryError: Bool { code == .libraryUnavailable || code == .libraryFailed }

    /// The code named `rawValue` (from a scan worker's reply), or `scanFailed` for a word this
    /// build does not know.
    package static func code(named rawValue: String) -> Code {
        [Code.inputFailed, .spoolFailed, .badArgument, .badConfig, .scanFailed, .libraryUnavailable, .libraryFailed,
         .deadline, .outputFailed].first { $0.rawValue == rawValue } ?? .scanFailed
    }

    /// Whether the host must keep the message and try again later (no output, exit 75).
    package var retryLater: Bool { messageUnavailable || code == .libraryUnavailable }
}

extension FilterError {
    /// `error` as a FilterError (the filter's own throwing functions only throw those).
    package static func from(_ error: any Error, _ code: Code = .scanFailed) -> FilterError {
        (error as? FilterError) ?? FilterError(code, detail: String(describing: error))
    }
}
