import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore

/// Which libraries `library create|list|drop|purge` work on: the milter's library map.
struct LibraryMapOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Each mailbox's library: a path with %{local} and %{domain}, or a postgresql:// server (mailbox = user). Default: library-map under [milter] in the config file.", valueName: "template"))
    var libraryMap: String?

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: $XDG_CONFIG_HOME/passconduit/config.toml, else /etc/passconduit/config.toml).", valueName: "path"))
    var config: String?

    /// The map given, else the config file's; a usage error when there is none.
    func template() throws -> String {
        if let libraryMap { return libraryMap }
        let config: Config
        do {
            config = try Config.load(explicitPath: self.config, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CLIError("\(error)", status: .configError)
        }
        guard let map = config.milterLibraryMap else {
            throw CLIError("no library map: give --library-map TEMPLATE (or set library-map under [milter] in the config file)", status: .usage)
        }
        return map
    }

    /// Runs library administration, with the same exit statuses as every command.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        do {
            return try Blocking.run(body)
        } catch let problem as LibraryAdmin.Problem {
            throw CLIError(problem.description, status: .usage)
        } catch let error as LibraryError {
            throw CLIError(opening: error)
        }
    }
}

extension LibraryCommand {
    /// "1 offer", "2 offers".
    static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a mailbox's library, so the milter stages its offers there.",
            discussion: """
            The milter only uses a library that exists. For a file map this makes the file (and any \
            missing folder) the milter opens for ADDRESS, with mode 0660 in folders of mode 2770, \
            so the daemon's user or group can write the library, its lock file and its WAL files; \
            --owner gives them to the daemon's user. On a server it makes the user's library. An \
            existing library is left as it is (only its modes and owner are set again).

            Example:
              passconduit library create alice@example.org --owner passconduit \\
                --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite'
            """)

        @OptionGroup var map: LibraryMapOptions

        @Option(name: .long, help: ArgumentHelp("Who owns the files and folders made (a file map): USER or USER:GROUP (default: whoever runs this).", valueName: "user[:group]"))
        var owner: String?

        @Argument(help: ArgumentHelp("The mailbox (local@domain).", valueName: "address"))
        var address: String

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                let ownership = try Self.ownership(owner)
                let (address, location) = (self.address, template)
                let made = try LibraryMapOptions.run { try await LibraryAdmin.create(address, template: location, ownership: ownership) }
                print(made.created ? "Created \(made.location)." : "Already there: \(made.location).")
                return .success
            }
        }

        /// `USER`, `USER:GROUP`, `:GROUP`, names or numbers.
        static func ownership(_ text: String?) throws -> LibraryAdmin.Ownership {
            guard let text else { return LibraryAdmin.Ownership() }
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            var ownership = LibraryAdmin.Ownership()
            if !parts[0].isEmpty {
                if let entry = getpwnam(parts[0]) {
                    ownership.uid = entry.pointee.pw_uid
                    ownership.gid = entry.pointee.pw_gid
                } else if let uid = uid_t(parts[0]) {
                    ownership.uid = uid
                } else {
                    throw CLIError("--owner: there is no user \(parts[0])", status: .usage)
                }
            }
            if parts.count == 2, !parts[1].isEmpty {
                if let entry = getgrnam(parts[1]) {
                    ownership.gid = entry.pointee.gr_gid
                } else if let gid = gid_t(parts[1]) {
                    ownership.gid = gid
                } else {
                    throw CLIError("--owner: there is no group \(parts[1])", status: .usage)
                }
            }
            return ownership
        }
    }

    struct ListLibraries: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the mailboxes the library map holds a library for.",
            discussion: """
            One line per library: the mailbox, a tab, and the library file (a file map) or the \
            server without its password.
            """)

        @OptionGroup var map: LibraryMapOptions

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                let entries = try LibraryMapOptions.run { try await LibraryAdmin.list(template: template) }
                for entry in entries { print("\(TerminalText.line(entry.user))\t\(TerminalText.line(entry.location))") }
                return .success
            }
        }
    }

    struct Drop: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "drop",
            abstract: "Erase a mailbox's library: passes, offers, change log, update state, files.",
            discussion: """
            For an erasure request. On a server every row of that user goes, in one transaction; \
            for a file map the library file with its lock and WAL files, and the mailbox's own \
            folder when the map gives each mailbox one (%{local} in the folder's name); and the web \
            wallet's sign-ins, API tokens and calendar address of that mailbox. Other mailboxes' \
            libraries are not touched. Asks first on a terminal; without one, --yes is \
            required. A file that is not a pass library is refused and left as it is.
            """)

        @OptionGroup var map: LibraryMapOptions

        @Flag(name: .long, help: "Erase without asking.")
        var yes = false

        @Option(name: .long, help: ArgumentHelp(
            "The web wallet's state file (serve's --state) whose sign-ins, API tokens and calendar address of this mailbox go too (default: serve's, beside the default library, when it exists; on a server map they are in the database and always go).",
            valueName: "path"))
        var state: String?

        @Argument(help: ArgumentHelp("The mailbox (local@domain).", valueName: "address"))
        var address: String

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                let address = self.address
                let target: LibraryMap.Target
                do { target = try LibraryAdmin.target(address, template: template) } catch let problem as LibraryAdmin.Problem {
                    throw CLIError(problem.description, status: .usage)
                }
                if !yes {
                    let prompt = Prompt()
                    guard prompt.isInteractive else {
                        throw CLIError("drop erases \(address)'s library for good; run it on a terminal, or add --yes", status: .usage)
                    }
                    let shown = LibraryLocation.withoutPassword(target.location) + (target.user.map { " (user \($0))" } ?? "")
                    guard prompt.confirm("Erase every pass, offer and change of \(address) in \(shown)?") else {
                        print("Nothing was erased.")
                        return .success
                    }
                }
                var dropped = try LibraryMapOptions.run { try await LibraryAdmin.drop(address, template: template) }
                if !LibraryRoot.isServer(template), let statePath = webStatePath(), LibraryMap.fileExists(statePath) {
                    let user = address.lowercased()
                    do {
                        dropped.web += try Blocking.run { try await LibraryRoot.webState(location: template, file: statePath).forget(user: user) }
                    } catch {
                        throw CLIError("erased the library, but not \(address)'s web sign-ins in \(statePath): \(error)", status: .ioError)
                    }
                }
                print("Erased \(dropped.location): \(LibraryCommand.count(dropped.passes, "pass", "passes")), \(LibraryCommand.count(dropped.offers, "offer", "offers"))"
                      + (dropped.web > 0 ? ", \(LibraryCommand.count(dropped.web, "web sign-in or token", "web sign-ins and tokens"))" : "") + ".")
                return .success
            }
        }

        /// Where `serve` keeps a file map's web state: --state, else beside the default library.
        func webStatePath() -> String? { Self.webStatePath(state: state, config: map.config) }

        static func webStatePath(state: String?, config configPath: String?) -> String? {
            if let state { return state }
            let environment = ProcessInfo.processInfo.environment
            guard let config = try? Config.load(explicitPath: configPath, environment: environment) else { return nil }
            let library = ConduitSetup(config: config, environment: environment).libraryPath
            return Serve.defaultStatePath(libraryPath: library, environment: environment)
        }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "grant",
            abstract: "Give the milter's and the web wallet's PostgreSQL roles their rights, and no more.",
            discussion: """
            One database role per purpose: the role of --library-map (the operator's) owns the \
            libraries and alone creates, migrates, lists and erases them; the milter's role may read \
            a mailbox's library and stage offers; the web wallet's may change a person's own library \
            and keep its sign-ins. Row-level security shows each connection of those two roles only \
            the rows of the mailbox it opened, so one mailbox's data is out of reach of another's. \
            A database superuser makes the roles first (createuser); run this again after an upgrade.

            Example:
              sudo -u postgres createuser passconduit_milter
              sudo -u postgres createuser passconduit_web
              passconduit library grant --milter passconduit_milter --web passconduit_web \\
                --library-map 'postgresql://passconduit@/passconduit?host=/run/postgresql&user=%{local}@%{domain}'
            """)

        @OptionGroup var map: LibraryMapOptions

        @Option(name: .long, help: ArgumentHelp("The milter's role: reads libraries, stages offers.", valueName: "role"))
        var milter: String?

        @Option(name: .long, help: ArgumentHelp("The web wallet's role: what a signed-in person may do to their own library.", valueName: "role"))
        var web: String?

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                let (milter, web) = (self.milter, self.web)
                let granted = try LibraryMapOptions.run { try await LibraryAdmin.grant(template: template, milter: milter, web: web) }
                if let role = granted.milter { print("Granted the milter's rights to \(TerminalText.line(role)).") }
                if let role = granted.web { print("Granted the web wallet's rights to \(TerminalText.line(role)).") }
                return .success
            }
        }
    }

    struct Purge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Decline offers nobody took, older than an age, in every mailbox's library.",
            discussion: """
            Each offer staged before the age is declined (the change log records it, as `offers \
            --decline` does); passes are not touched. With ADDRESS…, only those mailboxes. One line \
            per library that had such offers. For a timer, e.g. daily.

            Example:
              passconduit library purge --offers-older-than 30d
            """)

        @OptionGroup var map: LibraryMapOptions

        @Option(name: .long, help: ArgumentHelp("How old an offer must be: a number with s, m, h, d or w (30d).", valueName: "age"))
        var offersOlderThan: String

        @Argument(help: ArgumentHelp("Only these mailboxes (local@domain).", valueName: "address"))
        var addresses: [String] = []

        func validate() throws {
            guard LibraryAdmin.age(offersOlderThan) != nil else {
                throw ValidationError("--offers-older-than wants a number with s, m, h, d or w, such as 30d, not \(offersOlderThan)")
            }
        }

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                let cutoff = Date().addingTimeInterval(-(LibraryAdmin.age(offersOlderThan) ?? 0))
                let users = addresses.isEmpty ? nil : addresses
                let purged = try LibraryMapOptions.run { try await LibraryAdmin.purgeOffers(before: cutoff, users: users, template: template) }
                var total = 0
                for (entry, count) in purged where count > 0 {
                    print("\(TerminalText.line(entry.user)): declined \(LibraryCommand.count(count, "offer", "offers"))")
                    total += count
                }
                print("Declined \(LibraryCommand.count(total, "offer", "offers")) older than \(offersOlderThan) in \(LibraryCommand.count(purged.count, "library", "libraries")).")
                return .success
            }
        }
    }
}
