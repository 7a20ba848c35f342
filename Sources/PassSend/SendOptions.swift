/// How `send` serves its one pass. Every bound names what it stops.
package struct SendOptions: Sendable {
    /// The address to listen on.
    package var host: String
    /// The address the URL names when `host` is not one a phone can open (0.0.0.0 or ::
    /// listen on every address; the URL then carries the default route's).
    package var urlHost: String?
    /// 0: any free port.
    package var port: Int = 0
    /// The server exits after this many seconds whether or not the pass was fetched.
    package var timeoutSeconds: Int64 = 300
    /// Connections served at once; more are closed at once (many clients at once).
    package var maxConnections: Int = 16
    /// Seconds a connection may live, however slowly it reads or writes (slow readers, slowloris).
    package var connectionSeconds: Int64 = 30
    /// Seconds a connection may take to send its whole request head (idle connections that hold
    /// a place; a phone sends its request at once).
    package var headSeconds: Int64 = 5
    /// Bytes a client may send on one connection: one GET needs a few hundred (huge headers and paths).
    package var maxRequestBytes: Int = 16 * 1024
    /// Seconds the server stays up after the download to answer a repeated request with 410.
    package var lingerSeconds: Int64 = 3

    package init(host: String) { self.host = host }
}
