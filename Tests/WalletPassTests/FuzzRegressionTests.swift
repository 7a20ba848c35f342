import Foundation
import XCTest
@testable import WalletPass
import TestRandom

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

/// A small deterministic mutation run in every test pass (the long runs are libFuzzer's, see
/// Fuzz/PASS.md): flipped, truncated and spliced samples always get a consistent verdict.
final class MutationTests: XCTestCase {
    func testMutatedSamplesAlwaysGetAConsistentVerdict() {
        let opener = PassOpener(trust: TestSupport.trust)
        let seeds = ["generic.pkpass", "localized.pkpass", "coupon-embedded.pkpass", "bundle.pkpasses"].map(TestSupport.sample)
        var rng = SeededGenerator(state: 20261121)
        var outcomes: [PassStatus: Int] = [:]
        for _ in 0..<600 {
            var bytes = seeds[rng.below(seeds.count)]
            switch rng.below(4) {
            case 0: for _ in 0..<(1 + rng.below(8)) { bytes[rng.below(bytes.count)] ^= UInt8(1 << rng.below(8)) }
            case 1: bytes = Array(bytes.prefix(rng.below(bytes.count)))
            case 2:
                let piece = Array(bytes[rng.below(bytes.count)...].prefix(rng.below(64)))
                bytes.insert(contentsOf: piece, at: rng.below(bytes.count))
            default:
                let start = rng.below(bytes.count)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + rng.below(64)))
            }
            let v = opener.open(bytes)
            XCTAssertEqual(v.status == .valid, v.error == nil)
            XCTAssertEqual(v.sha256.count, 64)
            if let e = v.error {
                // The code's sentence, or for a tripped limit the same sentence naming the limit.
                let base = PassError.message(for: e.code)
                XCTAssertTrue(e.message == base || e.message.hasPrefix(String(base.dropLast()) + " (over the limit of "), e.message)
            }
            outcomes[v.status, default: 0] += 1
            _ = opener.openBundle(bytes)
        }
        XCTAssertGreaterThan(outcomes[.invalid] ?? 0, 300)
    }
}
