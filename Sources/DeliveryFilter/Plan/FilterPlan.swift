import Conduit

/// What the filter will write, and why.
package struct FilterPlan: Sendable {
    package enum Output: Sendable, Equatable {
        /// No output, exit 75: the host keeps the message and retries.
        case nothing
        /// The input, byte for byte.
        case unchanged
        /// The input with `edits` applied: inserted fields at `layout.insertionOffset` in
        /// `layout.lineEnding`, removed fields left out.
        case rewritten(HeaderEdits, layout: FilterMessageLayout)
    }

    package var output: Output = .unchanged
    package var reports: [FilterPassReport] = []
    package var byteCount: Int
    /// The message was larger than the scan cap and passed unscanned.
    package var oversize = false
    /// The message is a notice passconduit sent (`HeaderEdits.noticeName`): passed unscanned.
    package var notice = false
    /// The problem that made the filter pass the message through (or fail closed).
    package var error: FilterError? = nil
    /// One entry per library the scan used or tried (the log line names each, and each failure).
    package var libraries: [FilterLibraryNote] = []

    package init(byteCount: Int) { self.byteCount = byteCount }

    /// The header edits planned, if any (a milter sends these; the pipe writes them).
    package var edits: HeaderEdits? {
        if case .rewritten(let edits, _) = output { return edits }
        return nil
    }

    /// Nothing is written: the host keeps the message and tries again later (`passconduit filter`
    /// exits 75, a milter answers tempfail).
    package var retryLater: Bool { output == .nothing }
}
