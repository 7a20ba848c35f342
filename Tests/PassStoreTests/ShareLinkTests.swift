import Foundation
import XCTest
@testable import PassStore

/// Share links (issue 42 item 2) on both backends: the link serves its pass's current bytes,
/// expires by the library's clock, is revoked, and a one-download link is served once even to
/// requests at once on separate connections (as two `serve` hosts would make them).
final class ShareLinkTests: XCTestCase {
    /// A clock the test moves.
    final class SetClock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: Double
        init(_ start: Double) { seconds = start }
        func now() -> Date { lock.withLock { Date(timeIntervalSince1970: seconds) } }
        func set(_ value: Double) { lock.withLock { seconds = value } }
    }

    func open(_ f: BackendFactory, _ clock: SetClock) async throws -> any PassLibraryBackend {
        try await f.open { options in options.now = { clock.now() } }
    }

    func testALinkServesThePassCurrentBytesAndCountsEachUse() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let library = try await open(f, clock)
            let v1 = Synthetic.record("1", version: 1), v2 = Synthetic.record("1", version: 2)
            try await library.add(v1)
            let secret = ShareLink.newSecret()
            XCTAssertTrue(ShareLink.wellFormed(secret), secret)
            let made = try await library.createShareLink(v1.id, secretHash: ShareLink.hash(secret),
                                                         expires: Date(timeIntervalSince1970: 1_800_000_000 + 7 * 86400), oneDownload: false)
            XCTAssertEqual(made.id, 1, "\(f.kind)")
            XCTAssertEqual(made.created, Date(timeIntervalSince1970: 1_800_000_000), "\(f.kind)")
            XCTAssertEqual(made.uses, 0, "\(f.kind)")
            XCTAssertNil(made.lastUsed, "\(f.kind)")

            clock.set(1_800_000_100)
            let first = try await library.redeemShareLink(secretHash: ShareLink.hash(secret))
            XCTAssertEqual(first?.bytes, v1.bytes, "\(f.kind)")
            // The link follows the pass: after an update it serves the new bytes.
            try await library.replace(with: v2)
            clock.set(1_800_000_200)
            let second = try await library.redeemShareLink(secretHash: ShareLink.hash(secret))
            XCTAssertEqual(second?.bytes, v2.bytes, "\(f.kind)")
            XCTAssertNotEqual(v1.bytes, v2.bytes)
            XCTAssertEqual(second?.link.uses, 2, "\(f.kind)")

            let listed = try await library.shareLinks(v1.id)
            XCTAssertEqual(listed.count, 1, "\(f.kind)")
            XCTAssertEqual(listed.first?.uses, 2, "\(f.kind)")
            XCTAssertEqual(listed.first?.lastUsed, Date(timeIntervalSince1970: 1_800_000_200), "\(f.kind)")
            XCTAssertEqual(listed.first?.state(at: clock.now()), .live, "\(f.kind)")
            let none = try await library.shareLinks(Synthetic.record("2").id)
            XCTAssertEqual(none, [], "\(f.kind)")

            // An unknown secret, or a link to a pass the library does not hold, is nothing.
            let unknown = try await library.redeemShareLink(secretHash: ShareLink.hash(ShareLink.newSecret()))
            XCTAssertNil(unknown, "\(f.kind)")
            await expectLibraryError(.notFound, f.kind) {
                try await library.createShareLink(Synthetic.record("2").id, secretHash: ShareLink.hash(ShareLink.newSecret()),
                                                  expires: clock.now().addingTimeInterval(60), oneDownload: false)
            }
            // Removing the pass ends its links.
            try await library.remove(v1.id)
            let gone = try await library.redeemShareLink(secretHash: ShareLink.hash(secret))
            XCTAssertNil(gone, "\(f.kind)")
            await assertSound(library, f.kind)
        }
    }

    func testALinkExpiresByTheLibraryClockAndIsRevoked() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let library = try await open(f, clock)
            let record = Synthetic.record("1")
            try await library.add(record)
            let (a, b) = (ShareLink.newSecret(), ShareLink.newSecret())
            let expires = Date(timeIntervalSince1970: 1_800_086_400)
            try await library.createShareLink(record.id, secretHash: ShareLink.hash(a), expires: expires, oneDownload: false)
            let second = try await library.createShareLink(record.id, secretHash: ShareLink.hash(b), expires: expires, oneDownload: false)
            XCTAssertEqual(second.id, 2, "\(f.kind)")

            clock.set(1_800_086_399)
            let before = try await library.redeemShareLink(secretHash: ShareLink.hash(a))
            XCTAssertEqual(before?.bytes, record.bytes, "\(f.kind)")
            clock.set(1_800_086_400)
            let at = try await library.redeemShareLink(secretHash: ShareLink.hash(a))
            XCTAssertNil(at, "\(f.kind): served at its expiry")
            let listed = try await library.shareLinks(nil)
            XCTAssertEqual(listed.map { $0.state(at: clock.now()) }, [.expired, .expired], "\(f.kind)")
            XCTAssertEqual(listed.map(\.uses), [1, 0], "\(f.kind): an expired link's use is not counted")

            clock.set(1_800_000_500)
            let revoked = try await library.revokeShareLink(2)
            XCTAssertTrue(revoked, "\(f.kind)")
            let afterRevoke = try await library.redeemShareLink(secretHash: ShareLink.hash(b))
            XCTAssertNil(afterRevoke, "\(f.kind)")
            let stillA = try await library.redeemShareLink(secretHash: ShareLink.hash(a))
            XCTAssertNotNil(stillA, "\(f.kind): revoking one link left the other")
            let unknown = try await library.revokeShareLink(99)
            XCTAssertFalse(unknown, "\(f.kind)")
            let states = try await library.shareLinks(record.id).map { $0.state(at: clock.now()) }
            XCTAssertEqual(states, [.live, .revoked], "\(f.kind)")
        }
    }

    /// Twenty requests at once for one one-download link, on two connections (two hosts): one
    /// gets the bytes.
    func testAOneDownloadLinkIsServedOnceToRequestsAtOnce() async {
        await forEachBackend { f in
            let clock = SetClock(1_800_000_000)
            let hosts = [try await open(f, clock), try await open(f, clock)]
            let record = Synthetic.record("1")
            try await hosts[0].add(record)
            let secret = ShareLink.newSecret()
            try await hosts[0].createShareLink(record.id, secretHash: ShareLink.hash(secret),
                                               expires: clock.now().addingTimeInterval(86400), oneDownload: true)
            let hash = ShareLink.hash(secret)
            let served = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                for i in 0..<20 {
                    let host = hosts[i % 2]
                    group.addTask { try await host.redeemShareLink(secretHash: hash)?.bytes }
                }
                var all: [[UInt8]?] = []
                for try await result in group { all.append(result) }
                return all
            }
            XCTAssertEqual(served.compactMap { $0 }.count, 1, "\(f.kind)")
            XCTAssertEqual(served.compactMap { $0 }.first, record.bytes, "\(f.kind)")
            let link = try await hosts[1].shareLinks(record.id).first
            XCTAssertEqual(link?.uses, 1, "\(f.kind)")
            XCTAssertEqual(link?.state(at: clock.now()), .used, "\(f.kind)")
        }
    }

    func testSecretsAreWellFormedOnlyAsMade() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let s = ShareLink.newSecret()
            XCTAssertTrue(ShareLink.wellFormed(s), s)
            seen.insert(s)
        }
        XCTAssertEqual(seen.count, 200)
        XCTAssertFalse(ShareLink.wellFormed(""))
        XCTAssertFalse(ShareLink.wellFormed(String(repeating: "A", count: 21) + "B"), "the last character carries 2 bits")
        XCTAssertFalse(ShareLink.wellFormed(String(repeating: "A", count: 21) + "+"))
        XCTAssertFalse(ShareLink.wellFormed(String(repeating: "A", count: 23)))
        XCTAssertEqual(ShareLink.hash("x").count, 64)
    }
}
