import Conduit
import Foundation
import Support
import PassRender
import PassStore
import WalletPass

/// Which library a signed-in user's requests use: nil when this server keeps none for them
/// (an address the library map has no library for). Built by the composition root
/// (`--library`, `--library-map`, a PostgreSQL server's library users).
package typealias WebLibraries = @Sendable (_ user: String) async throws -> (any PassLibraryBackend)?

/// Everything `serve` runs with.
package struct WebConfiguration: Sendable {
    package var listen: ListenAddress = .default
    package var signIn: SignIn = .desktop
    /// PEM certificate chain and key: HTTPS.
    package var tls: (certificate: String, key: String)?
    /// `--public-url`: the address browsers open, when a proxy in front does TLS (the cookie's
    /// `Secure`, absolute links and the Origin check follow it). Nil: what each request says.
    package var publicURL: PublicOrigin?
    /// `--proxy-logout-url`: where the sign-in proxy's session ends (header mode); "Sign out" links to it.
    package var proxyLogoutURL: String?
    /// The conduit's settings: trust, limits, languages, the scanner for uploads.
    package var setup: ConduitSetup
    /// The pass opener over the trust anchors, loaded at start and again at each SIGHUP
    /// (`reloadTrust`); each request's copy reads the pass in the visitor's languages.
    package var opener: PassOpener { openers.current }
    /// Where `opener` comes from: shared by every copy of this configuration.
    package let openers: ReloadableOpener
    package var libraries: WebLibraries
    /// The pass's barcode as the card draws it (the Barcodes target, wired by the composition root).
    package var barcode: @Sendable (PassInfo) -> CardBarcode?
    /// Sessions, sign-in failures, calendar secrets and API tokens: where the library lives.
    package var state: any WebStateStore
    /// "Check for update" on a pass page: the same check as `passconduit update ID` for that one
    /// pass (the composition root owns the PassKit web-service client), answered with `update`'s
    /// sentence. Nil: no button.
    package var checkForUpdate: (@Sendable (_ library: any PassLibraryBackend, _ id: PassID) async throws -> String)?
    /// `[notices]` of the config: whether this host sends notices, and the lead times a library
    /// gets unless its owner sets its own on the Settings page.
    package var notices = NoticeSettings()
    /// At most this many connections at once; more wait in the listen queue. A thousand idle
    /// ones still leave room for a real request.
    package var maxConnections = 1536
    /// A connection that sends nothing for this long is closed (slow clients, idle keep-alives).
    package var idleTimeout: TimeInterval = 20
    /// Seconds a request head may take to arrive whole (slow-loris: a trickling client is never idle).
    package var headTimeout: TimeInterval = 10
    /// Seconds a request body may take after its head (a 10 MB upload on a slow phone line fits).
    package var bodyTimeout: TimeInterval = 120
    /// At most this many uploads (the Add page, the API's POST) are read and checked at once
    /// (`--uploads-at-once`), and at most `uploadsPerPerson` of them for one signed-in address;
    /// more get 503 or 429 before their body is read.
    package var uploadsAtOnce = 4
    package var uploadsPerPerson = 2
    /// Seconds the check of one upload may take (`--upload-seconds`): past it the search stops
    /// and nothing is changed (a message of 150 heavy passes took 33 s of CPU).
    package var uploadSeconds: TimeInterval = 30
    /// Proxies whose `X-Forwarded-For` / `Forwarded` name the client and whose
    /// `X-Forwarded-Proto` / `Forwarded: proto=` the scheme (`--trusted-proxy`), and whether the
    /// peer of a Unix-socket listener is one (`--trusted-proxy unix`): the address that sign-in
    /// throttling counts per and the request log names.
    package var trustedProxies: [AddressRange] = []
    package var socketProxyTrusted = false
    /// Seconds the first repeated failure of one client at one account waits before its answer,
    /// doubled for each further one (at most 8 times this).
    package var signInBackoff: TimeInterval = 1
    /// Where the request log and the sign-in line go.
    package var log: @Sendable (String) -> Void = { line in
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    package init(setup: ConduitSetup, opener: PassOpener, libraries: @escaping WebLibraries,
                 barcode: @escaping @Sendable (PassInfo) -> CardBarcode?, state: any WebStateStore) {
        self.setup = setup
        self.openers = ReloadableOpener(opener)
        self.libraries = libraries
        self.barcode = barcode
        self.state = state
    }

    /// Listening beyond this machine needs HTTPS or a proxy in front: a sentence otherwise.
    package func validate() throws(WebSetupError) {
        if case .header(_, let trusted) = signIn, trusted.isEmpty {
            throw WebSetupError("--auth header:… needs --trusted-proxy ADDR[/BITS]: the header is believed only from your reverse proxy")
        }
        if signIn.isDesktop && !listen.isLoopback {
            throw WebSetupError("serve without --auth signs you in with a one-time link and listens on this machine only (127.0.0.1, ::1 or unix:PATH), not on \(listen); to serve other devices, add --auth imap://… or --auth header:… with --tls-cert/--tls-key")
        }
        if !listen.isLoopback && tls == nil {
            if case .header = signIn { return }
            throw WebSetupError("serve on \(listen) would send passwords and session cookies unencrypted over the network: give --tls-cert PEM --tls-key PEM, or put a reverse proxy in front with --auth header:NAME")
        }
    }

    /// The largest request body: a message as large as the filter scans (an uploaded .eml), plus the form around it.
    var maxBodyBytes: Int { max(setup.limits.filterMaxMessageBytes, setup.limits.pass.maxArchiveBytes) + 64 * 1024 }
}
