import Foundation
import XCTest
@testable import WalletPass
import Support

/// Paths and shared stores for the WalletPass tests.
enum TestSupport {
    /// The package root, found from this file's path.
    static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    static let samples = root.appendingPathComponent("Samples/passes")
    static let sampleTrust = root.appendingPathComponent("Samples/ca/trust").path
    static let shippedTrust = root.appendingPathComponent("Config/trust").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Apple's anchors plus the test CA (a user-added anchor, so only UID/OU rules apply to it).
    static let trust: TrustStore = try! TrustStore.load(directories: [shippedTrust, sampleTrust])

    /// The test CA's root held to Apple's pass-signing rules, as if it were an Apple root.
    static let appleRulesTrust: TrustStore = {
        let root = try! String(contentsOfFile: sampleTrust + "/passconduit-test-root.pem", encoding: .utf8)
        let der = root.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let fingerprint = Digest.hex(.sha256, [UInt8](Data(base64Encoded: der)!))
        return try! TrustStore.load(directories: [shippedTrust, sampleTrust],
                                    applePolicyFingerprints: TrustStore.appleRootFingerprints.union([fingerprint]))
    }()

    static func sample(_ name: String) -> [UInt8] {
        [UInt8](try! Data(contentsOf: samples.appendingPathComponent(name)))
    }

    static func fixture(_ path: String) -> [UInt8] {
        [UInt8](try! Data(contentsOf: fixtures.appendingPathComponent(path)))
    }
}
