import Foundation
import XCTest

/// `passconduit list` draws the one library model (issue 26 item 14): what comes next first, then
/// the rest, then "Expired"; `list TEXT`, `--kind`, `--archived`, and `groupingIdentifier` in
/// `--json`. The boarding pass sample (grouped) flies in July 2037, so it comes first; the store
/// card and the generic pass have no date; the voided coupon (expired 2026-05-31) is past.
final class ListOrderTests: XCTestCase {
    func testCurrentPassesFirstThenTheExpiredSectionSearchKindAndGroupingIdentifier() throws {
        let sandbox = try Sandbox()
        for name in ["boarding-pass", "store-card", "coupon", "generic"] {
            XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/\(name).pkpass")]).status, 0, name)
        }
        let list = try sandbox.run("list", [], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let lines = list.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let organizations = lines.map { line in ["Passconduit Coffee", "Passconduit Air", "Passconduit Bakery", "Passconduit Library", "Expired"]
            .first { line.contains($0) } ?? (line.isEmpty ? "" : "?") }
        XCTAssertEqual(organizations.first, "Passconduit Air", list.stdout)
        XCTAssertEqual(Array(organizations.dropFirst().prefix(2)).sorted(), ["Passconduit Coffee", "Passconduit Library"], list.stdout)
        XCTAssertEqual(Array(organizations.dropFirst(3).prefix(3)), ["", "Expired", "Passconduit Bakery"], list.stdout)

        let archived = try sandbox.run("list", ["--archived", "--json"]).objects
        XCTAssertEqual(archived.compactMap { $0["organizationName"] as? String }, ["Passconduit Bakery"])
        let coffee = try sandbox.run("list", ["coffee", "CLUB", "--json"]).objects
        XCTAssertEqual(coffee.compactMap { $0["organizationName"] as? String }, ["Passconduit Coffee"])
        let boarding = try sandbox.run("list", ["--kind", "boarding", "--json"]).objects
        XCTAssertEqual(boarding.count, 1)
        XCTAssertEqual(boarding.first?["groupingIdentifier"] as? String, "PC1234-20260701")
        XCTAssertTrue(try sandbox.run("list", ["--json"]).objects.allSatisfy { $0.keys.contains("groupingIdentifier") })
        let none = try sandbox.run("list", ["no such words"])
        XCTAssertEqual(none.stdout, "No pass matches.\n")
        XCTAssertEqual(try sandbox.run("list", ["--kind", "spaceship"]).status, 64)
    }
}
