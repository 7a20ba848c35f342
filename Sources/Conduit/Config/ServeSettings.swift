/// `[serve]`: how `passconduit serve` (the web wallet) runs when its command line does not say,
/// so an operator sets the sign-in, address and libraries in `/etc/passconduit/config.toml`
/// and never edits a unit. A flag on the command line wins over each setting.
package struct ServeSettings: Sendable, Equatable {
    /// `listen`: `HOST:PORT`, `[IPv6]:PORT` or `unix:PATH` (`--listen`).
    package var listen: String?
    /// `auth`: `header:NAME`, `imap://HOST[:PORT]` or `imaps://HOST[:PORT]` (`--auth`).
    package var auth: String?
    /// `trusted-proxy`: the proxies whose X-Forwarded-For, X-Forwarded-Proto and (with
    /// `auth = "header:…"`) user header are believed; `unix` for the proxy on a unix listener (`--trusted-proxy`).
    package var trustedProxies: [String] = []
    /// `library-map`: one library per signed-in address (`--library-map`); unset: `[milter] library-map`.
    package var libraryMap: String?
    /// `public-url`: the address people open when a proxy in front does TLS (`--public-url`).
    package var publicURL: String?
    /// `tls-cert`, `tls-key`: HTTPS (`--tls-cert`, `--tls-key`); paths relative to the file's folder.
    package var tlsCert: String?
    package var tlsKey: String?
    /// `state`: the file that keeps sessions (`--state`); relative to the file's folder.
    package var state: String?
    /// `uploads-at-once`: how many uploads are checked at once (`--uploads-at-once`).
    package var uploadsAtOnce: Int?
    /// `upload-seconds`: how long the check of one upload may take (`--upload-seconds`).
    package var uploadSeconds: Double?
    /// `head-seconds`: how long a client may take to send a request's head (slow-loris), from
    /// the connection's start or the previous answer's end; 10 when unset.
    package var headSeconds: Double?
    /// `body-seconds`: how long a client may take to send a request's body after its head; 120
    /// when unset.
    package var bodySeconds: Double?

    package init() {}
}
