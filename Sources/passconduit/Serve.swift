import ArgumentParser
import Barcodes
import Conduit
import Foundation
import LibraryRoot
import MailboxLogin
import PassStore
import PassUpdate
import Updates
import PassWeb
import Support
import WalletPass

/// `passconduit serve`: the web wallet. The composition root's part: which library each
/// signed-in user gets, the barcode encoder, the password checker, where sessions live.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        _superCommandName: "passconduit",
        abstract: "The web wallet: your passes and offers in a browser.",
        discussion: """
        Without --auth it is a desktop wallet: it listens on this machine only and prints a \
        one-time sign-in link ("Sign in: http://127.0.0.1:PORT/login?token=…"); opening it signs \
        that browser in to your own library.

        --auth header:NAME --trusted-proxy ADDR[/BITS]: behind a reverse proxy that signs people \
        in (oauth2-proxy, Authelia, a webmail's single sign-on) and names the user in header NAME; \
        the header is believed only from the trusted proxy addresses.
        --auth imap://HOST[:PORT] or imaps://HOST[:PORT]: a sign-in form checked against the \
        mailbox server (STARTTLS is required unless HOST is this machine). Failed sign-ins are \
        throttled per account and client address: 5 in 15 minutes from one client, 30 from one \
        client over all accounts; past 50 for one account from anywhere, one try every 10 seconds \
        (never a lock). Behind a reverse proxy give --trusted-proxy (unix for a unix:PATH \
        listener), so its X-Forwarded-For names the client. "passconduit library throttles" \
        lists and clears the counters.

        With --auth each signed-in address gets its own library: --library-map TEMPLATE \
        (the milter's rule, e.g. /var/lib/passconduit/%{local}@%{domain}/library.sqlite, used only \
        where that file exists), or a PostgreSQL --library whose library users are the addresses.

        Listening beyond this machine needs --tls-cert and --tls-key, or --auth header:… behind \
        a proxy that does TLS. Behind a proxy that does TLS, --public-url https://HOST[:PORT] names \
        the address people open: the session cookie is then Secure, and the calendar address, \
        the API example and the Origin check use it (or the proxy's X-Forwarded-Proto, believed \
        only from a --trusted-proxy address). Sessions, failed sign-ins, calendar addresses and API tokens are \
        kept where the library lives: in web-sessions.sqlite beside a library file (--state to \
        choose), or in the database of a PostgreSQL library; so several servers share them and a \
        restart signs nobody out.

        "Check for update" on a pass page asks the pass's issuer over https, and only at a public \
        address (never this server's own network: loopback, private, link-local); \
        --update-allow-host HOST lets a test server through.

        The Settings page makes a calendar subscription address (webcal://HOST/calendar/SECRET.ics: \
        what "passconduit calendar" writes, for calendar programs; with ?alarm=3h or ?alarm=kind \
        its events remind as with "calendar --alarm") and API tokens for the JSON API \
        under /api/v1/ (Authorization: Bearer TOKEN; the passes as "list --json" and "show --json" \
        write them).

        Each of these flags may be set instead in the [serve] section of the configuration file \
        (listen, auth, trusted-proxy, library-map, public-url, tls-cert, tls-key, state); a flag wins over its \
        setting. Without --config the file is \
        $XDG_CONFIG_HOME/passconduit/config.toml, else /etc/passconduit/config.toml.

        SIGHUP re-reads the configuration file and reloads the trust anchors (--trust and its \
        [trust] directories); a file with a mistake keeps the old ones, and the other settings \
        are read at start. On a terminal SIGHUP (the terminal closing) stops it, as SIGTERM and \
        SIGINT do.

        One line per request goes to standard output: method, route, status, time, client address; \
        and a line for each refused or throttled sign-in ("sign-in throttled: account=… client=… \
        reason=…") and each mail server that cannot be reached.

        Examples:
          passconduit serve
          passconduit serve --listen 127.0.0.1:8081 --auth header:X-Forwarded-User --trusted-proxy 127.0.0.1 \\
            --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite'
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Where to listen: HOST:PORT, [IPv6]:PORT or unix:PATH (default 127.0.0.1:8080; port 0: any free port).", valueName: "address"))
    var listen: String?

    @Option(name: .long, help: ArgumentHelp("How people sign in: header:NAME, imap://HOST[:PORT] or imaps://HOST[:PORT] (default: a one-time link, this machine only).", valueName: "mode"))
    var auth: String?

    @Option(name: .long, help: ArgumentHelp("A reverse proxy's address or network (or unix: the proxy on a unix:PATH listener): its X-Forwarded-For names the client and X-Forwarded-Proto the scheme, and with --auth header:… its user header is believed; repeatable.", valueName: "addr[/bits]"))
    var trustedProxy: [String] = []

    @Option(name: .long, help: ArgumentHelp("The address people open, when a proxy in front does TLS: https://HOST[:PORT] (Secure cookie, links, Origin check).", valueName: "url"))
    var publicURL: String?

    @Option(name: .long, help: ArgumentHelp("With --auth header:…, where the sign-in proxy's session ends: the wallet's \"Sign out\" page links to it.", valueName: "url"))
    var proxyLogoutURL: String?

    @Option(name: .long, help: ArgumentHelp("HTTPS: the certificate chain (PEM).", valueName: "pem"))
    var tlsCert: String?

    @Option(name: .long, help: ArgumentHelp("HTTPS: the private key (PEM).", valueName: "pem"))
    var tlsKey: String?

    @Option(name: .long, help: ArgumentHelp("One library per signed-in address: a file template with %{local} and %{domain}, or postgresql://… (the milter's library map).", valueName: "template"))
    var libraryMap: String?

    @Option(name: .long, help: ArgumentHelp("\"Check for update\" may contact this host (a name or address) as \"update\" does, also over http or on this server's own network (a test server); repeatable.", valueName: "host"))
    var updateAllowHost: [String] = []

    @Option(name: .long, help: ArgumentHelp("How many uploads are checked at once, two per person; more are asked to try again (default 4).", valueName: "n"))
    var uploadsAtOnce: Int?

    @Option(name: .long, help: ArgumentHelp("Seconds the check of one upload may take; past it nothing of the file is added (default 30).", valueName: "seconds"))
    var uploadSeconds: Int?

    @Option(name: .long, help: ArgumentHelp("The file that keeps sessions, failed sign-ins, calendar addresses and API tokens (default: web-sessions.sqlite beside a library file; a PostgreSQL library keeps them in its database).", valueName: "path"))
    var state: String?

    /// The IMAP sign-in's checker for an `--auth imap://…|imaps://…` value: MailboxLogin's
    /// IMAP LOGIN client (a sentence when it cannot be built).
    static func mailboxChecker(_ url: String) throws -> any PasswordChecker {
        MailboxPasswordChecker(login: try IMAPLogin(url: url))
    }

    /// PassWeb's question, answered by the mailbox server.
    struct MailboxPasswordChecker: PasswordChecker {
        let login: IMAPLogin
        func check(user: String, password: String, clientAddress: String?, clientPort: Int?) async -> PasswordCheck {
            let client = clientAddress.flatMap { IMAPClientAddress(address: $0, port: clientPort) }
            switch await login.check(user: user, password: password, client: client) {
            case .accepted: return .accepted
            case .rejected: return .rejected
            case .unavailable(let reason): return .unavailable(reason: reason)
            }
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let settings = ServeOptions(self, config: context.config.serve)
            var web: WebConfiguration
            let listenAddress: ListenAddress
            let signIn: SignIn
            let publicOrigin: PublicOrigin?
            let proxies: [AddressRange]
            do {
                listenAddress = try ListenAddress.parse(settings.listen)
                signIn = try settings.signInMode()
                publicOrigin = try settings.publicURL.map { text throws(WebSetupError) in try PublicOrigin.parse(text) }
                proxies = try settings.trustedProxy.filter { $0 != "unix" }.map { text throws(WebSetupError) in try AddressRange.parse(text) }
                if let proxyLogoutURL {
                    guard case .header = signIn else { throw WebSetupError("--proxy-logout-url goes with --auth header:NAME") }
                    let lower = proxyLogoutURL.lowercased()
                    guard lower.hasPrefix("https://") || lower.hasPrefix("http://") || (lower.hasPrefix("/") && !lower.hasPrefix("//")),
                          !proxyLogoutURL.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
                        throw WebSetupError("--proxy-logout-url takes an https://… address or a /path on this site, not “\(proxyLogoutURL)”")
                    }
                }
                if (settings.tlsCert == nil) != (settings.tlsKey == nil) { throw WebSetupError("--tls-cert and --tls-key go together") }
                if settings.uploadsAtOnce < 1 { throw WebSetupError("--uploads-at-once takes a count of 1 or more, not \(settings.uploadsAtOnce)") }
                if !(1...3600).contains(settings.uploadSeconds) {
                    throw WebSetupError("--upload-seconds takes 1 to 3600 seconds, not \(Int(settings.uploadSeconds))")
                }
            } catch let error as WebSetupError {
                throw CLIError(error.description, status: .usage)
            }
            let libraries = try settings.librariesFor(signIn: signIn, context: context)
            let state = settings.state
            let libraryMap = settings.libraryMap
            let statePath = state ?? Self.defaultStatePath(libraryPath: context.libraryPath, environment: context.environment)
            // Where the library lives: the PostgreSQL database of a server library (or library map),
            // else the SQLite file beside the library (or --state).
            let serverLocation = [libraryMap, context.libraryPath].compactMap { $0 }.first(where: LibraryRoot.isServer)
            let webState: any WebStateStore
            do {
                webState = try LibraryRoot.webState(location: state == nil ? serverLocation ?? statePath : statePath, file: statePath)
            } catch let error as LibraryError {
                throw CLIError("cannot keep sessions in \(error.path ?? statePath): \(error.message)", status: .cannotCreate)
            } catch {
                throw CLIError("cannot open the session file \(statePath): \(error)", status: .cannotCreate)
            }
            web = WebConfiguration(setup: context.setup, opener: try context.opener(), libraries: libraries,
                                   barcode: { CardBarcodeSource.barcode(for: $0) }, state: webState)
            let updates = UpdateClient(context: context, policy: AddressPolicy(allowedHosts: Set(updateAllowHost)))
            let updateOpener = try context.opener()
            web.checkForUpdate = { library, id in
                try await updates.check(id, in: library, opener: updateOpener)
            }
            web.listen = listenAddress
            web.signIn = signIn
            web.publicURL = publicOrigin
            web.notices = context.config.notices
            web.trustedProxies = proxies
            web.proxyLogoutURL = proxyLogoutURL
            web.uploadsAtOnce = settings.uploadsAtOnce
            web.uploadSeconds = settings.uploadSeconds
            if let seconds = context.config.serve.headSeconds { web.headTimeout = seconds }
            if let seconds = context.config.serve.bodySeconds { web.bodyTimeout = seconds }
            web.socketProxyTrusted = settings.trustedProxy.contains("unix")
            if let tlsCert = settings.tlsCert, let tlsKey = settings.tlsKey { web.tls = (tlsCert, tlsKey) }
            do { try web.validate() } catch { throw CLIError("\(error)", status: .usage) }

            let config = web
            let hangups = Self.reloadOnHangup(config: config, global: global)
            defer { hangups?.cancel() }
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            Task.detached {
                do {
                    try await WebServer.run(config) { address, link in
                        config.log(link.map { "Sign in: \($0)" } ?? "Listening on \(address)")
                        // On a terminal the link as a QR code too (send's half blocks), for a phone.
                        if let link, Terminal.stdoutIsTerminal,
                           let matrix = try? BarcodeEncoder.matrix(bytes: Array(link.utf8), format: .qr) {
                            config.log(TerminalBarcode(matrix).render(indent: 2).joined(separator: "\n"))
                        }
                    }
                } catch let error as WebSetupError {
                    outcome.set(CLIError(error.description, status: .usage))
                } catch {
                    outcome.set(CLIError("\(error)", status: .unavailable))
                }
                done.signal()
            }
            done.wait()
            try? Blocking.run { await updates.shutdown() }
            if let error = outcome.get() { throw error }
            return .success
        }
    }

    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var error: CLIError?
        func set(_ e: CLIError) { lock.withLock { error = e } }
        func get() -> CLIError? { lock.withLock { error } }
    }

    /// SIGHUP (a unit's reload, a logrotate) re-reads the configuration and the trust anchors and
    /// keeps serving; before, it ended the server (status 129) and left its socket. One line on
    /// standard output says what happened.
    /// On a terminal SIGHUP means the terminal went away, and serve stops as any program does
    /// (nil: nothing installed); an orphaned wallet would go on serving nobody.
    static func reloadOnHangup(config: WebConfiguration, global: GlobalOptions) -> (any DispatchSourceSignal)? {
        if isatty(STDIN_FILENO) == 1 || isatty(STDOUT_FILENO) == 1 { return nil }
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "passconduit.serve.hangup"))
        source.setEventHandler {
            do {
                let fresh = try Context(global)
                let opener = try fresh.opener()
                config.openers.replace(with: opener)
                let folders = fresh.setup.trustDirectories
                config.log("reloaded the trust anchors (\(fresh.config.file ?? "no configuration file"); trust \(folders.isEmpty ? "-" : folders.joined(separator: ", ")))")
            } catch let error as CLIError {
                config.log("reload failed, keeping the old trust anchors: \(error.message)")
            } catch {
                config.log("reload failed, keeping the old trust anchors: \(error)")
            }
        }
        source.resume()
        return source
    }

    /// Beside a file library; for a library on a server, in the state folder.
    static func defaultStatePath(libraryPath: String, environment: [String: String]) -> String {
        if !LibraryRoot.isServer(libraryPath) {
            return ((libraryPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("web-sessions.sqlite")
        }
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".local/state")
        return (stateHome as NSString).appendingPathComponent("passconduit/web-sessions.sqlite")
    }
}

/// The PassKit web-service client behind the wallet's "Check for update" button: made on the
/// first check (as `update` makes it), shut down when the server stops.
final class UpdateClient: @unchecked Sendable {
    private let lock = NSLock()
    private var client: WebServiceClient?
    private let settings: WebServiceClient.Settings

    /// `policy`: the addresses "Check for update" may reach (only public ones over https, but for
    /// the hosts the operator allowed).
    init(context: Context, policy: AddressPolicy) {
        var settings = WebServiceClient.Settings()
        settings.maxBodyBytes = context.limits.pass.maxArchiveBytes
        settings.proxy = ProxySettings(environment: context.environment)
        settings.addressPolicy = policy
        self.settings = settings
    }

    func get() throws -> WebServiceClient {
        try lock.withLock {
            if let client { return client }
            let made = try WebServiceClient(settings: settings)
            client = made
            return made
        }
    }

    /// `passconduit update ID`'s check of one pass, and its outcome in the wallet's words.
    func check(_ id: PassID, in library: any PassLibraryBackend, opener: PassOpener) async throws -> String {
        var request = UpdateRequest()
        request.ids = [id]
        request.timeLimit = 60
        let outcomes = try await UpdateRun(library: library, opener: opener, client: try get()).run(request)
        guard let outcome = outcomes.first else { return "This pass gets no updates: its issuer named no web service for it." }
        return UpdateOutcomeText.forPeople(outcome)
    }

    func shutdown() async {
        guard let client = lock.withLock({ self.client }) else { return }
        await client.shutdown()
    }
}

extension Terminal {
    /// No colour: text for a web page.
    init(plain: ()) {
        colour = false
        verbose = false
    }
}
