import ArgumentParser
import Conduit
import Foundation
import LibraryRoot
import PassStore
import Support

extension LibraryCommand {
    /// `passconduit library service-tokens`: the web wallet's service tokens (issue 42 item 3),
    /// made, listed or revoked by the operator.
    struct ServiceTokens: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "service-tokens",
            abstract: "Make, list and revoke the web wallet's service tokens (for chat bots).",
            discussion: """
            A service token lets a program such as a chat bot stage offers (POST /api/v1/offers) \
            and make share links (POST /api/v1/passes/SHA/links) for any mailbox whose library is \
            on serve's map, naming the mailbox with ?user=ADDRESS; it can never list, read, \
            accept or remove passes (every other request answers 403). The token is printed once \
            and never stored: the wallet keeps its SHA-256, where serve keeps its sessions \
            (--state beside a file map, the database of a server map). Each line of the list: \
            the token's id (for --revoke), its name, when it was made and last used.

            Examples:
              passconduit library service-tokens --create matrix-bot \\
                --library-map '/var/lib/passconduit/%{local}@%{domain}/library.sqlite' \\
                --state /var/lib/passconduit/web-sessions.sqlite
              passconduit library service-tokens --library-map postgresql:///passconduit
              passconduit library service-tokens --revoke 3fa2c1d4e5f60718 --library-map postgresql:///passconduit
            """)

        @OptionGroup var map: LibraryMapOptions

        @Option(name: .long, help: ArgumentHelp(
            "The web wallet's state file (serve's --state; default: serve's, beside the default library; a server map keeps it in the database).",
            valueName: "path"))
        var state: String?

        @Option(name: .long, help: ArgumentHelp("Make a service token with this name and print it once.", valueName: "name"))
        var create: String?

        @Option(name: .long, help: ArgumentHelp("Revoke the service token with this id (as the list shows it).", valueName: "id"))
        var revoke: String?

        func validate() throws {
            if create != nil && revoke != nil { throw ValidationError("--create NAME and --revoke ID: give one") }
            if let create, create.isEmpty || create.count > WebState.maxTokenName
                || create.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw ValidationError("--create: a name of 1 to \(WebState.maxTokenName) characters without control characters")
            }
        }

        func run() throws {
            try Self.exiting {
                let template = try map.template()
                var statePath = ""
                if !LibraryRoot.isServer(template) {
                    guard let path = Drop.webStatePath(state: state, config: map.config) else {
                        throw CLIError("no web wallet state here: give --state PATH (serve's --state)", status: .noInput)
                    }
                    // Made here when serve has not run yet: the token must work on its first start.
                    if !LibraryMap.fileExists(path) && create == nil {
                        throw CLIError("no web wallet state here: give --state PATH (serve's --state)", status: .noInput)
                    }
                    statePath = path
                }
                let file = statePath
                let store = try LibraryMapOptions.run { try LibraryRoot.webState(location: template, file: file) }
                if let create {
                    let made = try LibraryMapOptions.run { try await store.createServiceToken(name: create) }
                    print(made.token)
                    Terminal.warn("service token \(made.info.id) “\(TerminalText.line(create))” made; it is shown only now")
                    return .success
                }
                if let revoke {
                    guard try LibraryMapOptions.run({ try await store.revokeServiceToken(id: revoke) }) else {
                        throw CLIError("--revoke \(revoke): no such service token", status: .noInput)
                    }
                    print("Revoked service token \(revoke).")
                    return .success
                }
                for token in try LibraryMapOptions.run({ try await store.serviceTokens() }) {
                    print([token.id, TerminalText.line(token.name), DateText.iso(token.created), token.lastUsed.map(DateText.iso) ?? "never used"]
                        .joined(separator: "\t"))
                }
                return .success
            }
        }
    }
}
