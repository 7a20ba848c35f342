import Foundation
import WalletPass

/// The pass opener `serve` checks passes with, replaced whole when SIGHUP reloads the trust
/// anchors: each request takes the one current when it asks.
package final class ReloadableOpener: @unchecked Sendable {
    private let lock = NSLock()
    private var opener: PassOpener
    private var replaced = 0

    package init(_ opener: PassOpener) {
        self.opener = opener
    }

    package var current: PassOpener { lock.withLock { opener } }

    /// How many times the anchors were reloaded: part of the key of every drawing kept, since
    /// a verdict ("NOT VERIFIED") is drawn into the page.
    package var generation: Int { lock.withLock { replaced } }

    package func replace(with new: PassOpener) {
        lock.withLock {
            opener = new
            replaced += 1
        }
    }
}
