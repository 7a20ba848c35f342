import PassStore
import Support
import WalletPass

/// What the delivery filter learned about one pass in a message, and what it did in the library.
/// Built from the scanner's findings; everything in it that came from the message is hostile text
/// and is sanitized only when written (`FilterHeaderWriter`).
package struct FilterPassReport: Sendable, Equatable {
    package var status: PassStatus
    /// The library's view before this message; nil when there is no library or the pass could
    /// not be identified.
    package var library: LibraryState?
    /// What the filter did about it.
    package var action: FilterAction
    package var passTypeIdentifier: String?
    package var serialNumber: String?
    package var organizationName: String?
    /// A stable error code (DESIGN.md list) when the pass is not valid.
    package var errorCode: String?
    /// Hex SHA-256 of the `.pkpass` bytes, for the log.
    package var sha256: String?
    /// The system library whose absence kept the pass from being checked (`libzip.so.4`), for the log.
    package var missingLibrary: String?

    package init(status: PassStatus, library: LibraryState? = nil, action: FilterAction = .none,
                 passTypeIdentifier: String? = nil, serialNumber: String? = nil,
                 organizationName: String? = nil, errorCode: String? = nil, sha256: String? = nil,
                 missingLibrary: String? = nil) {
        self.status = status
        self.library = library
        self.action = action
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.organizationName = organizationName
        self.errorCode = errorCode
        self.sha256 = sha256
        self.missingLibrary = missingLibrary
    }

    /// The pass could not be checked at all (a system library the check needs is missing): it is
    /// neither good nor bad, and a header never calls it invalid.
    package var unchecked: Bool { errorCode == Problem.Code.libraryMissing.rawValue }

    /// The status word of the per-pass header and the log: `unchecked` for a pass that could
    /// not be checked, otherwise the verdict's.
    package var statusWord: String { unchecked ? "unchecked" : status.rawValue }

    /// The word the summary header counts this pass under: the library state for a valid pass,
    /// otherwise its status (an invalid pass is never "new").
    package var category: String {
        if status == .valid, let library { return library.rawValue }
        return statusWord
    }
}
