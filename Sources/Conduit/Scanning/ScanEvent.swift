/// What scanning inputs reports, in order, as it goes (so output streams and memory stays flat).
package enum ScanEvent: Sendable {
    case found(FoundPass)
    case problem(InputProblem)
    /// After each message of a mailbox: messages and bytes read so far in this input.
    case progress(input: String, messages: Int, bytes: Int)
}
