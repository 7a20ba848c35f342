import XCTest
import Conduit
import PassStore
@testable import passconduit

/// One mapping from library errors to exit statuses: `list`, `show`, `add` and `update` used three
/// that disagreed (a missing offer was 66 in one command and 74 in `add`; a busy library while
/// resolving an ID was "no such pass", 66).
final class LibraryCallTests: XCTestCase {
    private func status(of kind: LibraryError.Kind) -> Int32? {
        do {
            _ = try LibraryCall.run { () async throws -> Int in throw LibraryError(kind, "detail", path: "/lib") }
            return nil
        } catch let error as CLIError {
            XCTAssertEqual(error.message, "/lib: detail")
            return error.status.rawValue
        } catch {
            return nil
        }
    }

    func testLibraryErrorsBecomeTheirSysexitsStatus() {
        XCTAssertEqual(status(of: .refused), 65)
        XCTAssertEqual(status(of: .notFound), 66)
        XCTAssertEqual(status(of: .ambiguousID), 64)
        for kind: LibraryError.Kind in [.io, .notALibrary, .cannotCreate, .exists, .newerSchema] {
            XCTAssertEqual(status(of: kind), 74, "\(kind)")
        }
        // "Try again later" is 75 on both backends: SQLite's busy, PostgreSQL's unavailable.
        XCTAssertEqual(status(of: .busy), 75)
        XCTAssertEqual(status(of: .unavailable), 75)
    }

    func testOtherErrorsPassThroughUnmapped() {
        struct Other: Error {}
        XCTAssertThrowsError(try LibraryCall.run { () async throws -> Int in throw Other() }) { XCTAssertTrue($0 is Other) }
    }
}
