import ArgumentParser
import Conduit
import Foundation
import PassStore

/// `passconduit share`: a link anyone can open to add one pass to their Wallet, served by
/// `passconduit serve` at /s/… (issue 42 item 2). The library keeps only the secret's SHA-256;
/// the link is printed once.
struct Share: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        _superCommandName: "passconduit",
        abstract: "Make, list and revoke links that hand a pass to someone's Wallet.",
        discussion: """
        A share link serves the pass's current bytes (it follows the pass across updates) to \
        anyone who opens it, without signing in, from the web wallet ("passconduit serve") \
        that keeps this library, until it expires (--days, default 7), is revoked, or, with \
        --once, was downloaded once. The link is printed once and never stored: the library \
        keeps only its SHA-256. The first line is the link (with --json, one object with \
        "url" and "link").

        The link's address is --base-url, else the [serve] public-url setting; without either \
        only its path (/s/…) is printed. On a gateway whose wallet keeps one library per \
        mailbox (serve --library-map, or a PostgreSQL server's users), the link names the \
        mailbox so the wallet finds its library: --owner ADDRESS, else --user.

        Examples:
          passconduit share 3fa2c1 --base-url https://wallet.example.org
          passconduit share 3fa2c1 --days 1 --once
          passconduit share 3fa2c1 --list
          passconduit share --revoke 4
        """,
        version: Passconduit.version)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The link works for this many days (1 to \(ShareLink.maxDays); default \(ShareLink.defaultDays)).", valueName: "n"))
    var days: Int?

    @Flag(name: .long, help: "The link works for one download only.")
    var once = false

    @Option(name: .long, help: ArgumentHelp("The web wallet's address, e.g. https://wallet.example.org (default: the [serve] public-url setting).", valueName: "url"))
    var baseURL: String?

    @Option(name: .long, help: ArgumentHelp("The mailbox whose library this is, on a wallet that keeps one per mailbox (default: --user).", valueName: "address"))
    var owner: String?

    @Flag(name: .long, help: "List the pass's links (every link in the library without ID).")
    var list = false

    @Option(name: .long, help: ArgumentHelp("Revoke the link with this number (as --list shows it).", valueName: "link-id"))
    var revoke: Int64?

    @Argument(help: "The pass: type/serial or a SHA-256 prefix.")
    var id: String?

    func validate() throws {
        if let revoke {
            if list || id != nil || days != nil || once || baseURL != nil || owner != nil {
                throw ValidationError("--revoke LINK-ID takes no pass and no other option of share")
            }
            if revoke < 1 { throw ValidationError("--revoke: a link's number is 1 or more") }
            return
        }
        if list {
            if days != nil || once || baseURL != nil || owner != nil {
                throw ValidationError("--list takes no --days, --once, --base-url or --owner")
            }
            return
        }
        guard id != nil else { throw ValidationError("Missing expected argument '<id>' (the pass to share)") }
        if let days, !(1...ShareLink.maxDays).contains(days) {
            throw ValidationError("--days \(days): a link works for 1 to \(ShareLink.maxDays) days")
        }
        if let baseURL, !(baseURL.hasPrefix("https://") || baseURL.hasPrefix("http://")) {
            throw ValidationError("--base-url \(baseURL): give the wallet's address, https://HOST[:PORT]")
        }
    }

    func run() throws {
        try Self.exiting {
            let context = try Context(global)
            let terminal = context.terminal
            if let revoke {
                let library = try context.library()
                let link = try LibraryCall.run { () -> ShareLink? in
                    guard try await library.revokeShareLink(revoke) else { return nil }
                    return try await library.shareLinks(nil).first { $0.id == revoke }
                }
                guard let link else { throw CLIError("--revoke \(revoke): no such link in your library", status: .noInput) }
                if global.json {
                    print(JSONOutput.object([("revoked", ShareLinkJSON.object(link))]).line)
                } else {
                    print("Revoked link \(revoke).")
                }
                return .success
            }
            if list, id == nil {
                let library = try context.library(reading: true)
                let links = try LibraryCall.run { try await library.shareLinks(nil) }
                let out = lines(links, terminal: terminal, showPass: true)
                if !out.isEmpty { print(out) }
                return .success
            }
            let (library, passID) = try context.libraryAndPass(id!, reading: list)
            let stored = try context.storedPass(passID, named: id!, in: library)
            if list {
                let links = try LibraryCall.run { try await library.shareLinks(passID) }
                let out = lines(links, terminal: terminal, showPass: false)
                if !out.isEmpty { print(out) }
                return .success
            }
            let secret = ShareLink.newSecret()
            let lifetime = TimeInterval(days ?? ShareLink.defaultDays) * 86400
            let oneDownload = once
            let link = try LibraryCall.run {
                try await library.createShareLink(passID, secretHash: ShareLink.hash(secret), expires: Date().addingTimeInterval(lifetime),
                                                  oneDownload: oneDownload)
            }
            var base = baseURL ?? context.config.serve.publicURL ?? ""
            while base.hasSuffix("/") { base.removeLast() }
            let url = base + ShareLink.path(secret: secret, owner: owner ?? global.user)
            if global.json {
                print(JSONOutput.object([("url", .string(url)), ("link", ShareLinkJSON.object(link))]).line)
            } else {
                print(url)
                print(terminal.dim(TerminalText.line("\(stored.organizationName) · \(stored.description): link \(link.id), \(oneDownload ? "one download, " : "")until \(DateText.human(link.expires))")))
                if base.isEmpty { print(terminal.dim("Put the web wallet's address before it (--base-url https://HOST).")) }
            }
            return .success
        }
    }

    /// `--list`: one link a line (with --json, one object a line).
    func lines(_ links: [ShareLink], terminal: Terminal, showPass: Bool) -> String {
        let now = Date()
        if global.json { return links.map { ShareLinkJSON.object($0, now: now).line }.joined(separator: "\n") }
        if links.isEmpty { return "No share links." }
        return links.map { link in
            var line = terminal.bold("\(link.id)") + "  " + link.state(at: now).rawValue
            if showPass { line += "  " + TerminalText.line(link.passID.description) }
            line += "  made \(DateText.human(link.created)), expires \(DateText.human(link.expires))"
            if link.oneDownload { line += ", one download" }
            line += link.uses == 0 ? ", never used" : ", used \(link.uses == 1 ? "once" : "\(link.uses) times"), last \(DateText.human(link.lastUsed ?? link.created))"
            return line
        }.joined(separator: "\n")
    }
}
