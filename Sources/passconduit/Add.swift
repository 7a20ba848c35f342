import ArgumentParser
import Conduit
import Foundation
import PassStore
import WalletPass

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        _superCommandName: "passconduit",
        abstract: "Add passes to your library, after showing each one and asking.",
        discussion: """
        The add flow shows each pass found in the inputs and asks "Add to your library? [y/N]". \
        A pass already in the library is left alone; a newer version of one is offered as an \
        update with the changed fields listed; an older version, an invalid pass, (without \
        --allow-untrusted) a pass signed by someone your trust store does not know, or (without \
        --allow-unsigned) a pass with no signature at all is not added. An unsigned pass that is \
        kept (KDE Itinerary's test passes, one made by a converter) says "unsigned" in list and \
        show and carries a red "not verified" band on its card; the delivery filter never offers one.

        Without a terminal to ask on, nothing is added unless --yes is given.
        --offer and --offers accept passes the delivery filter staged (see "passconduit offers").

        Exit status: 0 when every pass was added, updated, already there or declined; 65 when a \
        pass was refused; 64 when a question could not be asked (no terminal, no --yes); 1 when \
        the inputs held no pass; 66/74 as for scan.

        Examples:
          passconduit add ticket.eml
          passconduit add --yes boarding.pkpass
          passconduit add --offers
          passconduit add --offer 3 --offer 4
          passconduit add --attachment ticket.pkpass /tmp/mutt-tmpfile.pkpass
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .shortAndLong, help: "Add without asking.")
    var yes = false

    @Flag(name: .long, help: "Also add passes whose signer your trust store does not know.")
    var allowUntrusted = false

    @Flag(name: .long, help: "Also add passes that have no signature at all (kept as \"unsigned\").")
    var allowUnsigned = false

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Accept staged offers by number.", valueName: "id"))
    var offer: [Int64] = []

    @Flag(name: .long, help: "Review every pending offer, one by one.")
    var offers = false

    @Option(name: .long, help: ArgumentHelp(
        "Record the pass as this mail attachment instead of the input's path (for mail clients, which hand over a temporary copy they delete; the shipped mailcap passes %{name}).",
        valueName: "name"))
    var attachment: String?

    @Argument(help: ArgumentHelp("Messages, mailboxes, Maildir folders, passes; - for standard input.", valueName: "path"))
    var paths: [String] = []

    func validate() throws {
        if global.json {
            throw ValidationError("--json: add has no JSON output: it asks and adds. To see what it would do as JSON, run \"passconduit scan --json\" on the same inputs.")
        }
        if (!offer.isEmpty || offers) && !paths.isEmpty {
            throw ValidationError("Give either inputs or --offer/--offers, not both.")
        }
        if paths.isEmpty && offer.isEmpty && !offers && isatty(0) == 1 {
            throw ValidationError("Name messages, mailboxes or passes to add, or pipe one in (\"-\" reads standard input).")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let library = try context.library()
            var flow = AddSession(context: context, library: library, yes: yes, allowUntrusted: allowUntrusted)
            flow.allowUnsigned = allowUnsigned
            flow.attachment = attachment
            if offers || !offer.isEmpty {
                return try flow.reviewOffers(offers ? nil : offer)
            }
            return try flow.addFromInputs(paths.isEmpty ? ["-"] : paths)
        }
    }
}

/// One run of the add flow: shows, asks, adds, and keeps the worst outcome for the exit status.
struct AddSession {
    let context: Context
    let library: any PassLibraryBackend
    let yes: Bool
    let allowUntrusted: Bool
    /// `--allow-unsigned`: a pass with no signature is kept, as "unsigned".
    var allowUnsigned = false
    /// The library's consent flag: the user allowed a pass nobody trusted vouches for (the intake
    /// decided above which kind; the library refuses both without it).
    var libraryConsent: Bool { allowUntrusted || allowUnsigned }
    let prompt = Prompt()
    var card: PassCard { PassCard(terminal: context.terminal) }
    /// `--attachment`: what a mail client's temporary file was (it is deleted once the client returns).
    var attachment: String?
    var shown = 0
    var refused = false
    var unasked = false
    /// The exit status of the first pass that could not be stored (the run goes on).
    var failed: ExitStatus?

    init(context: Context, library: any PassLibraryBackend, yes: Bool, allowUntrusted: Bool) {
        self.context = context
        self.library = library
        self.yes = yes
        self.allowUntrusted = allowUntrusted
    }

    mutating func addFromInputs(_ paths: [String]) throws -> ExitStatus {
        let scanner = try context.scanner(library: library, onPurpose: true)
        let inputs = InputScanner(scanner: scanner, workers: InputScanner.workerCount(environment: context.environment))
        var found: [FoundPass] = []
        var problems: [InputProblem] = []
        // A large mailbox takes a while before the first card: on a terminal, say how far it got.
        let progress = ProgressLine(enabled: Terminal.stderrIsTerminal && context.environment["TERM"] != "dumb")
        for path in paths {
            inputs.scan(path) { event in
                switch event {
                case .found(var pass):
                    if let attachment { Self.recordAsAttachment(&pass, attachment) }
                    found.append(pass)
                case .problem(let problem):
                    progress.clear()
                    problems.append(problem)
                    Terminal.warn(problem.description)
                case .progress(let input, let messages, let bytes):
                    progress.update(input: input, messages: messages, bytes: bytes, passes: found.count)
                }
            }
        }
        progress.clear()
        // Bundles and mailboxes can carry the same pass twice; offer it once. One run can also
        // meet two versions of a pass (a ticket and its later update): each is decided against
        // the library as it is when its turn comes, so the second is an update (or stale), not
        // a second "new". A pass that fails to be stored is reported and the rest still go.
        var seen = Set<String>()
        // Once the library's server is known to be down, the passes after it are not tried
        // again one retry deadline each: they are reported at once, each by name.
        var down: CLIError?
        for pass in found where seen.insert(pass.verdict.sha256).inserted {
            if let down {
                Terminal.warn("\(Self.name(of: pass)): not added: the library could not be reached (\(down.message))")
                continue
            }
            do {
                try handle(current(pass), offerID: nil)
            } catch let error as CLIError {
                Terminal.warn(found.count > 1 ? "\(Self.name(of: pass)): \(error.message)" : error.message)
                if failed == nil { failed = error.status }
                if error.status == .tempFailure { down = error }
            }
        }
        return outcome(nothingFound: found.isEmpty, problems: problems)
    }

    /// A pass as a person recognises it in an error line: organization, description and id.
    static func name(of pass: FoundPass) -> String {
        guard let info = pass.verdict.pass else { return pass.source.filename ?? pass.source.input }
        return TerminalText.line("\(info.organizationName) “\(info.description)” (\(info.passTypeIdentifier)/\(info.serialNumber))")
    }

    /// Shows and records the pass as the mail attachment it was, never the temporary path the
    /// mail client handed over (mutt removes it as soon as `add` returns).
    static func recordAsAttachment(_ pass: inout FoundPass, _ name: String) {
        let label = name.isEmpty ? "a mail attachment" : "mail attachment \"\(name)\""
        pass.source.input = label
        if pass.source.filename == nil, !name.isEmpty { pass.source.filename = name }
        pass.record?.source?.file = label
    }

    mutating func reviewOffers(_ ids: [Int64]?) throws -> ExitStatus {
        let opener = try context.opener()
        let pending = try guarded { [library] in try await library.offers() }
        let chosen: [Offer]
        if let ids {
            var list: [Offer] = []
            for id in ids {
                guard let offer = pending.first(where: { $0.offerID == id }) else {
                    throw CLIError("there is no pending offer \(id) (see: passconduit offers)", status: .noInput)
                }
                list.append(offer)
            }
            chosen = list
        } else {
            chosen = pending
            if chosen.isEmpty { print("No pending offers.") }
        }
        for offer in chosen {
            let bytes = try guarded { [library] in try await library.offerBytes(offer.offerID) }
            let verdict = opener.open(bytes)
            let (source, record) = PassRecordMapping.record(offer: offer, verdict: verdict, bytes: bytes)
            // As in a scan: an invalid pass has no library state (the card must not call it "new").
            var state: LibraryState?
            var problem: LibraryError?
            if verdict.status != .invalid, let record { (state, problem) = PassScanner.state(of: record, in: library) }
            try handle(FoundPass(source: source, verdict: verdict, library: state, record: record, libraryProblem: problem),
                       offerID: offer.offerID)
        }
        return outcome(nothingFound: false, problems: [])
    }

    /// `found` with its library state as of now (the scan decided it before this run added anything).
    func current(_ found: FoundPass) -> FoundPass {
        guard found.verdict.status != .invalid, let record = found.record else { return found }
        var found = found
        (found.library, found.libraryProblem) = PassScanner.state(of: record, in: library)
        return found
    }

    mutating func handle(_ found: FoundPass, offerID: Int64?) throws {
        // The library could not say whether it holds this pass: deciding "new" would misreport it.
        if let problem = found.libraryProblem { throw CLIError(problem) }
        if shown > 0 { print("") }
        shown += 1
        print(card.render(found, details: true))
        // On a terminal the holder can scan the barcode off the screen before deciding.
        if Terminal.stdoutIsTerminal, let pass = found.verdict.pass {
            let barcode = TerminalBarcodeView(terminal: context.terminal).lines(for: pass)
            if !barcode.isEmpty { print(barcode.joined(separator: "\n")) }
        }
        // The library's state as `current` read it, and the stored version under the same id
        // (the team check, the list of changes), decided by the one intake policy.
        let taking = PassTaking(library: library, intake: Intake(.user(allowUntrusted: allowUntrusted, allowUnsigned: allowUnsigned)),
                                allowUntrusted: libraryConsent)
        let verdict = found.verdict, record = found.record, state = found.library
        let plan = try guarded { try await taking.plan(verdict, record: record, state: .some(state)) }
        switch plan.decision {
        case .refuse(_, let message, _):
            print(TerminalText.line(message))
            refused = true
            return
        case .nothing, .offer:
            // For the user's add, "nothing" is the same bytes already stored (offers are the filter's).
            print("Already in your library.")
            if let offerID { _ = try guarded { try await taking.take(plan, offerID: offerID) } }
            return
        case .add:
            guard plan.record != nil, try ask("Add to your library?") else { return }
        case .replace:
            guard plan.record != nil else { return }
            printChanges(plan.changes)
            guard try ask("Update the pass in your library?", declined: "Not updated") else { return }
        }
        // Another process (a second `add` of the same pass, the filter) may have stored these
        // bytes since the scan: then this run changed nothing and says so.
        switch try guarded({ try await taking.take(plan, offerID: offerID) }) {
        case .added: print(context.terminal.green("Added") + " to your library.")
        case .updated: print(context.terminal.green("Updated") + " in your library.")
        case .already: print("Already in your library.")
        case .refused: break
        }
    }

    func printChanges(_ changes: [FieldChange]) {
        if changes.isEmpty {
            print("This update changes no field you can see.")
            return
        }
        print("This update changes:")
        for change in changes {
            let name = TerminalText.line(change.label.map { $0.isEmpty ? change.key : $0 } ?? change.key)
            if let message = change.message {
                print("  • " + TerminalText.line(message))
            } else if let new = change.newValue {
                print("  • \(name): " + TerminalText.line("\(change.oldValue ?? "(none)") → \(new)"))
            } else {
                print("  • \(name) removed (was " + TerminalText.line(change.oldValue ?? "") + ")")
            }
        }
    }

    /// Asks, or says why it cannot. `declined` names what did not happen ("Not added",
    /// "Not updated"): a declined update leaves the older version in the library.
    mutating func ask(_ question: String, declined: String = "Not added") throws -> Bool {
        if yes { return true }
        guard prompt.isInteractive else {
            print("\(declined): there is no terminal to ask on. Run again with --yes to do it without asking.")
            unasked = true
            return false
        }
        let answer = prompt.confirm(question)
        if !answer { print("\(declined).") }
        return answer
    }

    func outcome(nothingFound: Bool, problems: [InputProblem]) -> ExitStatus {
        if nothingFound {
            let status = ScanOutcome.status(problems: problems)
            if status == .noPassFound { Terminal.warn("no pass found") }
            return status
        }
        if let failed { return failed }
        if unasked { return .usage }
        if refused { return .dataError }
        return .success
    }

    func guarded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        try LibraryCall.run(body)
    }
}
