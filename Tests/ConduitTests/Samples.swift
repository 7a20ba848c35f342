import Foundation
@testable import Conduit
import WalletPass

/// The repository's Samples/ (made by Samples/make-passes.sh and Samples/make-messages.py).
enum Samples {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func path(_ path: String) -> String { root.appendingPathComponent(path).path }

    /// A scanner trusting the test CA, without a library.
    static func scanner() throws -> PassScanner {
        let trust = try TrustStore.load(directories: [path("ca/trust")])
        return PassScanner(opener: PassOpener(trust: trust), library: nil, sniffer: try MagicSniffer())
    }
}
