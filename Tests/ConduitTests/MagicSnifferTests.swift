import XCTest
@testable import Conduit

final class MagicSnifferTests: XCTestCase {
    func testShippedRulesAreFoundAndLoadedBeforeTheSystemDatabase() throws {
        let sniffer = try MagicSniffer()
        XCTAssertEqual(sniffer.databases.count, 2)
        XCTAssertTrue(sniffer.databases[0].hasSuffix("Config/passconduit.magic"), sniffer.databases[0])
        XCTAssertEqual(sniffer.databases[1], MagicSniffer.systemDatabase)
    }

    func testWholePassIsAnAppleWalletPass() throws {
        let sniffer = try MagicSniffer()
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("edutap__resources-basic_pass.pkpass")),
                       "application/vnd.apple.pkpass")
    }

    func testBundleIsAnAppleWalletBundle() throws {
        let sniffer = try MagicSniffer()
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("kitinerary__lufthansa.pkpasses")),
                       "application/vnd.apple.pkpasses")
    }

    func testPassCutByTheSniffWindowIsKnownByItsFirstMember() throws {
        let sniffer = try MagicSniffer()
        let pass = try FixtureFile.bytes("edutap__resources-basic_pass.pkpass")
        XCTAssertEqual(sniffer.mimeType(of: Array(pass.prefix(1024))), "application/vnd.apple.pkpass")
    }

    func testZipCutByTheSniffWindowIsStillAZip() throws {
        let sniffer = try MagicSniffer()
        let zip = try FixtureFile.bytes("plain.zip")
        let type = sniffer.mimeType(of: Array(zip.dropLast(22)))   // no end-of-central-directory record
        XCTAssertEqual(type, "application/zip")
        XCTAssertTrue(Detection.magicSuggestsZip(type))
    }

    func testOtherContentKeepsItsSystemType() throws {
        let sniffer = try MagicSniffer()
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("icon.png")), "image/png")
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("plain.zip")), "application/zip")
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("passandroid__broken-fail.pkpass")), "text/plain")
    }

    func testWithoutOurRulesAPassIsOnlyAZip() throws {
        let sniffer = try MagicSniffer(rulesFile: nil)
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("edutap__resources-basic_pass.pkpass")), "application/zip")
    }

    func testMissingRulesFileIsAnErrorNamingIt() {
        XCTAssertThrowsError(try MagicSniffer(rulesFile: "/nonexistent/rules.magic")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/rules.magic"), "\(error)")
        }
    }
}
