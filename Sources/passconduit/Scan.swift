import ArgumentParser
import Conduit
import Foundation
import PassStore

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        _superCommandName: "passconduit",
        abstract: "Find Wallet passes in messages, mailboxes, Maildir folders or pass files.",
        discussion: """
        Each input may be a message (.eml), an mbox file, a Maildir folder, a .pkpass or a \
        .pkpasses bundle; its kind is found from its content, not its name. "-" or no input \
        reads standard input. Every pass found is reported with where it was, how it was \
        recognised, whether it can be trusted, and whether it is already in your library.

        An input that cannot be read gets one line on standard error and the scan goes on.

        The messages of a Maildir or an mbox are scanned on every CPU (at most 4) and reported \
        in input order; PASSCONDUIT_WORKERS=1 scans on one core (any number sets the thread count).

        Exit status: 0 if any pass was found; 1 if none was found; when none was found and an \
        input failed: 74 if reading one failed midway (I/O error), 65 if one held data that is \
        neither mail nor a pass, else 66 (missing or unreadable input).

        Examples:
          passconduit scan ticket.eml
          passconduit scan ~/Mail/inbox.mbox ~/Maildir
          passconduit scan --json - < message.eml
          passconduit scan --trust Samples/ca/trust Samples/messages/type.eml
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("Messages, mbox files, Maildir folders, passes; - for standard input.", valueName: "path"))
    var paths: [String] = []

    @Option(name: .long, help: ArgumentHelp("Also draw each pass's card as DIR/<sha256>.png (in the JSON as \"render\").", valueName: "dir"))
    var render: String?

    @Flag(name: .long, help: "With --render: leave each card's barcode out (for pictures posted in group rooms).")
    var noBarcode = false

    func validate() throws {
        if noBarcode && render == nil { throw ValidationError("--no-barcode goes with --render DIR") }
        if paths.isEmpty && isatty(0) == 1 {
            throw ValidationError("Name messages, mailboxes or passes to scan, or pipe one in (\"-\" reads standard input).")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            // A scan only reads: with no library yet (no file; no library for this user on the
            // server) it creates none, and every pass is "new".
            let (library, noLibraryYet) = try openLibraryIfPossible(context)
            let scanner = try context.scanner(library: library)
            let inputs = InputScanner(scanner: scanner, workers: InputScanner.workerCount(environment: context.environment))
            let card = PassCard(terminal: context.terminal)
            // The line is redrawn with CR and "erase line" (ESC [K), which a dumb terminal
            // (TERM=dumb: Emacs shell buffers, some CI logs) prints as garbage.
            let progress = ProgressLine(enabled: Terminal.stderrIsTerminal && !global.json
                                        && ProcessInfo.processInfo.environment["TERM"] != "dumb")
            var found = 0
            var problems: [InputProblem] = []
            for path in paths.isEmpty ? ["-"] : paths {
                inputs.scan(path) { event in
                    switch event {
                    case .found(var pass):
                        progress.clear()
                        if noLibraryYet, pass.verdict.status != .invalid, pass.record != nil { pass.library = .new }
                        found += 1
                        if let problem = pass.libraryProblem { Terminal.warn("\(problem) (library state not shown)") }
                        let picture = render.flatMap { ScanRender.draw(pass, into: $0, context: context, barcode: !noBarcode) }
                        if global.json {
                            let object = FoundPassJSON.object(pass)
                            print((render == nil ? object : ScanRender.adding(picture, to: object)).line)
                        } else {
                            if found > 1 { print("") }
                            print(card.render(pass, details: global.verbose))
                            if let picture { print("  Picture     \(picture)") }
                        }
                        fflush(nil)
                    case .problem(let problem):
                        progress.clear()
                        problems.append(problem)
                        Terminal.warn(problem.description)
                    case .progress(let input, let messages, let bytes):
                        progress.update(input: input, messages: messages, bytes: bytes, passes: found)
                    }
                }
            }
            progress.clear()
            if found > 0 { return .success }
            let status = ScanOutcome.status(problems: problems)
            // Silent like grep for scripts; a person at a terminal is told the scan ran and found nothing.
            if status == .noPassFound, !global.json, Terminal.stderrIsTerminal {
                let names = paths.isEmpty ? ["standard input"] : paths.map { $0 == "-" ? "standard input" : $0 }
                Terminal.warn("no pass found in \(names.joined(separator: ", "))")
            }
            return status
        }
    }

    /// The library to compare with, read-only, whichever backend `--library` names; nil when
    /// there is none yet (`noLibraryYet`), or with a warning when it cannot be read now (a server
    /// down or refusing the login, a damaged file). A usage error (--user on a file) stops the scan.
    func openLibraryIfPossible(_ context: Context) throws -> (library: (any PassLibraryBackend)?, noLibraryYet: Bool) {
        do {
            return (try context.library(reading: true), false)
        } catch let error as CLIError where error.status == .noInput {
            return (nil, true)
        } catch let error as CLIError where error.status == .usage {
            throw error
        } catch let error as CLIError {
            Terminal.warn("\(error.message) (library states are not shown)")
            return (nil, false)
        } catch {
            return (nil, false)
        }
    }
}

/// The exit status of a scan that found no pass (see `scan --help`).
enum ScanOutcome {
    static func status(problems: [InputProblem]) -> ExitStatus {
        let statuses = Set(problems.map { ExitStatus($0.code) })
        for status in [ExitStatus.ioError, .dataError, .noInput] where statuses.contains(status) { return status }
        return .noPassFound
    }
}
