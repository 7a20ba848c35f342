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
                                  [--library PATH] [--config PATH] [--trust DIR]... [--lang CODE]
                                  [--verbose] [--no-color] [--check [--json]]
        Reads one message on stdin and writes it to stdout with X-Passconduit headers added.
        Exits 0 with the complete message, or 75 with no output (the mail host retries).
        An option it does not know never bounces mail: the message passes unscanned and the log
        says "not scanned: unknown option --x". Run the recipe's command line once with --check:
        it reads no message, checks the options, the config file and the trust folders, and
        exits 0 (all good), 64 (a bad option) or 78 (a bad config or trust folder) with the reason.
        --verbose adds each pass's error code and the library used to the log line.
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
