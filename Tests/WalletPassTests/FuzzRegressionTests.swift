import Foundation
import XCTest
@testable import WalletPass

/// Inputs libFuzzer found (Fixtures/fuzz/), each replayed through the same entry point.
final class FuzzRegressionTests: XCTestCase {
    func testBundleInputThatTimedOutInTheEndRecordSearchFinishesQuickly() {
        // A mutated sample bundle (selector 4); the ASan build spent seconds scanning for the end
        // record with per-byte closures. It must give its verdicts promptly.
        let input = TestSupport.fixture("fuzz/timeout-bundle-end-record-search.bin")
        let opener = PassOpener(trust: TestSupport.trust)
        let start = DispatchTime.now().uptimeNanoseconds
        _ = PassFuzzing.run(input, opener: opener)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        XCTAssertLessThan(ms, 500)
        let members = opener.openBundle(Array(input.dropFirst()))
        XCTAssertFalse(members.isEmpty)
        // Every verdict is consistent: an error exactly when the pass is not valid.
        XCTAssertTrue(members.allSatisfy { ($0.verdict.status == .valid) == ($0.verdict.error == nil) })
    }

    func testLongColourAndLanguageInputStaysLinear() {
        // 76 KB behind selector 5: colour, date, language-choice parsers. Colours over 64 bytes and
        // language tags over 64 bytes are refused up front, so the work stays small.
        let input = TestSupport.fixture("fuzz/timeout-long-colour-and-language.bin")
        let start = DispatchTime.now().uptimeNanoseconds
        _ = PassFuzzing.run(input, opener: PassOpener(trust: TestSupport.trust))
        XCTAssertLessThan(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, 500)
        XCTAssertNil(PassColor(String(repeating: " ", count: 100) + "#fff"))
        let longTag = Array(repeating: "de", count: 1000).joined(separator: "-")
        XCTAssertEqual(Localization.choose(["de", "en"], preferred: [longTag]), "en")
    }

    func testEverySelectorAcceptsEmptyAndTinyInputs() {
        let opener = PassOpener(trust: TestSupport.trust)
        for selector in 0..<6 {
            for body in [[], [0], [0x50, 0x4B, 0x05, 0x06], Array(repeating: 0xFF, count: 64)] as [[UInt8]] {
                _ = PassFuzzing.run([UInt8(selector)] + body, opener: opener)
            }
        }
        XCTAssertEqual(PassFuzzing.run([], opener: opener), 0)
    }
}
