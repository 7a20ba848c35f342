import Conduit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Output habits: colour only on a terminal and never with NO_COLOR or --no-color; errors on
/// stderr as one line starting "passconduit: "; questions only where someone can answer.
struct Terminal {
    let colour: Bool
    let verbose: Bool

    init(options: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        colour = !options.noColor && !noColor && isatty(1) == 1 && environment["TERM"] != "dumb"
        verbose = options.verbose
    }

    func bold(_ text: String) -> String { colour ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { colour ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { colour ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func yellow(_ text: String) -> String { colour ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func red(_ text: String) -> String { colour ? "\u{1B}[31m\(text)\u{1B}[0m" : text }

    /// Writes a line to stdout.
    func say(_ text: String) {
        print(text)
    }

    /// Writes "passconduit: text" to stderr. The whole line is cleaned for the terminal: warnings
    /// quote paths, file names and error details that came from messages and passes.
    static func warn(_ text: String) {
        FileHandle.standardError.write(Data(("passconduit: " + TerminalText.line(text) + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
}
