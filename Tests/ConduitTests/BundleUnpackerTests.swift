import Foundation
import XCTest
@testable import Conduit
import WalletPass

final class BundleUnpackerTests: XCTestCase {
    let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples/passes")

    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: samples.appendingPathComponent(name))) }

    func testMembersAreTheOriginalPassBytes() throws {
        let members = BundleUnpacker.members(try bytes("bundle.pkpasses"), limits: .default)
        XCTAssertEqual(Set(members.keys), ["event-ticket.pkpass", "boarding-pass.pkpass", "coupon.pkpass"])
        for (name, data) in members { XCTAssertEqual(data, try bytes(name), name) }
    }

    func testRealBundleFromKDEUnpacks() throws {
        let members = BundleUnpacker.members(try FixtureFile.bytes("kitinerary__lufthansa.pkpasses"), limits: .default)
        XCTAssertEqual(Set(members.keys), ["lufthansa.pkpass", "lufthansa-with-timezone.pkpass"])
    }

    func testMemberOverTheSizeLimitIsLeftOut() throws {
        var limits = PassLimits.default
        limits.maxArchiveBytes = 10_000   // the event ticket is ~30 KB, the others ~5 KB
        let members = BundleUnpacker.members(try bytes("bundle.pkpasses"), limits: limits)
        XCTAssertEqual(Set(members.keys), ["boarding-pass.pkpass", "coupon.pkpass"])
    }

    func testOnlyTheFirstMembersUpToTheLimitAreRead() throws {
        var limits = PassLimits.default
        limits.maxBundleMembers = 1
        XCTAssertEqual(BundleUnpacker.members(try bytes("bundle.pkpasses"), limits: limits).count, 1)
    }

    func testNotAZipGivesNothing() throws {
        XCTAssertTrue(BundleUnpacker.members(Array("fail\n".utf8), limits: .default).isEmpty)
        XCTAssertTrue(BundleUnpacker.members([], limits: .default).isEmpty)
    }

    func testTruncatedBundleNeverCrashes() throws {
        let bundle = try bytes("bundle.pkpasses")
        for cut in stride(from: 0, to: bundle.count, by: 997) {
            _ = BundleUnpacker.members(Array(bundle.prefix(cut)), limits: .default)
        }
    }
}
