import ArgumentParser
import Conduit
import DeliveryFilter
import Milter
import PassStore

/// `passconduit milter`: the delivery filter as a milter daemon for Postfix and Sendmail.
struct MilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "milter",
        _superCommandName: "passconduit",
        abstract: "Run the delivery filter as a milter for Postfix or Sendmail (a daemon).",
        discussion: """
        Speaks the Sendmail milter protocol (version 6) on a Unix socket or a TCP port. For each \
        message the MTA hands over, it does what "passconduit filter" does: the same scanner, \
        limits, deadline and X-Passconduit headers (inserted at the top; forged incoming ones \
        removed). It only ever adds and changes headers: it never rejects, discards or delays \
        mail. On an internal failure or at the deadline the message is accepted unchanged \
        (--on-error tempfail answers 4xx instead, so the client retries).

        Offers and updates go to each recipient's own library, found through a path template \
        (--library-map, or "library-map" under [milter] in the config file), used only if that \
        library file exists; a recipient without one gets headers only. A map starting \
        postgresql:// names one PostgreSQL server: the recipient (local@domain, lower-cased) is \
        the library user, and only a user the server already holds a library for gets offers. \
        --library PATH makes every recipient share one library.

        SIGTERM or SIGINT: stop accepting, finish the messages in progress, exit. SIGHUP: \
        re-read the config file. One log line per message ($XDG_STATE_HOME/passconduit/milter.log, \
        or syslog facility mail with --log syslog).

        Postfix (main.cf), with the milter on loopback (--listen inet:10025@127.0.0.1):
          smtpd_milters = inet:127.0.0.1:10025
          milter_default_action = accept
        A systemd unit and a main.cf snippet are in Samples/integrations/.

        Example:
          passconduit milter --listen inet:10025@127.0.0.1 \\
            --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite'
        """)

    @Option(name: .long, help: ArgumentHelp("Where to listen: unix:PATH, inet:PORT@HOST or inet:PORT (loopback).", valueName: "address"))
    var listen: String

    @Option(name: .long, help: ArgumentHelp("One library for every recipient.", valueName: "path"))
    var library: String?

    @Option(name: .long, help: ArgumentHelp("Each recipient's library: a path with %{local} and %{domain}, or a postgresql:// server (recipient = user).", valueName: "template"))
    var libraryMap: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: $XDG_CONFIG_HOME/passconduit/config.toml).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("A folder of extra trust anchors (PEM or DER); repeatable.", valueName: "dir"))
    var trust: [String] = []

    @Option(name: .long, help: ArgumentHelp("Preferred language for pass texts, e.g. de.", valueName: "code"))
    var lang: String?

    @Option(name: .long, help: ArgumentHelp("On a scan failure or at the deadline: accept (unchanged) or tempfail (4xx).", valueName: "action"))
    var onError: String = "accept"

    @Option(name: .long, help: ArgumentHelp("Seconds a scan may take (default: the filter's, 5).", valueName: "seconds"))
    var deadline: Double?

    @Option(name: .long, help: ArgumentHelp("Messages larger than this pass unscanned (default: the filter's, 25 MiB).", valueName: "bytes"))
    var maxSize: Int?

    @Option(name: .long, help: ArgumentHelp("Seconds a session may stay silent before it is closed.", valueName: "seconds"))
    var timeout: Double = 300

    @Option(name: .long, help: ArgumentHelp("Sessions served at once.", valueName: "count"))
    var maxSessions: Int = 512

    @Option(name: .long, help: ArgumentHelp("Scans run at once.", valueName: "count"))
    var scanThreads: Int = 4

    @Option(name: .long, help: ArgumentHelp("Where the one line per message goes: file, syslog or none.", valueName: "where"))
    var log: String = "file"

    @Flag(name: .long, help: "Add no headers (offers and updates still happen).")
    var noHeaders = false

    @Flag(name: .long, help: "Stage no offers.")
    var noOffers = false

    @Flag(name: .long, help: "Apply no updates (offer newer versions instead).")
    var noUpdates = false

    @Flag(name: [.short, .long], help: "Each pass's error code in the log.")
    var verbose = false

    func validate() throws {
        guard MilterAddress(listen) != nil else {
            throw ValidationError("--listen wants unix:/absolute/path, inet:PORT@HOST or inet:PORT, not \(listen)")
        }
        guard MilterSettings.OnError(rawValue: onError) != nil else { throw ValidationError("--on-error wants accept or tempfail, not \(onError)") }
        guard FilterLogDestination(rawValue: log) != nil else { throw ValidationError("--log wants file, syslog or none, not \(log)") }
        if let deadline, !(deadline.isFinite && deadline >= 0 && deadline <= 3600) { throw ValidationError("--deadline wants seconds (0...3600)") }
        if let maxSize, maxSize < 0 { throw ValidationError("--max-size wants a byte count") }
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout wants seconds above 0") }
        guard maxSessions > 0, scanThreads > 0, scanThreads <= 256 else { throw ValidationError("--max-sessions and --scan-threads want a count above 0") }
        if library != nil && libraryMap != nil { throw ValidationError("--library and --library-map exclude each other") }
    }

    func run() throws {
        let environment = FilterEnvironment.resolve(FilterCommand.currentEnvironment())
        let first = settings(environment: environment)
        let settings: MilterSettings
        switch first {
        case .success(let s): settings = s
        case .failure(let problem):
            throw ValidationError(problem.detail)   // at start a broken config is a usage error; on SIGHUP it is logged
        }
        // `validate` checked the address.
        guard let address = MilterAddress(listen) else { throw ExitCode.validationFailure }
        let command = self
        let status = MilterDaemon.run(address: address, settings: settings) { command.settings(environment: environment) }
        throw ExitCode(status)
    }

    /// The scan worker's `passconduit filter` options: what decides how a message is scanned.
    /// The library is not among them (each request names the recipients'), nor the log.
    var workerArguments: [String] {
        var a: [String] = []
        if let config { a += ["--config", config] }
        for t in trust { a += ["--trust", t] }
        if let lang { a += ["--lang", lang] }
        if let deadline { a += ["--deadline", "\(deadline)"] }
        if let maxSize { a += ["--max-size", "\(maxSize)"] }
        if noUpdates { a.append("--no-updates") }
        if noOffers { a.append("--no-offers") }
        return a
    }

    /// The command line over the config file over the filter's defaults.
    func settings(environment: [String: String]) -> Result<MilterSettings, FilterError> {
        var options = FilterOptions()
        var explicit: Set<String> = []
        options.configPath = config
        options.trustDirectories = trust
        options.language = lang
        options.libraryPath = library
        options.verbose = verbose
        // validate() checked both raw values.
        options.log = FilterLogDestination(rawValue: log) ?? .file
        if let deadline { options.deadlineSeconds = deadline; explicit.insert("deadlineSeconds") }
        if let maxSize { options.maxScanBytes = maxSize; explicit.insert("maxScanBytes") }
        if noHeaders { options.headers = false; explicit.insert("headers") }
        if noUpdates { options.applyUpdates = false; explicit.insert("applyUpdates") }
        if noOffers { options.stageOffers = false }
        if let problem = FilterConfiguration.apply(to: &options, explicit: explicit, environment: environment) {
            return .failure(problem)
        }
        var settings = MilterSettings(filter: options, environment: environment,
                                      worker: MilterWorkerCommand.command(filterArguments: workerArguments, environment: environment))
        if let library {
            settings.libraryMap = .shared(library)
        } else if let template = libraryMap ?? options.config.milterLibraryMap {
            // On a server the recipient is the user: a fixed library_user= would send every
            // recipient's offers to one library.
            if LibraryMap.isServer(template) && template.contains("library_user=") {
                return .failure(FilterError(.badConfig, detail: "library-map: a postgresql:// map takes the recipient as the user; remove library_user="))
            }
            settings.libraryMap = .template(template)
        }
        settings.onError = MilterSettings.OnError(rawValue: onError) ?? .accept
        settings.sessionTimeoutSeconds = timeout
        settings.maxSessions = maxSessions
        settings.scanThreads = scanThreads
        return .success(settings)
    }
}
