import Foundation
import XCTest
@testable import Conduit
import WalletPass

/// Bundles (`.pkpasses`) through the scanner: each member is verified and stored with its own
/// original `.pkpass` bytes (what the library exports byte-identical), from the one reading of
/// the bundle that PassOpener.openBundle does.
final class PassScannerBundleTests: XCTestCase {
    func testBundleMembersCarryTheirOriginalPassBytes() throws {
        let scanner = try Samples.scanner()
        let found = scanner.scanPassBytes(try Samples.bytes("passes/bundle.pkpasses"), kind: .bundle,
                                          source: PassSourceInfo(input: "bundle.pkpasses"))
        XCTAssertEqual(Set(found.compactMap { $0.source.member }),
                       ["event-ticket.pkpass", "boarding-pass.pkpass", "coupon.pkpass"])
        for pass in found {
            let member = try XCTUnwrap(pass.source.member)
            XCTAssertEqual(pass.verdict.status, .valid, member)
            XCTAssertEqual(pass.record?.bytes, try Samples.bytes("passes/" + member), member)
        }
    }

    func testRealBundleFromKDEGivesBothMembersWithRecords() throws {
        let scanner = try Samples.scanner()
        let bundle = try FixtureFile.bytes("kitinerary__lufthansa.pkpasses")
        let found = scanner.scanPassBytes(bundle, kind: .bundle, source: PassSourceInfo(input: "lufthansa.pkpasses"))
        XCTAssertEqual(Set(found.compactMap { $0.source.member }), ["lufthansa.pkpass", "lufthansa-with-timezone.pkpass"])
        for pass in found {
            let bytes = try XCTUnwrap(pass.record?.bytes, "\(pass.source.member ?? "?")")
            XCTAssertTrue(ZipSignature.starts(bytes[...]), "a member's record holds that member's zip, not the bundle")
            XCTAssertNotEqual(bytes, bundle)
            XCTAssertEqual(pass.record?.sha256, pass.verdict.sha256)
        }
    }

    func testUnreadableBundleGivesOneInvalidResultWithoutRecord() throws {
        let scanner = try Samples.scanner()
        for junk in [Array("fail\n".utf8), []] {
            let found = scanner.scanPassBytes(junk, kind: .bundle, source: PassSourceInfo(input: "junk"))
            XCTAssertEqual(found.count, 1)
            XCTAssertEqual(found.first?.verdict.status, .invalid)
            XCTAssertNil(found.first?.source.member)
            XCTAssertNil(found.first?.record, "no pass of its own: nothing to store")
        }
    }

    func testTruncatedBundleNeverCrashesAndStoresNoBundleBytesAsAPass() throws {
        let scanner = try Samples.scanner()
        let bundle = try Samples.bytes("passes/bundle.pkpasses")
        for cut in stride(from: 0, to: bundle.count, by: 997) {
            let piece = Array(bundle.prefix(cut))
            for pass in scanner.scanPassBytes(piece, kind: .bundle, source: PassSourceInfo(input: "cut")) {
                XCTAssertNotEqual(pass.record?.bytes, piece, "cut at \(cut)")
            }
        }
    }
}
