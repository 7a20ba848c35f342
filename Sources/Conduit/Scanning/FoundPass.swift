import PassStore
import WalletPass

/// One pass found in an input: where it was, what opening it said, and what the library knows.
package struct FoundPass: Sendable {
    package var source: PassSourceInfo
    package var verdict: PassVerdict
    /// nil when there is no library or the pass is invalid (it can never be added).
    package var library: LibraryState?
    /// What the library would store; nil when pass.json could not be read.
    package var record: PassRecord?
    /// The library could not say what it knows about this pass (busy, damaged, unreadable): then
    /// `library` is nil although there is a library, and a caller must not act as if it were new.
    package var libraryProblem: LibraryError?

    package init(source: PassSourceInfo, verdict: PassVerdict, library: LibraryState?, record: PassRecord?,
                 libraryProblem: LibraryError? = nil) {
        self.source = source
        self.verdict = verdict
        self.library = library
        self.record = record
        self.libraryProblem = libraryProblem
    }
}
