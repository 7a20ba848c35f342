import Foundation
import XCTest
@testable import Conduit

final class ConfigTests: XCTestCase {
    let env = ["HOME": "/home/ana"]

    func testEmptyFileGivesTheDefaults() throws {
        let config = try Config.parse("", file: "/etc/c.toml", environment: env)
        XCTAssertEqual(config.limits, .default)
        XCTAssertEqual(config.filter, FilterSettings())
        XCTAssertNil(config.libraryPath)
        XCTAssertEqual(config.file, "/etc/c.toml")
    }

    func testEverySettingIsRead() throws {
        let text = """
        language = "de"
        [library]
        path = "~/wallet/lib.sqlite"
        [trust]
        directories = ["anchors", "/srv/ca"]
        [limits]
        max-message-bytes = 1000
        max-depth = 7
        max-parts = 50
        max-header-bytes = 4096
        sniff-bytes = 8192
        max-pass-bytes = 1000000
        max-pass-entries = 99
        max-entry-bytes = 5000
        max-unpacked-bytes = 6000
        max-compression-ratio = 50
        max-bundle-members = 3
        max-upcoming-entries = 12
        [filter]
        apply-updates = false
        add-headers = false
        max-message-bytes = 2000
        deadline-seconds = 2.5
        """
        let config = try Config.parse(text, file: "/etc/pc/config.toml", environment: env)
        XCTAssertEqual(config.language, "de")
        XCTAssertEqual(config.libraryPath, "/home/ana/wallet/lib.sqlite")
        XCTAssertEqual(config.trustDirectories, ["/etc/pc/anchors", "/srv/ca"])
        XCTAssertEqual(config.limits.mime.maxMessageBytes, 1000)
        XCTAssertEqual(config.limits.mime.maxDepth, 7)
        XCTAssertEqual(config.limits.mime.maxParts, 50)
        XCTAssertEqual(config.limits.mime.maxHeaderBytes, 4096)
        XCTAssertEqual(config.limits.sniffBytes, 8192)
        XCTAssertEqual(config.limits.pass.maxArchiveBytes, 1_000_000)
        XCTAssertEqual(config.limits.pass.maxEntries, 99)
        XCTAssertEqual(config.limits.pass.maxEntryBytes, 5000)
        XCTAssertEqual(config.limits.pass.maxTotalBytes, 6000)
        XCTAssertEqual(config.limits.pass.maxCompressionRatio, 50)
        XCTAssertEqual(config.limits.pass.maxBundleMembers, 3)
        XCTAssertEqual(config.limits.pass.maxUpcomingEntries, 12)
        XCTAssertFalse(config.filter.applyUpdates)
        XCTAssertFalse(config.filter.addHeaders)
        XCTAssertEqual(config.limits.filterMaxMessageBytes, 2000)
        XCTAssertEqual(config.limits.filterDeadlineSeconds, 2.5)
    }

    func testShippedDefaultConfigParsesToTheDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent("Config/config.toml").path
        let config = try Config.load(explicitPath: path, environment: env)
        XCTAssertEqual(config.limits, .default)
        XCTAssertEqual(config.filter, FilterSettings())
        XCTAssertEqual(config.trustDirectories, [])
    }

    /// Config/config.toml documents every key the parser reads, in its section, and no other; each
    /// documented value, uncommented, parses (so the file's defaults are real settings).
    func testTheShippedFileDocumentsEveryKeyTheCodeReads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Config/config.toml"), encoding: .utf8)
        var section = ""
        var documented: [String: [String]] = ["": []]
        var uncommented: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("["), let end = line.firstIndex(of: "]") {
                section = String(line[line.index(after: line.startIndex)..<end])
                documented[""]!.append(section)
                documented[section, default: []] = []
                uncommented.append(String(line))
            } else if line.hasPrefix("# "), let equals = line.range(of: " = "),
                      !line.dropFirst(2)[..<equals.lowerBound].contains(" ") {
                let key = String(line.dropFirst(2)[..<equals.lowerBound])
                documented[section, default: []].append(key)
                uncommented.append(String(line.dropFirst(2)))
            }
        }
        XCTAssertEqual(documented.mapValues { Set($0) }, Config.keys.mapValues { Set($0) })
        XCTAssertNoThrow(try Config.parse(uncommented.joined(separator: "\n"), file: "/etc/c.toml", environment: env))
    }

    func testWrongTypeNamesFileLineAndKey() {
        let text = "# comment\n[limits]\nmax-depth = 7\nmax-parts = \"many\"\n"
        XCTAssertThrowsError(try Config.parse(text, file: "/x/config.toml", environment: env)) { error in
            let error = error as! ConfigError
            XCTAssertEqual(error.kind, .badValue)
            XCTAssertEqual(error.line, 4)
            XCTAssertEqual(error.key, "limits.max-parts")
            XCTAssertEqual(error.description, "/x/config.toml:4: limits.max-parts: expected an integer, found string")
        }
    }

    func testUnknownKeyIsAnErrorWithItsLine() {
        let text = "[filter]\napply-updates = true\nadd-header = true\n"
        XCTAssertThrowsError(try Config.parse(text, file: "c.toml", environment: env)) { error in
            let error = error as! ConfigError
            XCTAssertEqual(error.kind, .unknownKey)
            XCTAssertEqual(error.line, 3)
            XCTAssertEqual(error.key, "filter.add-header")
        }
    }

    func testDottedKeyOutsideItsTableIsLocated() {
        let text = "language = \"en\"\n\nlimits.max-depth = 0\n"
        XCTAssertThrowsError(try Config.parse(text, file: "c.toml", environment: env)) { error in
            let error = error as! ConfigError
            XCTAssertEqual(error.line, 3)
            XCTAssertEqual(error.key, "limits.max-depth")
            XCTAssertEqual(error.message, "must be greater than 0, found 0")
        }
    }

    func testSyntaxErrorCarriesTheLine() {
        let text = "[limits]\nmax-depth = 7\nmax-parts = = 3\n"
        XCTAssertThrowsError(try Config.parse(text, file: "c.toml", environment: env)) { error in
            let error = error as! ConfigError
            XCTAssertEqual(error.kind, .syntax)
            XCTAssertEqual(error.line, 3)
        }
    }

    func testNegativeDeadlineIsRefused() {
        XCTAssertThrowsError(try Config.parse("[filter]\ndeadline-seconds = -1\n", file: "c", environment: env)) { error in
            XCTAssertEqual((error as! ConfigError).kind, .badValue)
        }
    }

    func testMissingExplicitFileIsAnErrorNamingIt() {
        XCTAssertThrowsError(try Config.load(explicitPath: "/nonexistent/passconduit.toml", environment: env)) { error in
            XCTAssertEqual((error as! ConfigError).description, "/nonexistent/passconduit.toml: the configuration file does not exist")
        }
    }

    func testMissingDefaultFileMeansDefaults() throws {
        let config = try Config.load(explicitPath: nil, environment: ["XDG_CONFIG_HOME": "/nonexistent-xdg"])
        XCTAssertNil(config.file)
        XCTAssertEqual(config.limits, .default)
    }

    func testDefaultPathFollowsXDGThenHome() {
        XCTAssertEqual(ConfigLocation.defaultConfigPath(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]),
                       "/c/passconduit/config.toml")
        XCTAssertEqual(ConfigLocation.defaultConfigPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]),
                       "/h/.config/passconduit/config.toml")
    }

    func testWithoutHomeThePasswdEntryIsUsed() {
        let path = ConfigLocation.defaultConfigPath(environment: [:])
        XCTAssertNotNil(path)
        XCTAssertTrue(path!.hasPrefix("/"), path!)
        XCTAssertTrue(path!.hasSuffix("/.config/passconduit/config.toml"))
    }
}
