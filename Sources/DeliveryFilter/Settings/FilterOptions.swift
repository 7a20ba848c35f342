import Conduit

/// How `passconduit filter` behaves. Defaults are the delivery-filter contract (DESIGN.md); the
/// command line and the config file may change them.
package struct FilterOptions: Sendable, Equatable {
    /// Add `X-Passconduit` headers (and remove forged ones). Off: the output is always the input.
    package var headers = true
    /// spamc's `-x`: on an internal error or at the deadline write nothing and exit 75 (the host
    /// retries later) instead of passing the message through unscanned.
    package var failClosed = false
    /// `--on-library-error`: what a library that cannot be used (down, refusing the login,
    /// read-only, locked, damaged) does to the mail. `accept` (the default): the message is
    /// delivered with the headers a recipient without a library gets, and the log names the
    /// library; `tempfail`: nothing is delivered, the host retries (exit 75, the milter's 451).
    package var onLibraryError: LibraryErrorPolicy = .accept
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
    /// `--no-library` clears it: the passes are found and verified for the headers (their
    /// verdicts) and no library is opened or created (a mailbox that has none).
    package var opensLibrary = true
    /// `--user`: whose library on a PostgreSQL server that keeps many users' libraries (a file
    /// library belongs to one user and ignores it), as every other command takes it.
    package var libraryUser: String? = nil
    /// `--config`.
    package var configPath: String? = nil
    /// `--trust` folders (added after the shipped anchors and the config's folders).
    package var trustDirectories: [String] = []
    /// `--lang` (wins over the config file's `language`).
    package var language: String? = nil
    /// `--verbose`: the log line also gives each pass's error code and the library used.
    package var verbose = false

    package init() {}

    /// Whether a library error makes the mail wait: `--on-library-error tempfail`, or
    /// `--fail-closed` (which fails closed on every internal error, a library's included).
    package var tempfailsOnLibraryError: Bool { onLibraryError == .tempfail || failClosed }
}

/// What a library that cannot be used does to the mail (`--on-library-error`).
package enum LibraryErrorPolicy: String, Sendable, Equatable, CaseIterable {
    /// Deliver (with the headers of a recipient without a library) and log the library's failure.
    case accept
    /// Deliver nothing now: the host retries later.
    case tempfail
}

/// Filter settings from the configuration file (`Config`, `[filter]`, `[limits]`, `[library]`,
/// `[trust]`, `language`). Command-line flags win. A broken config must not bounce mail: the
/// problem is returned and the caller passes the message through (or fails closed, 75) — never
/// EX_CONFIG (78), which Postfix bounces.
package enum FilterConfiguration {
    package static func apply(to options: inout FilterOptions, explicit: Set<String>, environment: [String: String]) -> FilterError? {
        let config: Config
        do {
            config = try Config.load(explicitPath: options.configPath, environment: environment)
        } catch {
            return FilterError(.badConfig, detail: error.description)
        }
        apply(config, to: &options, explicit: explicit, environment: environment)
        return nil
    }

    package static func apply(_ config: Config, to options: inout FilterOptions, explicit: Set<String>, environment: [String: String]) {
        options.config = config
        if let language = options.language { options.config.language = language }
        if !explicit.contains("maxScanBytes") { options.maxScanBytes = config.limits.filterMaxMessageBytes }
        if !explicit.contains("deadlineSeconds") { options.deadlineSeconds = config.limits.filterDeadlineSeconds }
        if !explicit.contains("applyUpdates") { options.applyUpdates = config.filter.applyUpdates }
        if !explicit.contains("headers") { options.headers = config.filter.addHeaders }
        if !explicit.contains("onLibraryError") { options.onLibraryError = config.filter.tempfailOnLibraryError ? .tempfail : .accept }
    }
}
