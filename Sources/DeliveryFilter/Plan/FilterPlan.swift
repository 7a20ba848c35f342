import Conduit

/// What the filter will write, and why.
package struct FilterPlan: Sendable {
    package enum Output: Sendable, Equatable {
        /// No output, exit 75: the host keeps the message and retries.
        case nothing
        /// The input, byte for byte.
        case unchanged
        /// `headers` inserted at `layout.insertionOffset`, `layout.ownFieldRanges` left out.
        case rewritten(headers: [UInt8], layout: FilterMessageLayout)
    }

    package var output: Output = .unchanged
    package var reports: [FilterPassReport] = []
    package var byteCount: Int
    /// The message was larger than the scan cap and passed unscanned.
    package var oversize = false
    /// The problem that made the filter pass the message through (or fail closed).
    package var error: FilterError? = nil

    package init(byteCount: Int) { self.byteCount = byteCount }

    package var exitStatus: ExitStatus { output == .nothing ? .tempFailure : .success }
}
