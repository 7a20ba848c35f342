import Conduit
import Foundation
import WalletPass

/// `render --format terminal`: the pass's name and the barcode in half blocks a phone scans off
/// the screen, black on an explicit white background (ANSI colours even into a file or pipe, so
/// `cat` shows it scannable later; not with --no-color or NO_COLOR), altText underneath. A barcode
/// that cannot be drawn — too wide for the terminal, not encodable, a format Wallet does not
/// draw — gets one line saying why, and its text.
enum TerminalCard {
    static func text(_ pass: RenderSource, context: Context) -> String {
        let info = pass.info
        let environment = context.environment
        let noColor = context.options.noColor || (environment["NO_COLOR"].map { !$0.isEmpty } ?? false)
        // Into a file or pipe nothing wraps; on a terminal its width counts.
        let columns = Terminal.stdoutIsTerminal ? TerminalBarcodeView.terminalColumns(environment: environment) : Int.max
        let view = TerminalBarcodeView(terminal: context.terminal, columns: columns, colour: !noColor)
        var lines: [String] = []
        var title = TerminalText.line(FieldCellText.cut(info.organizationName))
        let description = TerminalText.line(FieldCellText.cut(info.description))
        if !description.isEmpty, description != title { title += title.isEmpty ? description : " · " + description }
        lines.append(context.terminal.bold(title))
        if pass.verdict.status != .valid {
            lines.append("NOT VERIFIED: " + TerminalText.line(pass.verdict.error?.message ?? "The signature could not be checked."))
        }
        let barcode = view.lines(for: info)
        if barcode.isEmpty {
            lines.append("This pass has no barcode.")
        } else {
            lines += barcode
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Pass texts cut for one line.
enum FieldCellText {
    static func cut(_ text: String, to limit: Int = 200) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}
