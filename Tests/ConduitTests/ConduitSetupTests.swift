import XCTest
@testable import Conduit
import WalletPass

final class ConduitSetupTests: XCTestCase {
    func testLanguageFromLocaleVariables() {
        XCTAssertEqual(ConduitSetup.languages(from: "de_DE.UTF-8"), ["de-DE", "de"])
        XCTAssertEqual(ConduitSetup.languages(from: "fr"), ["fr"])
        XCTAssertEqual(ConduitSetup.languages(from: "C.UTF-8"), [])
        XCTAssertEqual(ConduitSetup.languages(from: "POSIX"), [])
        XCTAssertEqual(ConduitSetup.languages(from: "sr_RS@latin"), ["sr-RS", "sr"])
    }

    func testLangOptionWinsOverConfigWhichWinsOverLocale() throws {
        let config = try Config.parse("language = \"fr\"\n", file: "/c.toml", environment: [:])
        let env = ["LANG": "de_DE.UTF-8"]
        XCTAssertEqual(ConduitSetup(config: config, environment: env, languageOverride: "es").preferredLanguages, ["es"])
        XCTAssertEqual(ConduitSetup(config: config, environment: env).preferredLanguages, ["fr"])
        XCTAssertEqual(ConduitSetup(config: Config(), environment: env).preferredLanguages, ["de-DE", "de"])
        XCTAssertEqual(ConduitSetup(config: Config(), environment: ["LC_ALL": "it_IT", "LANG": "de"]).preferredLanguages, ["it-IT", "it"])
    }

    func testLibraryOptionWinsOverConfigWhichWinsOverDefault() throws {
        let config = try Config.parse("[library]\npath = \"/srv/lib.sqlite\"\n", file: "/c.toml", environment: [:])
        XCTAssertEqual(ConduitSetup(config: config, environment: [:], libraryOverride: "/x.sqlite").libraryPath, "/x.sqlite")
        XCTAssertEqual(ConduitSetup(config: config, environment: [:]).libraryPath, "/srv/lib.sqlite")
        XCTAssertEqual(ConduitSetup(config: Config(), environment: ["XDG_DATA_HOME": "/d"]).libraryPath,
                       "/d/passconduit/library.sqlite")
    }

    func testTrustFoldersComeShippedThenConfigThenOption() throws {
        let config = try Config.parse("[trust]\ndirectories = [\"/a\"]\n", file: "/c.toml", environment: [:])
        let dirs = ConduitSetup(config: config, environment: [:], extraTrust: ["/b"]).trustDirectories
        let shipped = TrustStore.shippedDirectory().map { [$0] } ?? []
        XCTAssertEqual(dirs, shipped + ["/a", "/b"])
    }

    func testTheFilterScannersSnifferLoadsLibmagicOnlyWhenAsked() throws {
        // The delivery filter's scanner: libmagic is not loaded for a message whose pass is labelled.
        let scanner = try ConduitSetup(config: Config(), environment: [:]).scanner(library: nil)
        let sniffer = try XCTUnwrap(scanner.sniffer)
        XCTAssertFalse(sniffer.isLoaded)
        let pass = try Samples.bytes("passes/event-ticket.pkpass")
        let message = Array(("From: a@example.org\nMIME-Version: 1.0\nContent-Type: application/vnd.apple.pkpass; name=\"t.pkpass\"\n"
                             + "Content-Transfer-Encoding: base64\n\n" + Data(pass).base64EncodedString(options: .lineLength76Characters) + "\n").utf8)
        let found = scanner.scanMessage(message, source: PassSourceInfo(input: "x", message: 1))
        XCTAssertEqual(found.first?.source.detectedBy, [.contentType, .fileExtension, .magic])
        XCTAssertFalse(sniffer.isLoaded)
    }
}
