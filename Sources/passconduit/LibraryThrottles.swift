import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore
import PassWeb
import Support

extension LibraryCommand {
    /// `passconduit library throttles`: the web wallet's sign-in counters, listed or cleared.
    struct Throttles: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "throttles",
            abstract: "List or clear the web wallet's sign-in throttles.",
            discussion: """
            serve counts sign-in attempts (before the password is checked) per mailbox and client \
            address: 5 in 15 minutes from one client for one mailbox, 30 from one client over all \
            mailboxes; past 50 for one mailbox from anywhere, one try every 10 seconds. The counters \
            live where serve keeps its sessions (--state beside a file map, the database of a \
            server map). Each line: mailbox (or * for a client's count over all mailboxes), client \
            address (or * for a mailbox's count from anywhere), attempts, the first and the last, \
            and "throttled" when the next attempt would be refused. --clear ADDRESS forgets one \
            mailbox's counters (every client), --all every counter.

            Examples:
              passconduit library throttles --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite' \\
                --state /var/lib/passconduit/web-sessions.sqlite
              passconduit library throttles --clear alice@example.org --library-map postgresql:///passconduit
            """)

        @OptionGroup var map: LibraryMapOptions

        @Option(name: .long, help: ArgumentHelp(
            "The web wallet's state file (serve's --state; default: serve's, beside the default library; a server map keeps it in the database).",
            valueName: "path"))
        var state: String?

        @Option(name: .long, help: ArgumentHelp("Forget this mailbox's sign-in counters (from every client).", valueName: "address"))
        var clear: String?

        @Flag(name: .long, help: "Forget every sign-in counter.")
        var all = false

        func validate() throws {
            if clear != nil && all { throw ValidationError("--clear ADDRESS and --all: give one") }
        }

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                var statePath = ""
                if !LibraryRoot.isServer(template) {
                    guard let path = Drop.webStatePath(state: state, config: map.config), LibraryMap.fileExists(path) else {
                        throw CLIError("no web wallet state here: give --state PATH (serve's --state)", status: .noInput)
                    }
                    statePath = path
                }
                let file = statePath
                let store = try LibraryMapOptions.run { try LibraryRoot.webState(location: template, file: file) }
                if all || clear != nil {
                    let account = clear?.lowercased()
                    let n = try LibraryMapOptions.run { try await store.clearThrottles(account: account) }
                    print("Cleared \(LibraryCommand.count(n, "sign-in counter", "sign-in counters"))\(account.map { " of \($0)" } ?? "").")
                    return .success
                }
                let now = Date()
                let counters = try LibraryMapOptions.run { try await store.throttles(now: now) }
                for c in counters {
                    print(Self.line(c, now: now))
                }
                return .success
            }
        }

        /// "alice@example.org\t203.0.113.9\t5 attempts\t2026-12-07T06:40:01Z\t2026-12-07T06:41:30Z\tthrottled"
        static func line(_ c: WebState.Throttle.Counter, now: Date) -> String {
            let judged = WebState.Throttle.judge([c], now: now).verdict
            var fields = [c.key.account.isEmpty ? "*" : WebApp.logText(c.key.account), c.key.client.isEmpty ? "*" : c.key.client,
                          LibraryCommand.count(c.count, "attempt", "attempts"), DateText.iso(c.first), DateText.iso(c.last)]
            if case .throttled = judged { fields.append("throttled") }
            return fields.joined(separator: "\t")
        }
    }
}
