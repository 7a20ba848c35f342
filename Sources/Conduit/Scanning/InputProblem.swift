/// An input that could not be scanned: one clear line naming the input and the problem, and
/// the exit status it stands for if no pass is found at all. Scanning goes on with the next input.
package struct InputProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package var input: String
    package var message: String
    package var status: ExitStatus

    package init(input: String, message: String, status: ExitStatus) {
        self.input = input
        self.message = message
        self.status = status
    }

    /// "inbox.mbox: is empty"; standard input is called so, not "-".
    package var description: String { "\(input == "-" ? "standard input" : input): \(message)" }
}
