import Hummingbird
import NIOCore

/// One request's context: Hummingbird's, plus the peer's address (a proxy's forwarded address
/// is believed only from a trusted proxy: `ClientAddress`).
package struct WebContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The peer's IP address as text, or nil (a unix socket).
    package let peer: String?
    /// The peer's port (told to the mailbox server with the address), or nil.
    package let peerPort: Int?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
        peerPort = source.channel.remoteAddress?.port
    }
}
