import Foundation
import XCTest
@testable import Updates

/// The gate a gateway's libraries share (`update --library-map`): one request at a time per
/// issuer host whatever the number of libraries, requests to other hosts unhindered, and an
/// issuer's Retry-After kept for everyone until it has passed.
final class IssuerGateTests: XCTestCase {
    actor Tally {
        var inFlight: [String: Int] = [:]
        var most: [String: Int] = [:]
        var order: [String] = []
        func enter(_ host: String) {
            inFlight[host, default: 0] += 1
            most[host] = max(most[host] ?? 0, inFlight[host] ?? 0)
        }
        func leave(_ host: String, _ tag: String) {
            inFlight[host, default: 0] -= 1
            order.append(tag)
        }
    }

    func testOneRequestAtATimePerHostAndOthersInParallel() async {
        let gate = IssuerGate()
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for n in 0..<24 {
                let host = n % 3 == 0 ? "other.example" : "air.example"
                group.addTask {
                    await gate.acquire(host)
                    await tally.enter(host)
                    try? await Task.sleep(for: .milliseconds(2))
                    await tally.leave(host, "\(host)-\(n)")
                    await gate.release(host)
                }
            }
        }
        let most = await tally.most
        XCTAssertEqual(most["air.example"], 1, "two requests to one host at once")
        XCTAssertEqual(most["other.example"], 1)
        let order = await tally.order
        XCTAssertEqual(order.count, 24, "every request ran: none was left waiting")
    }

    func testRetryAfterHoldsForEveryLibraryUntilItPasses() async {
        let gate = IssuerGate()
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        await gate.backOff("air.example", until: now.addingTimeInterval(600))
        await gate.backOff("air.example", until: now.addingTimeInterval(60))   // an earlier date does not shorten it
        let held = await gate.waitUntil("air.example", now: now)
        XCTAssertEqual(held, now.addingTimeInterval(600))
        let other = await gate.waitUntil("other.example", now: now)
        XCTAssertNil(other)
        let later = await gate.waitUntil("air.example", now: now.addingTimeInterval(601))
        XCTAssertNil(later, "past the date, the host is asked again")
    }
}
