import PassStore
import PassStoreSQLite
import Conduit
import XCTest
@testable import DeliveryFilter

/// Options from the config file and the environment the filter can rely on.
final class FilterConfigurationTests: XCTestCase {
    func testConfigurationFillsWhatTheCommandLineLeftOpen() throws {
        let config = try Config.parse("""
            language = "de"
            [library]
            path = "/srv/lib.sqlite"
            [trust]
            directories = ["/etc/anchors"]
            [filter]
            apply-updates = false
            add-headers = false
            deadline-seconds = 2
            max-message-bytes = 1000
            """, file: "/etc/passconduit/config.toml", environment: [:])
        var o = FilterOptions()          // as `--deadline 1 --trust /mine` leaves them
        o.deadlineSeconds = 1
        o.trustDirectories = ["/mine"]
        FilterConfiguration.apply(config, to: &o, explicit: ["deadlineSeconds"], environment: [:])
        XCTAssertEqual(o.deadlineSeconds, 1)          // the flag wins
        XCTAssertEqual(o.maxScanBytes, 1000)
        XCTAssertFalse(o.applyUpdates)
        XCTAssertFalse(o.headers)
        // Library, anchors and language resolve exactly as for every other command.
        let setup = FilterScanner(options: o, environment: ["LANG": "fr_FR.UTF-8"], openLibrary: { try PassLibrary(path: $0, options: $1) }).setup
        XCTAssertEqual(setup.libraryPath, "/srv/lib.sqlite")
        XCTAssertEqual(Array(setup.trustDirectories.suffix(2)), ["/etc/anchors", "/mine"])
        XCTAssertEqual(setup.preferredLanguages, ["de"])
        var cli = o
        cli.libraryPath = "/flag.sqlite"
        XCTAssertEqual(FilterScanner(options: cli, environment: [:], openLibrary: { try PassLibrary(path: $0, options: $1) }).setup.libraryPath, "/flag.sqlite")
    }

    func testBrokenConfigIsReportedNotThrown() {
        var o = FilterOptions()
        o.configPath = "/nonexistent/passconduit.toml"
        XCTAssertEqual(FilterConfiguration.apply(to: &o, explicit: [], environment: [:])?.code, .badConfig)
    }

    func testEnvironmentWithoutHomeFallsBackToPasswd() {
        let env = FilterEnvironment.resolve(["XDG_STATE_HOME": "relative/dir", "TMPDIR": "tmp"])
        XCTAssertEqual(env["HOME"], ConfigLocation.passwdHome())
        XCTAssertNil(env["XDG_STATE_HOME"])
        XCTAssertNil(env["TMPDIR"])
        XCTAssertEqual(FilterEnvironment.stateDirectory(["HOME": "/h"]), "/h/.local/state/passconduit")
        XCTAssertEqual(FilterEnvironment.stateDirectory(["HOME": "/h", "XDG_STATE_HOME": "/s"]), "/s/passconduit")
    }
}
