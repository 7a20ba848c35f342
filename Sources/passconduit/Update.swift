import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore
import PassUpdate
import Updates

struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        _superCommandName: "passconduit",
        abstract: "Fetch newer versions of your passes from their issuers' web services.",
        discussion: """
        A pass whose pass.json has a webServiceURL and an authenticationToken can be kept \
        current, as Wallet does: passconduit asks the issuer's server for a newer version \
        (a conditional request: nothing is downloaded when nothing changed), verifies what \
        comes back like a new pass (same pass, same team, signed no earlier than yours), and \
        replaces your copy, keeping the old one ("passconduit log" shows what changed).

        Without IDs every pass with a web service is checked, except expired and voided ones \
        and those whose server asked to wait. Nothing contacts an issuer unless you run this \
        command (or enable the systemd timer: passconduit-update.timer, a user unit; \
        Samples/integrations/systemd in the source tree).

        --quiet is the timer's mode: it checks only the passes that are due (hourly while a \
        pass's relevant date is within 48 hours, daily otherwise) and prints only problems.

        --register also registers this library with each issuer as a device (a random \
        identifier; no push token), so the issuer can list which passes changed; passes you \
        remove are unregistered on the next run.

        Only https is used, with the system's certificate authorities; plain http only to \
        this computer (localhost). --ca-file adds a certificate authority (PEM), for a test \
        server or a company CA. https_proxy, http_proxy and no_proxy are honoured as curl does.

        --library-map TEMPLATE (a mail gateway's map, as the milter's: a path template with \
        %{local} and %{domain}, or a postgresql:// URL whose users are the mailboxes), or \
        --mailboxes for the map in the config file ([milter] library-map): every library of the \
        map is checked, each as a run on that library alone would (its own registration and \
        change log, the same verification), with one request at a time to each issuer however \
        many libraries hold its passes, and an issuer's Retry-After kept for all of them. Lines \
        start with the mailbox; --metrics-file writes the run's figures for Prometheus' \
        node_exporter (textfile collector). The package's passconduit-update-all.timer runs it. \
        The passes of a gateway's libraries come from anybody's mail, so with a map only https \
        to public addresses is contacted (the address a name resolves to is checked, and the \
        connection goes to it): loopback, private and link-local ranges are refused unless \
        --allow-host names the host (a test server).

        Exit status: 0 when every check ran, 65 when an update was refused, 75 when a server \
        could not be reached or a library could not be used (try again later).

        Examples:
          passconduit update
          passconduit update pass.com.example.air/BP-1234 --json
          passconduit update --register
          passconduit update --quiet --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite'
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Register this library with the issuers as a device (opt-in).")
    var register = false

    @Flag(name: .shortAndLong, help: "Timer mode: check only the passes that are due; print only problems.")
    var quiet = false

    @Flag(name: .long, help: "Take an update signed by an unknown signer when the pass you have is untrusted too.")
    var allowUntrusted = false

    @Option(name: .long, help: ArgumentHelp("Also trust this certificate authority (PEM file) for https; repeatable.", valueName: "file"))
    var caFile: [String] = []

    @Option(name: .long, help: ArgumentHelp("Give up after this many seconds for the whole run (each request has 10 s).", valueName: "seconds"))
    var timeLimit: Double = 300

    @Option(name: .long, help: ArgumentHelp("Check every library of this map (a gateway's mailboxes) instead of yours.", valueName: "template"))
    var libraryMap: String?

    @Flag(name: .long, help: "Check every library of the config file's map ([milter] library-map).")
    var mailboxes = false

    @Option(name: .long, help: ArgumentHelp("With a map: contact this host although it is on loopback or a private network, or uses http (a test server); repeatable.", valueName: "host"))
    var allowHost: [String] = []

    @Option(name: .long, help: ArgumentHelp("With a map: write the run's figures to this file (Prometheus text format).", valueName: "file"))
    var metricsFile: String?

    @Argument(help: "Passes to check: type/serial or a SHA-256 prefix (default: all with a web service).")
    var ids: [String] = []

    func validate() throws {
        guard timeLimit > 0, timeLimit <= 86_400 else { throw ValidationError("--time-limit must be between 0 and 86400 seconds") }
        if libraryMap != nil || mailboxes {
            if !ids.isEmpty { throw ValidationError("--library-map checks whole libraries: name no passes") }
            if global.library != nil { throw ValidationError("--library and --library-map exclude each other") }
        } else if metricsFile != nil {
            throw ValidationError("--metrics-file goes with --library-map or --mailboxes")
        } else if !allowHost.isEmpty {
            throw ValidationError("--allow-host goes with --library-map or --mailboxes (a run on your own library contacts what your passes name)")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            if libraryMap != nil || mailboxes {
                return try runMap(context)
            }
            let library = try context.library()
            let passIDs: [PassID]? = ids.isEmpty ? nil : try ids.map { try context.resolve($0, in: library) }
            let opener = try context.opener()
            // Made last: a client must be shut down, so nothing that can fail comes after it.
            let client = try makeClient(context)
            var request = baseRequest()
            request.ids = passIDs
            let run = UpdateRun(library: library, opener: opener, client: client)
            let settled = request
            let progress = UpdateProgress(enabled: !quiet && !global.json && Terminal.stderrIsTerminal
                                            && context.environment["TERM"] != "dumb", noun: "passes")
            let outcomes: [UpdateOutcome]
            do {
                outcomes = try Blocking.run {
                    do {
                        let result = try await run.run(settled) { done, total in progress.update(done, total) }
                        await client.shutdown()
                        return result
                    } catch {
                        await client.shutdown()
                        throw error
                    }
                }
            } catch let error as LibraryError {
                throw CLIError(error)
            }
            progress.clear()
            for outcome in outcomes {
                if global.json {
                    print(UpdateOutcomeText.json(outcome).line)
                } else if !quiet || [.refused, .failed].contains(outcome.kind) {
                    print(UpdateOutcomeText.line(outcome, terminal: context.terminal, verbose: global.verbose))
                }
            }
            if outcomes.isEmpty && !quiet && !global.json {
                print(ids.isEmpty ? "No pass in your library has a web service to check." : "Nothing to check.")
            }
            // Notices switched on: what this run changed (and the reminders due) go out now. A
            // notice that could not be sent stays pending; the update is not undone.
            if context.config.notices.enabled {
                _ = try Notices.sendOwn(context, quiet: quiet || global.json)
            }
            return Self.status(outcomes)
        }
    }

    static func status(_ outcomes: [UpdateOutcome]) -> ExitStatus {
        if outcomes.contains(where: { $0.kind == .refused }) { return .dataError }
        if outcomes.contains(where: { $0.temporary }) { return .tempFailure }
        return .success
    }

    func baseRequest() -> UpdateRequest {
        var request = UpdateRequest()
        request.register = register
        request.dueOnly = quiet
        request.allowUntrusted = allowUntrusted
        request.timeLimit = timeLimit
        return request
    }

    /// Every library of the map: listed as `library list` lists them, each opened only where it
    /// exists (never created), checked, and closed.
    func runMap(_ context: Context) throws -> ExitStatus {
        guard let template = libraryMap ?? context.config.milterLibraryMap else {
            throw CLIError("--mailboxes: the config file names no map ([milter] library-map); give --library-map TEMPLATE", status: .usage)
        }
        let entries: [LibraryAdmin.Entry]
        do {
            entries = try Blocking.run { try await LibraryAdmin.list(template: template) }
        } catch {
            if let problem = error as? LibraryAdmin.Problem { throw CLIError(problem.description, status: .usage) }
            if let error = error as? LibraryError { throw CLIError(error) }
            throw error
        }
        let server = LibraryMap.isServer(template)
        let libraries = entries.map { entry in
            MailboxUpdate.Library(mailbox: entry.user, location: entry.location) {
                var options = LibraryOptions()
                if server { options.user = entry.user }
                return try await LibraryRoot.open(server ? template : entry.location, options: options, create: false)
            }
        }
        let opener = try context.opener()
        let request = baseRequest()
        let progress = UpdateProgress(enabled: !quiet && !global.json && Terminal.stderrIsTerminal
                                        && context.environment["TERM"] != "dumb", noun: "libraries")
        let client = try makeClient(context, gateway: true)
        let started = ContinuousClock.now
        let results = try Blocking.run {
            let results = await MailboxUpdate.run(libraries, request: request, opener: opener, client: client) { done, total in
                progress.update(done, total)
            }
            await client.shutdown()
            return results
        }
        progress.clear()
        let figures = MailboxUpdate.Figures(results)
        for result in results {
            if let problem = result.problem {
                if global.json {
                    print(JSONOutput.object([("schema", .int(1)), ("mailbox", .string(result.mailbox)), ("id", .null),
                                             ("outcome", .string("failed")), ("http", .null),
                                             ("error", JSONOutput.problem(problem)), ("changes", .array([]))]).line)
                } else {
                    print(UpdateOutcomeText.sanitized("\(result.mailbox): " + context.terminal.yellow("library not checked")
                                                      + " — " + problem.message + (global.verbose ? "\n    " + (problem.detail ?? "") : "")))
                }
                continue
            }
            for outcome in result.outcomes {
                if global.json {
                    print(UpdateOutcomeText.json(outcome, mailbox: result.mailbox).line)
                } else if !quiet || [.refused, .failed].contains(outcome.kind) {
                    print(UpdateOutcomeText.sanitized("\(result.mailbox): ")
                          + UpdateOutcomeText.line(outcome, terminal: context.terminal, verbose: global.verbose))
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if !quiet && !global.json {
            print("\(figures.libraries) \(figures.libraries == 1 ? "library" : "libraries"), \(figures.checked) \(figures.checked == 1 ? "pass" : "passes") checked: "
                  + "\(figures.updated) updated, \(figures.unchanged) unchanged, \(figures.refused) refused, \(figures.failed) failed"
                  + (figures.librariesFailed > 0 ? "; \(figures.librariesFailed) \(figures.librariesFailed == 1 ? "library" : "libraries") not checked" : "")
                  + String(format: " (%.1f s).", seconds))
        }
        if let metricsFile {
            let text = figures.prometheus(seconds: seconds, finished: Date())
            try OutputFile.writeFile(Array(text.utf8), to: metricsFile, what: "metrics")
        }
        if context.config.notices.enabled {
            _ = try Notices.sendMap(template, context: context, quiet: quiet || global.json)
        }
        let status = Self.status(results.flatMap(\.outcomes))
        if status == .success && results.contains(where: { $0.problem != nil }) { return .tempFailure }
        return status
    }

    func makeClient(_ context: Context, gateway: Bool = false) throws -> WebServiceClient {
            var settings = WebServiceClient.Settings()
            // A gateway's passes are strangers' (issue 37 item 2): public https addresses only.
            if gateway { settings.addressPolicy = AddressPolicy(allowedHosts: Set(allowHost)) }
            settings.extraCAFiles = caFile
            settings.maxBodyBytes = context.limits.pass.maxArchiveBytes
            settings.proxy = ProxySettings(environment: context.environment)
            do {
                return try WebServiceClient(settings: settings)
            } catch let failure as UpdateFailure {
                throw CLIError("--ca-file: \(failure.detail)", status: .noInput)
            } catch {
                throw CLIError("--ca-file: \(error)", status: .noInput)
            }
    }
}

/// "Checking passes: 120/1000" on stderr, only on a terminal.
private final class UpdateProgress: @unchecked Sendable {
    private let enabled: Bool
    private let noun: String
    private let lock = NSLock()
    private var shown = false
    private var lastDraw: ContinuousClock.Instant?

    init(enabled: Bool, noun: String) {
        self.enabled = enabled
        self.noun = noun
    }

    func update(_ done: Int, _ total: Int) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = ContinuousClock.now
        guard lastDraw.map({ now - $0 >= .milliseconds(100) }) ?? true || done == total else { return }
        lastDraw = now
        FileHandle.standardError.write(Data("\r\u{1B}[KChecking \(noun): \(done)/\(total)".utf8))
        shown = true
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        guard shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}

/// The text line and the JSON object of one check.
enum UpdateOutcomeText {
    static func line(_ o: UpdateOutcome, terminal: Terminal, verbose: Bool) -> String {
        var text = "\(o.id): "
        switch o.kind {
        case .updated:
            let messages = o.changes.compactMap(\.message)
            let fields = o.changes.map { $0.label ?? $0.key }
            text += terminal.green("updated")
            if !messages.isEmpty {
                text += " — " + messages.joined(separator: " ")
            } else if !fields.isEmpty {
                text += " — changed: " + fields.joined(separator: ", ")
            }
        case .unchanged:
            text += "no newer version"
        case .refused:
            text += terminal.red("refused") + " — " + (o.error?.message ?? "")
        case .failed:
            text += terminal.yellow("failed") + " — " + (o.error?.message ?? "")
        case .skipped:
            text += o.unregistered == true ? "unregistered from its issuer (you removed it)" : "skipped — " + (o.error?.message ?? "")
        }
        if let http = o.http, o.kind != .unchanged || verbose { text += terminal.dim(" (HTTP \(http))") }
        if o.registered == true { text += terminal.dim(" [registered]") }
        if o.registered == false { text += terminal.dim(" [registration failed]") }
        if verbose, let detail = o.error?.detail, !detail.isEmpty { text += "\n    " + detail }
        return sanitized(text)
    }

    /// The same outcome in the web wallet's words ("Check for update" on a pass page, issue 41
    /// item 4): what happened, for the pass's owner, without the pass's identifiers, HTTP
    /// statuses or registration marks of `update`'s log line.
    static func forPeople(_ o: UpdateOutcome) -> String {
        let text: String
        switch o.kind {
        case .updated:
            let messages = o.changes.compactMap(\.message)
            let fields = o.changes.map { $0.label ?? $0.key }
            if !messages.isEmpty {
                text = "Updated by its issuer: " + messages.joined(separator: " ")
            } else if !fields.isEmpty {
                text = "Updated by its issuer; changed: " + fields.joined(separator: ", ")
            } else {
                text = "Updated by its issuer."
            }
        case .unchanged:
            text = "This pass is up to date: its issuer has no newer version."
        case .refused:
            text = "Its issuer sent a new version that was not taken: " + (o.error?.message ?? "it could not be checked.")
        case .failed:
            text = "The check for an update did not work: " + (o.error?.message ?? "try again later.")
        case .skipped:
            text = o.unregistered == true ? "This pass no longer gets updates: it was removed from your wallet."
                                          : "Not checked: " + (o.error?.message ?? "try again later.")
        }
        return sanitized(text)
    }

    /// Server-provided texts reach the terminal: control characters other than the colour
    /// sequences this code adds become U+FFFD.
    static func sanitized(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var scalars = Array(text.unicodeScalars)[...]
        while let s = scalars.first {
            scalars = scalars.dropFirst()
            if s == "\u{1B}", scalars.first == "[" {
                // Our own SGR sequences: ESC [ digits m
                var seq: [UnicodeScalar] = [s]
                var rest = scalars
                while let c = rest.first, c == "[" || ("0"..."9").contains(c) || c == ";" { seq.append(c); rest = rest.dropFirst() }
                if rest.first == "m" { seq.append("m"); out.append(contentsOf: seq); scalars = rest.dropFirst(); continue }
            }
            if s == "\n" || (s.value >= 0x20 && s.value != 0x7F && !(0x80...0x9F).contains(s.value)
                             && !(0x202A...0x202E).contains(s.value) && !(0x2066...0x2069).contains(s.value)) {
                out.append(s)
            } else {
                out.append("\u{FFFD}")
            }
        }
        return String(out)
    }

    /// `mailbox`: the library's mailbox in a run over a map (`--library-map`), else absent.
    static func json(_ o: UpdateOutcome, mailbox: String? = nil) -> JSONOutput {
        var members: [(String, JSONOutput)] = [("schema", .int(1))]
        if let mailbox { members.append(("mailbox", .string(mailbox))) }
        members += [
            ("id", .string(o.id.description)),
            ("outcome", .string(o.kind.rawValue)),
            ("http", o.http.map { .int(Int64($0)) } ?? .null),
            ("error", o.error.map(JSONOutput.problem) ?? .null),
            ("changes", .array(o.changes.map(change))),
        ]
        if let r = o.registered { members.append(("registered", .bool(r))) }
        if let u = o.unregistered { members.append(("unregistered", .bool(u))) }
        if let retry = o.retryAfter { members.append(("retryAfter", .date(retry))) }
        return .object(members)
    }

    static func change(_ c: FieldChange) -> JSONOutput {
        .object([("key", .string(c.key)), ("label", .string(c.label)), ("old", .string(c.oldValue)),
                 ("new", .string(c.newValue)), ("message", .string(c.message))])
    }
}

/// What `show` says about a pass's last update check.
enum UpdateCheckText {
    static func line(_ state: WebServiceState?, canUpdate: Bool) -> String? {
        guard let state, let at = state.checkedAt, let outcome = state.outcome else {
            return canUpdate ? "Updates: never checked (passconduit update)" : nil
        }
        var text = "Updates: last checked \(DateText.iso(at)): \(outcome)"
        if let http = state.http { text += " (HTTP \(http))" }
        if let message = state.message, !message.isEmpty, message != outcome { text += " — " + message }
        if let retry = state.retryAfter { text += "; the issuer asked to wait until \(DateText.iso(retry))" }
        return UpdateOutcomeText.sanitized(text)
    }
}
