import DeliveryFilter

/// `passconduit filter` arguments, parsed leniently: a filter may not exit 64 on a bad flag, so a
/// problem is recorded, the rest is still understood, and the caller decides (pass through, or 75
/// with `--fail-closed`).
struct FilterArguments: Sendable, Equatable {
    var options = FilterOptions()
    /// Which settings came from the command line (they win over the config file).
    var explicit: Set<String> = []
    var problems: [String] = []
    var wantsHelp = false
    /// `--check`: validate the arguments and the configuration, say so, exit (no message is read).
    var wantsCheck = false
    /// `--json`: the `--check` report as one JSON object (the filter's own output is the message).
    var json = false

    static let usage = """
        usage: passconduit filter [--no-headers] [--fail-closed] [--no-updates] [--no-offers]
                                  [--max-size BYTES] [--deadline SECONDS] [--log file|syslog|none]
                                  [--library PATH] [--no-library] [--user NAME]
                                  [--on-library-error accept|tempfail]
                                  [--config PATH] [--trust DIR]... [--lang CODE]
                                  [--verbose] [--no-color] [--check [--json]]
        Reads one message on stdin and writes it to stdout with X-Passconduit headers added.
        Exits 0 with the complete message, or 75 with no output (the mail host retries).
        An option it does not know never bounces mail: the message passes unscanned and the log
        says "not scanned: unknown option --x". Run the recipe's command line once with --check:
        it reads no message, checks the options, the config file, the trust folders and the
        library, and exits 0 (all good), 64 (a bad option), 78 (a bad config or trust folder),
        73 (a library that cannot be opened or created) or 75 (a library server that is down or
        refuses the login) with the reason.
        --verbose adds each pass's error code and the library used to the log line.
        A library that cannot be used (a server that is down or refuses the login, a read-only or
        locked file): with --on-library-error accept (the default, or on-library-error under
        [filter] in the config) the message is delivered with the headers a mailbox without a
        library gets, the offer is lost and the log names the library; with tempfail (and with
        --fail-closed) nothing is written and the exit is 75, so the host keeps the mail and
        retries: that delays mail for as long as the library is down. --user NAME picks whose
        library on a PostgreSQL server. --no-library (a mailbox without a library): the passes
        are still found and verified, the headers give their verdicts, no library is opened or
        created, nothing is offered. Put a server's password in PGPASSFILE (or ~/.pgpass), not on
        a command line (ps shows it) or in the config file (readable by all); logs and messages
        never show it.
        """

    init(_ arguments: [String]) {
        var i = 0
        func value(_ flag: String) -> String? {
            if i + 1 < arguments.count { i += 1; return arguments[i] }
            problems.append("\(flag) needs a value")
            return nil
        }
        while i < arguments.count {
            var arg = arguments[i]
            var inline: String? = nil
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                inline = String(arg[arg.index(after: eq)...])
                arg = String(arg[..<eq])
            }
            func take() -> String? { inline ?? value(arg) }
            switch arg {
            case "--no-headers": options.headers = false; explicit.insert("headers")
            case "--headers": options.headers = true; explicit.insert("headers")
            case "--fail-closed", "-x": options.failClosed = true; explicit.insert("failClosed")
            case "--no-updates": options.applyUpdates = false; explicit.insert("applyUpdates")
            case "--no-offers": options.stageOffers = false; explicit.insert("stageOffers")
            case "--max-size":
                if let v = take() {
                    if let n = Int(v), n >= 0 { options.maxScanBytes = n; explicit.insert("maxScanBytes") }
                    else { problems.append("--max-size wants a byte count, not \(v)") }
                }
            case "--deadline":
                if let v = take() {
                    if let s = Double(v), s.isFinite, s >= 0, s <= 3600 { options.deadlineSeconds = s; explicit.insert("deadlineSeconds") }
                    else { problems.append("--deadline wants seconds (0...3600), not \(v)") }
                }
            case "--log":
                if let v = take() {
                    if let d = FilterLogDestination(rawValue: v) { options.log = d; explicit.insert("log") }
                    else { problems.append("--log wants file, syslog or none, not \(v)") }
                }
            case "--library": if let v = take() { options.libraryPath = v; explicit.insert("libraryPath") }
            case "--no-library": options.opensLibrary = false
            case "--user": if let v = take() { options.libraryUser = v }
            case "--on-library-error":
                if let v = take() {
                    if let p = LibraryErrorPolicy(rawValue: v) { options.onLibraryError = p; explicit.insert("onLibraryError") }
                    else { problems.append("--on-library-error wants accept or tempfail, not \(v)") }
                }
            case "--config": if let v = take() { options.configPath = v }
            case "--trust": if let v = take() { options.trustDirectories.append(v) }
            case "--lang": if let v = take() { options.language = v; explicit.insert("language") }
            case "--verbose", "-v": options.verbose = true
            case "--json": json = true
            case "--no-color": break   // the filter never colours anything
            case "--check": wantsCheck = true
            case "-h", "--help": wantsHelp = true
            case "-": break    // stdin is the only input anyway
            default: problems.append(arg.hasPrefix("-") ? "unknown option \(arg)" : "unexpected argument \(arg)")
            }
            i += 1
        }
    }
}
