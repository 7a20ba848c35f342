/// How `passconduit filter` behaves. Defaults are the delivery-filter contract (DESIGN.md); the
/// command line and the config file may change them.
package struct FilterOptions: Sendable, Equatable {
    /// Add `X-Passconduit` headers (and remove forged ones). Off: the output is always the input.
    package var headers = true
    /// spamc's `-x`: on an internal error or at the deadline write nothing and exit 75 (the host
    /// retries later) instead of passing the message through unscanned.
    package var failClosed = false
    /// Apply a valid newer version of a pass already in the library (same id and team).
    package var applyUpdates = true
    /// Stage new valid passes as offers for the user's consent.
    package var stageOffers = true
    /// Messages larger than this pass through unscanned (still read to EOF). Stops a 1 GB message
    /// from being parsed in memory; spamc's `-s` is the precedent. Default `Limits`' 25 MiB.
    package var maxScanBytes = Limits.default.filterMaxMessageBytes
    /// Wall-clock budget for the scan and its library work, after which the message passes
    /// through. Dovecot kills a Sieve filter at 10 s; Postfix bounces at its time limit.
    package var deadlineSeconds = Limits.default.filterDeadlineSeconds
    /// The configuration file's settings (limits, library, trust folders, language), handed to
    /// ConduitSetup so the filter agrees with every other command.
    package var config = Config()
    /// `file` (`$XDG_STATE_HOME/passconduit/filter.log`), `syslog` (facility mail) or `none`.
    package var log: FilterLogDestination = .file
    /// `--library` (wins over the config file).
    package var libraryPath: String? = nil
    /// `--config`.
    package var configPath: String? = nil
    /// `--trust` folders (added after the shipped anchors and the config's folders).
    package var trustDirectories: [String] = []

    package init() {}
}

package enum FilterLogDestination: String, Sendable, Equatable {
    case file, syslog, none
}

/// `passconduit filter` arguments, parsed leniently: a filter may not exit 64 on a bad flag, so a
/// problem is recorded, the rest is still understood, and the caller decides (pass through, or 75
/// with `--fail-closed`).
package struct FilterArguments: Sendable, Equatable {
    package var options = FilterOptions()
    /// Which settings came from the command line (they win over the config file).
    package var explicit: Set<String> = []
    package var problems: [String] = []
    package var wantsHelp = false

    package static let usage = """
        usage: passconduit filter [--no-headers] [--fail-closed] [--no-updates] [--no-offers]
                                  [--max-size BYTES] [--deadline SECONDS] [--log file|syslog|none]
                                  [--library PATH] [--config PATH] [--trust DIR]...
        Reads one message on stdin and writes it to stdout with X-Passconduit headers added.
        Exits 0 with the complete message, or 75 with no output (the mail host retries).
        """

    package init(_ arguments: [String]) {
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
            case "-h", "--help": wantsHelp = true
            case "-": break    // stdin is the only input anyway
            default: problems.append("unknown argument \(arg)")
            }
            i += 1
        }
    }
}
