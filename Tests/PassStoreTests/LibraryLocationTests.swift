import Foundation
import XCTest
@testable import PassStore

final class LibraryLocationTests: XCTestCase {
    func testDefaultPathIsUnderXDGDataHome() {
        XCTAssertEqual(PassLibrary.defaultPath(environment: ["XDG_DATA_HOME": "/srv/data/", "HOME": "/home/u"]),
                       "/srv/data/passconduit/library.sqlite")
    }

    func testDefaultPathFallsBackToHomeLocalShare() {
        XCTAssertEqual(PassLibrary.defaultPath(environment: ["HOME": "/home/u"]),
                       "/home/u/.local/share/passconduit/library.sqlite")
        XCTAssertEqual(PassLibrary.defaultPath(environment: ["XDG_DATA_HOME": "", "HOME": "/home/u"]),
                       "/home/u/.local/share/passconduit/library.sqlite")
    }

    func testRelativeXDGDataHomeIsIgnoredAsTheSpecSays() {
        XCTAssertEqual(PassLibrary.defaultPath(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/u"]),
                       "/home/u/.local/share/passconduit/library.sqlite")
    }

    func testWithoutHomeThePasswdEntrysHomeIsUsed() throws {
        // Given no HOME (a Postfix pipe) — the passwd entry of this uid
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else {
            return XCTFail("this uid has no passwd entry")
        }
        let home = String(cString: dir)
        XCTAssertEqual(PassLibrary.defaultPath(environment: [:]),
                       (home == "/" ? "" : home) + "/.local/share/passconduit/library.sqlite")
    }
}
