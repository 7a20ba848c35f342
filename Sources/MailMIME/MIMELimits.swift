/// Bounds that keep parsing of hostile mail finite. Each one names the attack it stops.
/// A tripped limit never throws: it is recorded as a `MIMEDefect` and parsing degrades
/// (gmime's MAX_LEVEL habit), so the caller still sees every other part.
package struct MIMELimits: Sendable, Equatable {
    /// Deeply nested multiparts or message/rfc822 chains would otherwise exhaust the stack.
    package var maxDepth: Int = 128
    /// Millions of tiny parts would otherwise make the part list grow without bound.
    package var maxParts: Int = 10_000
    /// A header section that never ends (or a megabyte folded header) is cut here.
    package var maxHeaderBytes: Int = 256 * 1024
    /// Messages larger than this are not parsed (mailbox readers still skip over them).
    package var maxMessageBytes: Int = 64 * 1024 * 1024

    package init() {}
    package static let `default` = MIMELimits()
}
