import Hummingbird
import NIOCore

/// One request's context: Hummingbird's, plus the peer's address (the only source of who
/// connected: no X-Forwarded-For is believed).
package struct WebContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    /// The peer's IP address as text, or nil (a unix socket).
    package let peer: String?

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
    }
}
