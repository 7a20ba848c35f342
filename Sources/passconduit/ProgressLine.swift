import Conduit
import Foundation

/// "inbox.mbox: 12 000 messages, 830 MB, 3 passes" on stderr, redrawn in place, for large inputs only
/// (after 2 seconds or 50 MB) and only when stderr is a terminal. Cleared before other output.
final class ProgressLine {
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var shown = false
    private var lastDraw: ContinuousClock.Instant?

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func update(input: String, messages: Int, bytes: Int, passes: Int) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - started >= .seconds(2) || bytes >= 50_000_000 else { return }
        guard lastDraw.map({ now - $0 >= .milliseconds(200) }) ?? true else { return }
        lastDraw = now
        let megabytes = Double(bytes) / 1_000_000
        let text = "\(TerminalText.line(input)): \(messages) messages, \(String(format: "%.1f", megabytes)) MB, "
            + (passes == 1 ? "1 pass" : "\(passes) passes")
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
        shown = true
    }

    func clear() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}
