import Foundation
import XCTest
@testable import Conduit

final class LibraryLocationTests: XCTestCase {
    func testDefaultPathIsUnderXDGDataHome() {
        XCTAssertEqual(ConfigLocation.defaultLibraryPath(environment: ["XDG_DATA_HOME": "/srv/data/", "HOME": "/home/u"]),
                       "/srv/data/passconduit/library.sqlite")
    }

    func testDefaultPathFallsBackToHomeLocalShare() {
        XCTAssertEqual(ConfigLocation.defaultLibraryPath(environment: ["HOME": "/home/u"]),
                       "/home/u/.local/share/passconduit/library.sqlite")
        XCTAssertEqual(ConfigLocation.defaultLibraryPath(environment: ["XDG_DATA_HOME": "", "HOME": "/home/u"]),
                       "/home/u/.local/share/passconduit/library.sqlite")
    }

    func testRelativeXDGDataHomeIsIgnoredAsTheSpecSays() {
        XCTAssertEqual(ConfigLocation.defaultLibraryPath(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/u"]),
                       "/home/u/.local/share/passconduit/library.sqlite")
    }

    func testWithoutHomeThePasswdEntrysHomeIsUsed() throws {
        // Given no HOME (a Postfix pipe) — the passwd entry of this uid
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else {
            return XCTFail("this uid has no passwd entry")
        }
        let home = String(cString: dir)
        XCTAssertEqual(ConfigLocation.defaultLibraryPath(environment: [:]),
                       (home == "/" ? "" : home) + "/.local/share/passconduit/library.sqlite")
    }
}
