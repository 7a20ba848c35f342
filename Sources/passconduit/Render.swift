import ArgumentParser
import Conduit
import Foundation
import PassRender
import WalletPass

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        _superCommandName: "passconduit",
        abstract: "Draw a pass as Wallet shows it: PNG, PDF, SVG, HTML or a terminal barcode.",
        discussion: """
        SOURCE is a .pkpass file, - for a pass on standard input, or a pass in your library \
        (type/serial or a SHA-256 prefix). The format comes from --format, else from -o's \
        extension, else PNG. PNG and SVG show the front (--side), PDF puts the card at its true \
        size on an A4 or Letter page (from your locale) with the back below it, HTML is one \
        self-contained page that loads nothing, and "terminal" draws the barcode in half blocks.

        A pass whose signature fails or whose signer is unknown is still drawn, with a band \
        across the card saying why it is not verified: the scanner at the gate decides.

        Examples:
          passconduit render ticket.pkpass -o ticket.png
          passconduit render 3fa2c1 --format pdf -o ticket.pdf
          passconduit render - --format terminal < ticket.pkpass
        """,
        version: Passconduit.version)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case png, pdf, svg, html, terminal
    }

    enum Side: String, ExpressibleByArgument, CaseIterable {
        case front, back, both
    }

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "png, pdf, svg, html or terminal (default: from -o's extension, else png).")
    var format: Format?

    @Option(name: .long, help: ArgumentHelp("Pixels per point for PNG: 1, 2 or 3.", valueName: "n"))
    var scale: Int = 2

    @Option(name: .long, help: "front, back or both (default: both for PDF and HTML, front otherwise).")
    var side: Side?

    @Flag(name: .long, help: "Leave the barcode and its text out (a box says so): for a picture posted where others can see it.")
    var noBarcode = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file (- for standard output).", valueName: "file"))
    var output: String?

    @Argument(help: "A .pkpass file, - for standard input, or a pass in your library.")
    var source: String

    func validate() throws {
        guard (1...3).contains(scale) else { throw ValidationError("--scale must be 1, 2 or 3") }
    }

    /// What the user asked for and cannot get, as a sentence (64): a file named for a format
    /// render does not write (a PNG named card.jpg opens nowhere as a JPEG), or a side of a
    /// terminal drawing, which is the barcode only.
    var refusal: String? {
        if format == nil, let output, output != "-", let dot = output.lastIndex(of: "."), !output[dot...].contains("/") {
            let ext = output[output.index(after: dot)...].lowercased()
            if Format(rawValue: ext == "htm" ? "html" : ext) == nil || ext == "terminal" {
                return "-o \(output): render writes PNG, PDF, SVG or HTML, not .\(ext); name the file .png, .pdf, .svg or .html, or give --format"
            }
        }
        if chosenFormat == .terminal, noBarcode {
            return "--no-barcode: the terminal drawing is the barcode only; draw the card without it with --format png, pdf, svg or html"
        }
        if chosenFormat == .terminal, let side, side != .front {
            return "--side \(side.rawValue): the terminal drawing is the barcode on the front; draw the back with --format png, pdf, svg or html"
        }
        return nil
    }

    /// --format, else -o's extension, else PNG.
    var chosenFormat: Format {
        if let format { return format }
        if let output, output != "-", let dot = output.lastIndex(of: ".") {
            let ext = output[output.index(after: dot)...].lowercased()
            if let f = Format(rawValue: ext == "htm" ? "html" : ext), f != .terminal { return f }
        }
        return .png
    }

    func run() throws {
        try Self.exiting {
            if let refusal { throw CLIError(refusal, status: .usage) }
            let context = try Context(global)
            let pass = try RenderSource.load(source, context: context)
            let format = chosenFormat
            if format == .terminal {
                let text = TerminalCard.text(pass, context: context)
                try OutputFile.write(Array(text.utf8), to: output, what: "drawing", allowTerminal: true)
                return .success
            }
            let renderFormat = RenderFormat(rawValue: format.rawValue)!
            let defaultSide: RenderSide = format == .pdf || format == .html ? .both : .front
            let request = RenderRequest(format: renderFormat, scale: scale,
                                        side: side.flatMap { RenderSide(rawValue: $0.rawValue) } ?? defaultSide,
                                        paper: PaperSize.forLocale(context.environment))
            let out = try Self.draw(pass, request: request, barcode: !noBarcode)
            if global.verbose { for note in out.notes { Terminal.warn("\(pass.name): \(note)") } }
            try OutputFile.write(out.bytes, to: output, what: format == .html ? "page" : "picture",
                                 allowTerminal: format == .html || format == .svg)
            return .success
        }
    }

    /// `barcode: false` draws the box of `--no-barcode` in the barcode's place.
    static func draw(_ pass: RenderSource, request: RenderRequest, barcode: Bool = true) throws -> RenderOutput {
        do {
            return try PassRenderer.render(info: pass.info, status: pass.verdict.status, error: pass.verdict.error,
                                           barcode: barcode ? pass.barcode : CardBarcodeSource.withheld(for: pass.info), request: request)
        } catch {
            throw CLIError("\(pass.name): cannot draw the pass: \(error)", status: .dataError)
        }
    }
}
