import Foundation
import XCTest
@testable import Conduit
import PassStore
import PassStoreSQLite
import WalletPass
import Support

/// The one intake policy as a table: every origin against every kind of arrival, decided against
/// a real library (the state and the stored version come from `contains` and `pass`).
final class IntakeTests: XCTestCase {
    var library: PassLibrary!
    var dir: URL!
    let stored = IntakeTests.record("v1", signed: 1_700_000_000)

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-intake-\(UUID().uuidString)")
        library = try PassLibrary(path: dir.appendingPathComponent("library.sqlite").path)
    }

    override func tearDownWithError() throws {
        library = nil
        try? FileManager.default.removeItem(at: dir)
    }

    static func record(_ content: String, serial: String = "S-1", team: String = "TEAM1", status: PassStatus = .valid,
                       signed: TimeInterval?) -> PassRecord {
        let bytes = Array("pass bytes \(serial) \(team) \(content)".utf8)
        return PassRecord(id: PassID(passTypeIdentifier: "pass.com.example.test", serialNumber: serial), teamIdentifier: team,
                          status: StoredStatus(rawValue: status.rawValue)!, hashed: HashedBytes(bytes), organizationName: "Example",
                          description: "Test", kind: "generic", signingTime: signed.map(Date.init(timeIntervalSince1970:)))
    }

    /// The kinds of arrival, each against a library holding `stored` (valid, team TEAM1).
    enum Kind: CaseIterable {
        case new, sameBytes, newerSameTeam, newerOtherTeam, older, untrustedNew, untrustedNewer, invalid, unreadable
    }

    func arrival(_ kind: Kind) -> Intake.Arrival {
        let invalid = PassError(code: .badJSON, message: PassError.message(for: .badJSON), detail: "pass.json: unexpected end")
        let untrusted = PassError(code: .untrustedSigner, message: PassError.message(for: .untrustedSigner), detail: "no trusted root")
        switch kind {
        case .new: return .init(status: .valid, record: Self.record("other", serial: "S-2", signed: 1_700_000_000))
        case .sameBytes: return .init(status: .valid, record: stored)
        case .newerSameTeam: return .init(status: .valid, record: Self.record("v2", signed: 1_700_100_000))
        case .newerOtherTeam: return .init(status: .valid, record: Self.record("v2", team: "TEAM2", signed: 1_700_100_000))
        case .older: return .init(status: .valid, record: Self.record("v0", signed: 1_600_000_000))
        case .untrustedNew:
            return .init(status: .untrusted, error: untrusted,
                         record: Self.record("u", serial: "S-3", status: .untrusted, signed: 1_700_000_000))
        case .untrustedNewer:
            return .init(status: .untrusted, error: untrusted,
                         record: Self.record("u2", status: .untrusted, signed: 1_700_100_000))
        case .invalid: return .init(status: .invalid, error: invalid, record: Self.record("bad", status: .invalid, signed: nil))
        case .unreadable: return .init(status: .invalid, error: invalid, record: nil)
        }
    }

    /// Decides `kind` for `origin` against the real library, as each caller does: `contains`
    /// for the state, `pass` for the stored version under the same id.
    func decide(_ origin: Intake.Origin, _ kind: Kind) throws -> Intake.Decision {
        let a = arrival(kind)
        let state = try a.record.map { try library.contains($0) }
        let held = try a.record.flatMap { try library.pass($0.id) }
        if case .webService = origin {
            // The web service asks for the stored pass; a pass it does not hold is not asked for.
            return Intake(origin).decide(a, state: state, stored: try library.pass(stored.id))
        }
        return Intake(origin).decide(a, state: state, stored: held)
    }

    /// The decision's shape for the table: refusals by code only.
    func shape(_ d: Intake.Decision) -> String {
        switch d {
        case .add: return "add"
        case .replace(let ask): return ask ? "replace, asking" : "replace"
        case .offer: return "offer"
        case .nothing(let why): return "nothing (\(why.rawValue))"
        case .refuse(let code, _, _): return "refuse \(code)"
        }
    }

    func testEveryOriginAgainstEveryArrival() throws {
        try library.add(stored)
        let filter = Intake.Origin.filter(stageOffers: true, applyUpdates: true)
        let table: [(Kind, filter: String, user: String, userAllowingUntrusted: String, web: String)] = [
            (.new, "offer", "add", "add", "refuse different-pass"),
            (.sameBytes, "nothing (contained)", "nothing (contained)", "nothing (contained)", "nothing (contained)"),
            (.newerSameTeam, "replace", "replace, asking", "replace, asking", "replace"),
            (.newerOtherTeam, "offer", "refuse other-team", "refuse other-team", "refuse other-team"),
            (.older, "nothing (stale)", "refuse older-version", "refuse older-version", "refuse older-version"),
            (.untrustedNew, "nothing (notValid)", "refuse untrusted-signer", "add", "refuse untrusted-signer"),
            (.untrustedNewer, "nothing (notValid)", "refuse untrusted-signer", "replace, asking", "refuse untrusted-signer"),
            (.invalid, "nothing (notValid)", "refuse bad-json", "refuse bad-json", "refuse bad-json"),
            (.unreadable, "nothing (notValid)", "refuse bad-json", "refuse bad-json", "refuse bad-json"),
        ]
        XCTAssertEqual(table.map(\.0).count, Kind.allCases.count)
        for row in table {
            XCTAssertEqual(shape(try decide(filter, row.0)), row.filter, "filter, \(row.0)")
            XCTAssertEqual(shape(try decide(.user(allowUntrusted: false), row.0)), row.user, "user, \(row.0)")
            XCTAssertEqual(shape(try decide(.user(allowUntrusted: true), row.0)), row.userAllowingUntrusted, "user --allow-untrusted, \(row.0)")
            XCTAssertEqual(shape(try decide(.webService(allowUntrusted: true), row.0)), row.web, "web service, \(row.0)")
        }
    }

    func testTheFiltersSwitchesTurnOffersAndUpdatesOff() throws {
        try library.add(stored)
        let table: [(stageOffers: Bool, applyUpdates: Bool, new: String, newer: String)] = [
            (true, true, "offer", "replace"),
            (true, false, "offer", "offer"),
            (false, true, "nothing (switchedOff)", "replace"),
            (false, false, "nothing (switchedOff)", "nothing (switchedOff)"),
        ]
        for row in table {
            let origin = Intake.Origin.filter(stageOffers: row.stageOffers, applyUpdates: row.applyUpdates)
            XCTAssertEqual(shape(try decide(origin, .new)), row.new, "\(row)")
            XCTAssertEqual(shape(try decide(origin, .newerSameTeam)), row.newer, "\(row)")
        }
        // Without a library the filter does nothing; the user's add has nothing to check against.
        let a = arrival(.new)
        XCTAssertEqual(Intake(.filter(stageOffers: true, applyUpdates: true)).decide(a, state: nil, stored: nil), .nothing(.noLibrary))
        XCTAssertEqual(Intake(.user(allowUntrusted: false)).decide(a, state: nil, stored: nil), .add)
    }

    func testSignerContinuityAnUntrustedUpdateReplacesOnlyAnUntrustedVersionTheUserAllowed() throws {
        // Given an untrusted pass the user allowed into the library
        let untrustedStored = Self.record("u1", status: .untrusted, signed: 1_700_000_000)
        try library.add(untrustedStored, allowUntrusted: true)
        let newer = arrival(.untrustedNewer)
        let state = try library.contains(newer.record!)
        let held = try library.pass(untrustedStored.id)
        // Then the web service's untrusted newer version is taken only when untrusted passes are allowed
        XCTAssertEqual(Intake(.webService(allowUntrusted: true)).decide(newer, state: state, stored: held), .replace(askFirst: false))
        XCTAssertEqual(shape(Intake(.webService(allowUntrusted: false)).decide(newer, state: state, stored: held)), "refuse untrusted-signer")
    }

    func testRefusalsSayWhyInTheOriginsWords() throws {
        try library.add(stored)
        guard case .refuse(_, let user, _) = try decide(.user(allowUntrusted: false), .older),
              case .refuse(_, let web, let detail) = try decide(.webService(allowUntrusted: false), .older) else {
            return XCTFail("an older version is refused")
        }
        XCTAssertEqual(user, "Not added: your library already has a newer version of this pass.")
        XCTAssertEqual(web, "The issuer's server sent an older version than the one you have, so it was not taken.")
        XCTAssertTrue(detail.hasPrefix("update signed 2020-"), detail)
        guard case .refuse(_, let invalid, _) = try decide(.user(allowUntrusted: true), .invalid) else { return XCTFail() }
        XCTAssertEqual(invalid, "Not added: " + (arrival(.invalid).error?.message ?? ""))
    }
}
