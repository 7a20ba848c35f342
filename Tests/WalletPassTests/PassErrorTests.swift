import XCTest
@testable import WalletPass

final class PassErrorTests: XCTestCase {
    func testErrorCodesAreTheStableDesignList() {
        XCTAssertEqual(PassError.Code.all.map(\.rawValue), [
            "not-a-zip", "too-large", "unsafe-archive", "missing-pass-json", "missing-manifest",
            "missing-signature", "bad-json", "missing-required-key", "unsupported-format-version",
            "manifest-mismatch", "unlisted-file", "signature-invalid", "untrusted-signer",
            "certificate-mismatch", "certificate-expired", "missing-icon",
            // Not the pass's fault: a system library it needs is missing here (issue 28 item 1).
            "library-missing",
        ])
    }
}
