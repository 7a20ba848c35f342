import Support

/// An input that could not be scanned: one clear line naming the input and the problem, and a
/// code saying what kind of trouble it was (the command line makes it an exit status if no pass
/// is found at all). Scanning goes on with the next input.
package struct InputProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package var input: String
    package var message: String
    /// `inputUnavailable`, `inputReadFailed` or `inputUnusable`.
    package var code: Problem.Code

    package init(input: String, message: String, code: Problem.Code) {
        self.input = input
        self.message = message
        self.code = code
    }

    /// "inbox.mbox: is empty"; standard input is called so, not "-".
    package var description: String { "\(input == "-" ? "standard input" : input): \(message)" }
}
