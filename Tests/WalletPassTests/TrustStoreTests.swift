import Foundation
import Synchronization
import XCTest
@testable import WalletPass

final class TrustStoreTests: XCTestCase {
    func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "passconduit-trust-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    func testShippedAnchorsLoadAndMatchTheirPublishedFingerprints() throws {
        let store = try TrustStore.load(directories: [TestSupport.shippedTrust])
        XCTAssertEqual(store.certificateCount, 11)
        let readme = try String(contentsOfFile: TestSupport.shippedTrust + "/README.md", encoding: .utf8)
        for fingerprint in TrustStore.appleRootFingerprints where fingerprint.hasPrefix("b0b1") || fingerprint.hasPrefix("6334") {
            XCTAssertTrue(readme.contains(fingerprint), fingerprint)
        }
    }

    func testMissingFolderIsAnErrorNamingIt() {
        XCTAssertThrowsError(try TrustStore.load(directories: ["/nonexistent/trust"])) { error in
            XCTAssertEqual(error as? TrustStoreError, TrustStoreError(path: "/nonexistent/trust", reason: "no such file or folder"))
        }
    }

    func testFileWithoutACertificateIsAnErrorNamingIt() throws {
        let dir = try temporaryDirectory()
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: dir + "/broken.pem"))
        try Data("ignored: not a certificate extension\n".utf8).write(to: URL(fileURLWithPath: dir + "/README.md"))
        XCTAssertThrowsError(try TrustStore.load(directories: [dir])) { error in
            XCTAssertEqual((error as? TrustStoreError)?.path, dir + "/broken.pem")
        }
    }

    func testDERAndPEMCertificatesAndSingleFilesLoad() throws {
        let dir = try temporaryDirectory()
        let pem = try String(contentsOfFile: TestSupport.sampleTrust + "/passconduit-test-root.pem", encoding: .utf8)
        let der = Data(base64Encoded: pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())!
        try der.write(to: URL(fileURLWithPath: dir + "/root.der"))
        XCTAssertEqual(try TrustStore.load(directories: [dir]).certificateCount, 1)
        XCTAssertEqual(try TrustStore.load(directories: [TestSupport.sampleTrust + "/passconduit-test-wwdr.pem"]).certificateCount, 1)
    }

    func testShippedDirectoryIsFoundFromTheEnvironmentAnInstallPrefixOrTheSourceTree() throws {
        XCTAssertEqual(TrustStore.shippedDirectory(environment: ["PASSCONDUIT_TRUST_DIR": TestSupport.sampleTrust], executable: nil),
                       TestSupport.sampleTrust)
        let prefix = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: prefix + "/share/passconduit/trust", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        XCTAssertEqual(TrustStore.shippedDirectory(environment: [:], executable: prefix + "/bin/passconduit"),
                       prefix + "/share/passconduit/trust")
        let built = TestSupport.root.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug/passconduit").path
        XCTAssertEqual(TrustStore.shippedDirectory(environment: [:], executable: built), TestSupport.shippedTrust)
        XCTAssertEqual(TrustStore.shippedDirectory(), TestSupport.shippedTrust)
        XCTAssertNil(TrustStore.shippedDirectory(environment: [:], executable: "/nonexistent/bin/passconduit"))
    }

    func testWithoutTheTestAnchorTheSamplesAreUntrusted() throws {
        let apple = try TrustStore.load(directories: [TestSupport.shippedTrust])
        let v = PassOpener(trust: apple).open(TestSupport.sample("generic.pkpass"))
        XCTAssertEqual(v.status, .untrusted)
        XCTAssertEqual(v.error?.code, .untrustedSigner)
    }

    func testASignaturesCopyOfAnAnchorIsTheAnchorDecodedOnce() throws {
        // The sample passes carry the test WWDR intermediate, which is also an anchor: it is the
        // store's certificate, decoded once (before: a second decoding of the same bytes). Leaf,
        // intermediate and root: three decodings, and the same chain.
        let trust = try TrustStore.load(directories: [TestSupport.sampleTrust])
        XCTAssertEqual(trust.certificatesDecoded, 0)
        let verdict = PassOpener(trust: trust).open(TestSupport.sample("event-ticket.pkpass"))
        XCTAssertEqual(verdict.status, .valid)
        XCTAssertEqual(trust.certificatesDecoded, 3)
        let chain = verdict.pass?.signer?.chain ?? []
        XCTAssertEqual(chain.count, 3, "\(chain)")
        XCTAssertEqual(chain, PassOpener(trust: TestSupport.trust).open(TestSupport.sample("event-ticket.pkpass")).pass?.signer?.chain)
        // Later passes find all three decoded (the leaf in the signature cache).
        XCTAssertEqual(PassOpener(trust: trust).open(TestSupport.sample("event-ticket.pkpass")).status, .valid)
        XCTAssertEqual(trust.certificatesDecoded, 3)
        XCTAssertEqual(PassOpener(trust: trust).open(TestSupport.sample("coupon.pkpass")).status, .valid)
    }

    func testOneStoreServesConcurrentVerifications() {
        let opener = PassOpener(trust: TestSupport.trust)
        let files = ["event-ticket.pkpass", "boarding-pass.pkpass", "coupon.pkpass", "bad-untrusted-signer.pkpass"]
        let inputs = files.map(TestSupport.sample)
        let expected = inputs.map { opener.open($0).status }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            if opener.open(inputs[i % inputs.count]).status != expected[i % inputs.count] {
                mismatches.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(expected, [.valid, .valid, .valid, .untrusted])
        XCTAssertEqual(mismatches.withLock { $0 }, 0)
    }
}
