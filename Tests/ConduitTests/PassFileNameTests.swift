import XCTest
@testable import Conduit

/// The name a pass travels under when passconduit hands it on (`scan --json`'s pass.filename, a
/// chat bot's re-upload): organization and description in characters every file system and chat
/// client keeps, whatever the issuer wrote.
final class PassFileNameTests: XCTestCase {
    func name(_ organization: String, _ description: String) -> String {
        PassFileName.name(organization: organization, description: description)
    }

    func testOrganizationAndDescriptionMakeTheName() {
        XCTAssertEqual(name("Passconduit Air", "Boarding pass PC 1234"), "Passconduit Air Boarding pass PC 1234.pkpass")
        XCTAssertEqual(name("Example Air", "Example Air boarding pass"), "Example Air boarding pass.pkpass", "no organization twice")
        XCTAssertEqual(name("Deutsche Bahn", ""), "Deutsche Bahn.pkpass")
        XCTAssertEqual(name("", ""), "pass.pkpass")
        XCTAssertEqual(name("Kundenkarte München", "Bibliothek"), "Kundenkarte München Bibliothek.pkpass", "letters of every script stay")
        XCTAssertEqual(name("東京ドーム", "チケット"), "東京ドーム チケット.pkpass")
    }

    func testPathsControlsAndMarkupNeverReachTheName() {
        XCTAssertEqual(name("../../etc", "passwd"), "etc passwd.pkpass")
        XCTAssertEqual(name("a/b\\c", "d:e*f?g\"h<i>j|k"), "a b c d e f g h i j k.pkpass")
        XCTAssertEqual(name("Evil\u{202E}gpj.exe", "x\u{0}y\r\nz\u{7}"), "Evil gpj.exe x y z.pkpass", "no bidi override, NUL, CR, LF")
        XCTAssertEqual(name(".hidden", "-rf"), "hidden rf.pkpass", "no hidden file, no option")
        XCTAssertEqual(name("<script>alert(1)</script>", ""), "script alert(1) script.pkpass")
        XCTAssertEqual(name("🎟️ Tickets", "  "), "Tickets.pkpass")
    }

    func testALongNameIsCutAtAWholeCharacter() {
        let long = name(String(repeating: "é", count: 200), "")
        XCTAssertTrue(long.hasSuffix(".pkpass"))
        XCTAssertLessThanOrEqual(long.utf8.count, 120 + 7)
        XCTAssertEqual(long, String(repeating: "é", count: 60) + ".pkpass")
        XCTAssertEqual(name(String(repeating: "a", count: 119) + " b", ""), String(repeating: "a", count: 119) + ".pkpass",
                       "no trailing space after the cut")
    }
}
