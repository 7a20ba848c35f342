import Support

/// Why the delivery filter could not do its full job. Every one of these still ends in "the message
/// passes unchanged, exit 0" or, with `--fail-closed` (or when the message itself could not be
/// kept), "no output, exit 75": see `DeliveryFilter`.
package struct FilterError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: Hashable, Sendable {
        // A closed set: only the codes below exist (callers match them, never text).
        /// The shared code this one is (same raw string).
        package let problemCode: Problem.Code
        package var rawValue: String { problemCode.rawValue }
        private init(_ code: Problem.Code) { problemCode = code }
        /// Reading stdin failed: the message is not complete, so it cannot be passed on.
        package static let inputFailed = Code(.inputFailed)
        /// The temporary spool could not be created or written (disk full, `ulimit -f`).
        package static let spoolFailed = Code(.spoolFailed)
        /// A filter argument was not understood.
        package static let badArgument = Code(.badArgument)
        /// The configuration file could not be read.
        package static let badConfig = Code(.badConfig)
        /// The scan (or its library work) failed or crashed.
        package static let scanFailed = Code(.scanFailed)
        /// The library's server cannot be used now (down, refuses the login, read-only): the
        /// message must wait, so nothing is written and the host retries (exit 75, tempfail),
        /// whatever `--fail-closed` says, rather than delivering it without its offer.
        package static let libraryUnavailable = Code(.libraryUnavailable)
        /// The library could not be used for another reason (cannot be opened or created, damaged,
        /// busy past every retry, a write it could not take). Like `libraryUnavailable`, what
        /// happens then is the library-error policy's (`--on-library-error`).
        package static let libraryFailed = Code(.libraryFailed)
        /// The scan did not finish within the deadline.
        package static let deadline = Code(.deadline)
        /// Writing stdout failed (the host closed the pipe, disk full).
        package static let outputFailed = Code(.outputFailed)
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

extension FilterError: ProblemReporting {
    /// The code's sentence (what it means for the message) and the detail.
    package var problem: Problem { Problem(code.problemCode, message: Self.message(for: code), detail: detail) }

    /// What each code means for the message, in plain words.
    package static func message(for code: Code) -> String {
        switch code {
        case .inputFailed: return "The message could not be read completely, so it was not passed on."
        case .spoolFailed: return "The message could not be kept while it was scanned, so it was not passed on."
        case .badArgument: return "The filter was started with an argument it does not understand."
        case .badConfig: return "The filter's configuration file could not be used."
        case .scanFailed: return "The message could not be scanned for passes."
        case .libraryUnavailable: return "The pass library cannot be reached now, so the message waits to be tried again."
        case .libraryFailed: return "The pass library could not be used for this message."
        case .deadline: return "Scanning the message took too long and was stopped."
        case .outputFailed: return "The message could not be handed back to the mail system."
        default: return "The delivery filter could not do its full job."
        }
    }
}
