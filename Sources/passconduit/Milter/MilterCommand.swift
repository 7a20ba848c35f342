import ArgumentParser
import Conduit
import DeliveryFilter
import Foundation
import Milter
import PassStore
import Support
#if canImport(Glibc)
import Glibc
#endif

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
        removed, on every path that accepts the message). It only ever adds and changes headers: \
        it never rejects or discards mail, and it delays mail only when told to: on an internal \
        failure or at the deadline the message is accepted unscanned (--on-error tempfail answers \
        4xx instead, so the client retries), and when a recipient's library cannot be used (a \
        server that is down or refuses the login, a read-only or locked file) the message is \
        accepted with the headers of a recipient without a library and the log names the library \
        (--on-library-error tempfail answers "451 4.3.0 pass library unavailable" instead: every \
        message with a pass then waits for as long as that library is down). A message for \
        recipients without a library is never delayed by a library.

        With several recipients the X-Passconduit headers, which every copy carries, say only what \
        is true for all: the passes and their verdicts. What each recipient's library holds and \
        what was done there (offered, updated) goes to that library and to the log line, one \
        library="…" entry per library.

        Offers and updates go to each recipient's own library, found through a path template \
        (--library-map, or "library-map" under [milter] in the config file), used only if that \
        library file exists; a recipient without one gets headers only. A map starting \
        postgresql:// names one PostgreSQL server: the recipient (local@domain, lower-cased) is \
        the library user, and only a user the server already holds a library for gets offers. \
        --library PATH makes every recipient share one library. Give a server's password in \
        PGPASSFILE (or ~/.pgpass), not in the map: ps shows a command line, and the config file \
        is readable by all; the log and every message print a location without its password.

        SIGTERM or SIGINT: stop accepting, finish the messages in progress, exit. SIGHUP: \
        re-read the config file. One log line per message ($XDG_STATE_HOME/passconduit/milter.log, \
        or syslog facility mail with --log syslog).

        Postfix (main.cf), with the milter on loopback (--listen inet:10025@127.0.0.1):
          smtpd_milters = inet:127.0.0.1:10025
          milter_default_action = accept
        A systemd unit and a main.cf snippet are in \
        /usr/share/doc/passconduit/examples/integrations/ (Samples/integrations/ in the source tree).

        Example:
          passconduit milter --listen inet:10025@127.0.0.1 \\
            --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite'
        """,
        version: Passconduit.version)

    @Option(name: .long, help: ArgumentHelp("Where to listen: unix:PATH, inet:PORT@HOST or inet:PORT (loopback).", valueName: "address"))
    var listen: String

    @Option(name: .long, help: ArgumentHelp("One library for every recipient.", valueName: "path"))
    var library: String?

    @Option(name: .long, help: ArgumentHelp("Each recipient's library: a path with %{local} and %{domain}, or a postgresql:// server (recipient = user).", valueName: "template"))
    var libraryMap: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: $XDG_CONFIG_HOME/passconduit/config.toml, else /etc/passconduit/config.toml).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("A folder of extra trust anchors (PEM or DER); repeatable.", valueName: "dir"))
    var trust: [String] = []

    @Option(name: .long, help: ArgumentHelp("Preferred language for pass texts, e.g. de.", valueName: "code"))
    var lang: String?

    @Option(name: .long, help: ArgumentHelp("On a scan failure or at the deadline: accept (unchanged) or tempfail (4xx).", valueName: "action"))
    var onError: String = "accept"

    @Option(name: .long, help: ArgumentHelp("When a recipient's library cannot be used: accept (headers without its state, the log names it) or tempfail (451 4.3.0, the client retries: delays mail while the library is down). Default: the config's on-library-error, else accept.", valueName: "action"))
    var onLibraryError: String?

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

    @Option(name: .long, help: ArgumentHelp("Characters that start an address extension, as Postfix's recipient_delimiter: with +, alice+travel@example.org uses alice@example.org's library.", valueName: "chars"))
    var recipientDelimiter: String?

    @Option(name: .long, help: ArgumentHelp("The Unix socket's mode, in octal (default 0660).", valueName: "mode"))
    var socketMode: String?

    @Option(name: .long, help: ArgumentHelp("The Unix socket's group, a name or number (default: the daemon's): the MTA's user must be in it.", valueName: "group"))
    var socketGroup: String?

    @Option(name: .long, help: ArgumentHelp("On an inet listener, also serve clients in this network (ADDR or ADDR/BITS); repeatable. Others than loopback are refused by default.", valueName: "network"))
    var allow: [String] = []

    @Option(name: .long, help: ArgumentHelp("Scan only mail to these domains (example.org,example.net) or to the domains listed in a file (an absolute path, one a line, # comments): a message for none of them (outbound, relayed) is left untouched. Re-read on SIGHUP.", valueName: "domains"))
    var domains: String?

    @Option(name: .long, help: ArgumentHelp("Serve counters in the Prometheus text format at http://HOST:PORT/metrics (messages, passes, library outcomes and errors, scan time, worker restarts).", valueName: "host:port"))
    var metrics: String?

    @Option(name: .long, help: ArgumentHelp("Started as root: bind the socket and the metrics listener, then become this user (and its groups) before reading any mail or starting a worker. Not root; only when started as root. Default: user under [milter] in the config file.", valueName: "user"))
    var user: String?

    @Option(name: .long, help: ArgumentHelp("With --user: the group to become (default: group under [milter], else the user's own). The Unix socket gets it unless --socket-group says otherwise.", valueName: "group"))
    var group: String?

    @Option(name: .long, help: ArgumentHelp("Seconds SIGTERM waits for the messages in progress to be scanned (default 30); then they are accepted unscanned, forged X-Passconduit fields removed (4xx with --on-error tempfail).", valueName: "seconds"))
    var grace: Double = 30

    @Flag(name: .long, help: "Check the configuration, trust anchors, library map, socket path and one library, say what is wrong, and exit (0 ok, 78 configuration, 73 library, 75 library server down): for ExecStartPre and ExecReload.")
    var check = false

    func validate() throws {
        guard MilterAddress(listen) != nil else {
            throw ValidationError("--listen wants unix:/absolute/path, inet:PORT@HOST or inet:PORT, not \(listen)")
        }
        guard MilterSettings.OnError(rawValue: onError) != nil else { throw ValidationError("--on-error wants accept or tempfail, not \(onError)") }
        if let onLibraryError, LibraryErrorPolicy(rawValue: onLibraryError) == nil {
            throw ValidationError("--on-library-error wants accept or tempfail, not \(onLibraryError)")
        }
        guard FilterLogDestination(rawValue: log) != nil else { throw ValidationError("--log wants file, syslog or none, not \(log)") }
        if let deadline, !(deadline.isFinite && deadline >= 0 && deadline <= 3600) { throw ValidationError("--deadline wants seconds (0...3600)") }
        if let maxSize, maxSize < 0 { throw ValidationError("--max-size wants a byte count") }
        guard timeout.isFinite, timeout > 0 else { throw ValidationError("--timeout wants seconds above 0") }
        guard maxSessions > 0, scanThreads > 0, scanThreads <= 256 else { throw ValidationError("--max-sessions and --scan-threads want a count above 0") }
        if library != nil && libraryMap != nil { throw ValidationError("--library and --library-map exclude each other") }
        if let metrics, Self.hostPort(metrics) == nil { throw ValidationError("--metrics wants HOST:PORT (127.0.0.1:9125, [::1]:9125), not \(metrics)") }
        if let socketMode, Self.mode(socketMode) == nil { throw ValidationError("--socket-mode wants an octal mode such as 0660, not \(socketMode)") }
        if let socketGroup, Self.group(socketGroup) == nil { throw ValidationError("--socket-group: there is no group \(socketGroup)") }
        for range in allow {
            do { _ = try AddressRange.parse(range, option: "--allow") } catch { throw ValidationError(error.description) }
        }
        guard grace.isFinite, grace >= 0, grace <= 3600 else { throw ValidationError("--grace wants seconds (0...3600)") }
        if let user, case .failure(let problem) = MilterPrivileges.resolve(user: user, group: group, euid: 0), problem.usage {
            throw ValidationError(problem.sentence)
        }
    }

    /// `127.0.0.1:9125` or `[::1]:9125`.
    static func hostPort(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("/") else { return nil }
        return (host, port)
    }

    /// `0660` or `660` as a mode (permission bits only).
    static func mode(_ text: String) -> mode_t? {
        guard let value = UInt32(text, radix: 8), value <= 0o777 else { return nil }
        return mode_t(value)
    }

    static func group(_ text: String) -> gid_t? {
        if let entry = getgrnam(text) { return entry.pointee.gr_gid }
        return gid_t(text)
    }

    /// The domains `--domains` names, lower case: a comma-separated list, or a file of them.
    static func domains(_ text: String) -> Result<Set<String>, FilterError> {
        var names: [Substring]
        if text.hasPrefix("/") {
            guard let data = FileManager.default.contents(atPath: text) else {
                return .failure(FilterError(.badConfig, detail: "--domains \(text): the file cannot be read"))
            }
            names = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map { line in
                (line.firstIndex(of: "#").map { line[..<$0] } ?? line[...]).trimmingCharacters(in: .whitespaces)[...]
            }
        } else {
            names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces)[...] }
        }
        names.removeAll { $0.isEmpty }
        if let bad = names.first(where: { $0.contains("@") || $0.contains("/") || $0.contains(" ") || $0.utf8.contains { $0 < 0x21 || $0 == 0x7F } }) {
            return .failure(FilterError(.badConfig, detail: "--domains: “\(FilterLog.printable(String(bad)))” is not a domain"))
        }
        guard !names.isEmpty else {
            return .failure(FilterError(.badConfig, detail: "--domains \(text): names no domain (every message would pass unscanned)"))
        }
        return .success(Set(names.map { $0.lowercased() }))
    }

    func run() throws {
        let environment = FilterEnvironment.resolve(FilterCommand.currentEnvironment())
        // Kept open for the daemon's life: workers start from it even after an upgrade replaced the file.
        MilterWorkerCommand.openExecutable()
        let first = settings(environment: environment)
        let settings: MilterSettings
        switch first {
        case .success(let s): settings = s
        case .failure(let problem):
            // A broken configuration at start is EX_CONFIG with the reason (on SIGHUP it is logged).
            Self.say("passconduit milter: \(problem.detail)")
            throw ExitCode(ExitStatus.configError.rawValue)
        }
        // `validate` checked the address.
        guard let address = MilterAddress(listen) else { throw ExitCode.validationFailure }
        var privileges: MilterPrivileges?
        let (user, group) = (self.user ?? settings.filter.config.milterUser, self.group ?? settings.filter.config.milterGroup)
        if group != nil && user == nil {
            Self.say("passconduit milter: a group (--group, or group under [milter]) goes with a user (--user, or user under [milter])")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        if let user {
            switch MilterPrivileges.resolve(user: user, group: group) {
            case .success(let p): privileges = p
            case .failure(let problem):
                Self.say("passconduit milter: \(problem.sentence)")
                throw ExitCode(ExitStatus(problem.problem.code).rawValue)
            }
        }
        if let privileges, settings.filter.log == .file, let path = MilterServer.log(for: settings).path {
            // Written by the user after the drop: the file and the folders made for it are theirs.
            privileges.prepareLog(path)
        }
        // A log that cannot be written would lose every line in silence: say so now (73).
        if let problem = MilterServer.log(for: settings).problem() {
            Self.say("passconduit milter: \(problem) (give --log syslog or --log none, or a writable XDG_STATE_HOME)")
            throw ExitCode(ExitStatus.cannotCreate.rawValue)
        }
        if check { throw ExitCode(MilterCheck.run(settings: settings, address: address).rawValue) }
        let command = self
        let problem = MilterDaemon.run(address: address, settings: settings, graceSeconds: grace, metrics: metrics.flatMap(Self.hostPort),
                                      privileges: privileges) {
            command.settings(environment: environment)
        }
        throw ExitCode(problem.map { ExitStatus($0.code) }?.rawValue ?? ExitStatus.success.rawValue)
    }

    static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
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
        if let onLibraryError { a += ["--on-library-error", onLibraryError] }
        // --on-error tempfail fails closed on every internal error, a library's included.
        if onError == MilterSettings.OnError.tempfail.rawValue { a += ["--on-library-error", "tempfail"] }
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
        if let p = onLibraryError.flatMap(LibraryErrorPolicy.init(rawValue:)) { options.onLibraryError = p; explicit.insert("onLibraryError") }
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
            if let problem = LibraryMap.problem(template: template) {
                return .failure(FilterError(.badConfig, detail: "library-map \(LibraryLocation.withoutPassword(template)): \(problem)"))
            }
            settings.libraryMap = .template(template)
        }
        if let recipientDelimiter {
            guard !recipientDelimiter.isEmpty, recipientDelimiter.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x40 }) else {
                return .failure(FilterError(.badConfig, detail: "--recipient-delimiter wants printable characters other than @, as Postfix's recipient_delimiter"))
            }
            settings.recipientDelimiter = recipientDelimiter
        }
        settings.onError = MilterSettings.OnError(rawValue: onError) ?? .accept
        settings.sessionTimeoutSeconds = timeout
        settings.maxSessions = maxSessions
        settings.scanThreads = scanThreads
        if let socketMode, let mode = Self.mode(socketMode) { settings.socketMode = mode }
        if let socketGroup { settings.socketGroup = Self.group(socketGroup) }
        if let user = user ?? options.config.milterUser,
           let p = try? MilterPrivileges.resolve(user: user, group: group ?? options.config.milterGroup, euid: 0).get() {
            // The socket is the daemon's once it is that user: its owner, and its group unless --socket-group.
            settings.socketOwner = p.uid
            if settings.socketGroup == nil { settings.socketGroup = p.gid }
        }
        settings.allowedClients = allow.compactMap { try? AddressRange.parse($0, option: "--allow") }
        if let domains {
            switch Self.domains(domains) {
            case .success(let set): settings.localDomains = set
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(settings)
    }
}
