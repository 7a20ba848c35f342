import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks yes/no questions on the terminal: stdin when it is one, else /dev/tty (so
/// `cat msg | passconduit add -` can still ask). Without a terminal there is no one to ask.
final class Prompt {
    private let input: UnsafeMutablePointer<FILE>?
    private let ownsInput: Bool

    init() {
        if isatty(0) == 1, let terminal = fdopen(dup(0), "r") {
            input = terminal
            ownsInput = true
        } else if let tty = fopen("/dev/tty", "r+"), isatty(fileno(tty)) == 1 {
            input = tty
            ownsInput = true
        } else {
            input = nil
            ownsInput = false
        }
    }

    deinit {
        if ownsInput, let input { fclose(input) }
    }

    /// Whether someone can answer.
    var isInteractive: Bool { input != nil }

    /// "question [y/N] ": true only for an answer starting with y or Y. End of input is no.
    func confirm(_ question: String) -> Bool {
        guard let input else { return false }
        print(question + " [y/N] ", terminator: "")
        fflush(nil)
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        guard getline(&line, &capacity, input) > 0, let line else {
            print("")
            return false
        }
        let answer = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return answer == "y" || answer == "yes"
    }
}
