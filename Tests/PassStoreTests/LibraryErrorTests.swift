import XCTest
@testable import PassStore

final class LibraryErrorTests: XCTestCase {
    func testErrorNamesThePath() {
        XCTAssertEqual(LibraryError(.notALibrary, "not a pass library", path: "/x/lib.sqlite").description,
                       "/x/lib.sqlite: not a pass library")
    }
}
