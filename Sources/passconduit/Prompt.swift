import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks yes/no questions on the terminal: /dev/tty when there is one, else stdin when it is a
/// terminal. The question is written there too, never to stdout, so `cat msg | passconduit add -`
/// and `passconduit add x.eml | tail` still ask where the person sees it. Without a terminal
/// there is no one to ask.
final class Prompt {
    private let input: UnsafeMutablePointer<FILE>?
    /// Where the question goes: the terminal opened read-write, or stderr (a copy of fd 2).
    private let output: UnsafeMutablePointer<FILE>?
    private let ownsInput: Bool

    init() {
        if let tty = fopen("/dev/tty", "r+"), isatty(fileno(tty)) == 1 {
            input = tty
            output = tty
            ownsInput = true
        } else if isatty(0) == 1, let terminal = fdopen(dup(0), "r") {
            input = terminal
            output = fdopen(dup(2), "w")
            ownsInput = true
        } else {
            input = nil
            output = nil
            ownsInput = false
        }
    }

    deinit {
        if ownsInput, let input { fclose(input) }
        if let output, output != input { fclose(output) }
    }

    /// Whether someone can answer.
    var isInteractive: Bool { input != nil }

    /// "question [y/N] ": true only for an answer starting with y or Y. End of input is no.
    func confirm(_ question: String) -> Bool {
        guard let input, let terminal = output else { return false }
        fflush(nil)   // the card printed before the question shows first
        fputs(question + " [y/N] ", terminal)
        fflush(terminal)
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, input) > 0, let line else {
            fputs("\n", terminal)
            fflush(terminal)
            return false
        }
        let answer = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return answer == "y" || answer == "yes"
    }
}
