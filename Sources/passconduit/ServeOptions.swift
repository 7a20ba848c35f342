import Conduit
import LibraryRoot
import PassStore
import PassWeb
import Support

/// What `serve` runs with: each flag, else its `[serve]` setting in the configuration file, else
/// the default. A flag always wins, so a unit's
/// command line stays as shipped and the operator's choices live in /etc/passconduit/config.toml.
struct ServeOptions {
    var listen: String
    var auth: String?
    var trustedProxy: [String]
    var tlsCert: String?
    var tlsKey: String?
    var libraryMap: String?
    var state: String?
    var publicURL: String?
    var uploadsAtOnce: Int
    var uploadSeconds: Double

    static let defaultListen = "127.0.0.1:8080"

    init(_ serve: Serve, config: ServeSettings) {
        listen = serve.listen ?? config.listen ?? Self.defaultListen
        auth = serve.auth ?? config.auth
        trustedProxy = serve.trustedProxy.isEmpty ? config.trustedProxies : serve.trustedProxy
        // A certificate and its key come from one place: both flags, or both settings.
        if serve.tlsCert != nil || serve.tlsKey != nil {
            tlsCert = serve.tlsCert
            tlsKey = serve.tlsKey
        } else {
            tlsCert = config.tlsCert
            tlsKey = config.tlsKey
        }
        libraryMap = serve.libraryMap ?? config.libraryMap
        state = serve.state ?? config.state
        publicURL = serve.publicURL ?? config.publicURL
        uploadsAtOnce = serve.uploadsAtOnce ?? config.uploadsAtOnce ?? 4
        uploadSeconds = serve.uploadSeconds.map(Double.init) ?? config.uploadSeconds ?? 30
    }

    func signInMode() throws -> SignIn {
        guard let auth else {
            if !trustedProxy.isEmpty { throw WebSetupError("--trusted-proxy goes with --auth (a desktop wallet has no proxy in front)") }
            return .desktop
        }
        switch try SignInOption.parse(auth) {
        case .header(let name):
            let ranges = try trustedProxy.filter { $0 != "unix" }.map { text throws(WebSetupError) in try AddressRange.parse(text) }
            return .header(name: name, trusted: ranges)
        case .mailbox(let url):
            // The sentence, not the URL: a URL with a password in it is never repeated.
            do {
                return .password(checker: try Serve.mailboxChecker(url))
            } catch {
                throw WebSetupError("--auth: \(error)")
            }
        }
    }

    /// Desktop: the user's own library, always. With --auth: the library map, or the PostgreSQL
    /// library's users; a file library shared by every address would let each see the others'.
    /// Either way a library is kept open between requests only while it is the one at its
    /// location (`KeptLibraries`): after `library drop` and `library create` the new one is served.
    func librariesFor(signIn: SignIn, context: Context) throws -> WebLibraries {
        if signIn.isDesktop {
            if libraryMap != nil { throw CLIError("--library-map needs --auth: without it the wallet shows your own library", status: .usage) }
            let first = try context.library()
            let own = LibraryMap.Target(context.libraryPath, user: first.options.user)
            let options = first.options
            let kept = KeptLibraries { target in try await LibraryRoot.open(target.location, options: options) }
            kept.keep(first, for: own)
            return { _ in try await kept.library(own) }
        }
        let rule: LibraryMap.Rule
        if let libraryMap {
            guard libraryMap.contains("%{local}") || LibraryMap.isServer(libraryMap) else {
                throw CLIError("--library-map: “\(libraryMap)” names one library for everybody; use %{local} and %{domain} (or postgresql://…)", status: .usage)
            }
            rule = .template(libraryMap)
        } else if LibraryRoot.isServer(context.libraryPath) {
            rule = .template(context.libraryPath)
        } else {
            throw CLIError("serve --auth needs one library per address: --library-map TEMPLATE (e.g. '/var/lib/passconduit/%{local}@%{domain}/library.sqlite') or a PostgreSQL --library", status: .usage)
        }
        let map = LibraryMap(rule: rule)
        let kept = KeptLibraries { target in
            var options = LibraryOptions()
            options.user = target.user
            do {
                return try await LibraryRoot.open(target.location, options: options, create: false)
            } catch let error as LibraryError where error.kind == .notFound {
                return nil
            }
        }
        return { user in
            guard let target = map.libraries(for: [user]).first else { return nil }
            return try await kept.library(target)
        }
    }
}
