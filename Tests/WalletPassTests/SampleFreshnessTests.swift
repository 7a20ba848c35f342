import Foundation
import XCTest
@testable import WalletPass

/// The samples are what a new user tries first and what most tests use: a sample whose dates are
/// past shows as "expired" in the README's first example, in `list` and in the web wallet
/// (issue 38 item 3: every sample had its dates in June–July 2026). This fails a year before any
/// sample pass or the test CA that signs them expires, so they are moved on in time
/// (Samples/make-passes.sh) long before a user meets an expired one.
final class SampleFreshnessTests: XCTestCase {
    static let margin: TimeInterval = 365 * 86_400
    let opener = PassOpener(trust: TestSupport.trust)

    static func passFiles() throws -> [URL] {
        var files: [URL] = []
        for folder in ["Samples/passes", "Samples/barcode-passes"] {
            let dir = TestSupport.root.appendingPathComponent(folder)
            files += try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pkpass") }.sorted()
                .map { dir.appendingPathComponent($0) }
        }
        return files
    }

    /// Every date that says when a pass is relevant or when it ends, as written in pass.json.
    static func dates(_ info: PassInfo) -> [Date] {
        var dates = [info.relevantDate, info.expirationDate].compactMap { $0 }
        for r in info.relevantDates { dates += [r.date, r.startDate, r.endDate].compactMap { $0?.date } }
        return dates
    }

    /// A voided pass is over whatever its dates say (the coupon sample is voided and expired on
    /// purpose); every other sample's dates are more than a year ahead, and so is the end of its
    /// signing certificate's validity.
    func testNoSamplePassExpiresWithinAYear() throws {
        let horizon = Date().addingTimeInterval(Self.margin)
        var dated = 0
        for file in try Self.passFiles() {
            let verdict = opener.open([UInt8](try Data(contentsOf: file)))
            guard let info = verdict.pass, !info.voided else { continue }
            let dates = Self.dates(info)
            if !dates.isEmpty { dated += 1 }
            for date in dates {
                XCTAssertGreaterThan(date, horizon, "\(file.lastPathComponent): a date in pass.json is within a year: \(date)")
            }
            // The leaves for expired-certificate samples are meant to have expired.
            guard verdict.status == .valid, verdict.notes.isEmpty, let notAfter = info.signer?.certificateNotAfter else { continue }
            XCTAssertGreaterThan(notAfter, horizon, "\(file.lastPathComponent): its signing certificate expires within a year")
            for date in dates {
                XCTAssertGreaterThan(notAfter, date, "\(file.lastPathComponent): its certificate ends before the pass does")
            }
        }
        XCTAssertGreaterThanOrEqual(dated, 3, "the event ticket (and its update) and the boarding pass have dates")
    }

    /// The test CA: its roots, the intermediate and every leaf that signs a current sample
    /// (not the two leaves that are expired on purpose), checked by openssl itself.
    func testTheSampleCAIsValidForMoreThanAYear() throws {
        let ca = TestSupport.root.appendingPathComponent("Samples/ca")
        let names = try FileManager.default.contentsOfDirectory(atPath: ca.path).filter { $0.hasSuffix(".pem") }
            .filter { $0 != "expired.pem" && $0 != "expiring.pem" }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 10, "\(names)")
        for name in names {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            p.arguments = ["x509", "-noout", "-checkend", String(Int(Self.margin)), "-in", ca.appendingPathComponent(name).path]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "Samples/ca/\(name) expires within a year (openssl x509 -checkend)")
        }
    }
}
