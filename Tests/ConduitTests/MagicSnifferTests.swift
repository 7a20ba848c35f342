import XCTest
import Foundation
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

    func testALazySnifferLoadsAtItsFirstQuestion() throws {
        let sniffer = try MagicSniffer(lazily: true)
        XCTAssertFalse(sniffer.isLoaded)
        XCTAssertEqual(sniffer.databases.count, 2)
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("edutap__resources-basic_pass.pkpass")),
                       "application/vnd.apple.pkpass")
        XCTAssertTrue(sniffer.isLoaded)
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("icon.png")), "image/png")
        XCTAssertEqual(sniffer.sniffCount, 2)
        XCTAssertTrue(try MagicSniffer().isLoaded, "eager by default")
    }

    func testALazySnifferStillRefusesAMissingRulesFile() {
        XCTAssertThrowsError(try MagicSniffer(rulesFile: "/nonexistent/rules.magic", lazily: true)) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/rules.magic"), "\(error)")
        }
    }

    func testMissingRulesFileIsAnErrorNamingIt() {
        XCTAssertThrowsError(try MagicSniffer(rulesFile: "/nonexistent/rules.magic")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/rules.magic"), "\(error)")
        }
    }
}

final class MagicSnifferMemoryTests: XCTestCase {
    /// The bytes go to libmagic from memory: no file is made in $TMPDIR, not even an unlinked
    /// one (it would still show in /proc/self/fd).
    func testSniffingMakesNoTemporaryFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sniff-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = getenv("TMPDIR").map { String(cString: $0) }
        setenv("TMPDIR", dir.path, 1)
        defer { if let saved { setenv("TMPDIR", saved, 1) } else { unsetenv("TMPDIR") } }
        let sniffer = try MagicSniffer()
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("edutap__resources-basic_pass.pkpass")), "application/vnd.apple.pkpass")
        XCTAssertEqual(sniffer.mimeType(of: try FixtureFile.bytes("icon.png")), "image/png")
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }
        XCTAssertFalse(open.contains { $0.hasPrefix(dir.path) }, "open files: \(open)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
        XCTAssertEqual(sniffer.sniffCount, 2)
    }
}
