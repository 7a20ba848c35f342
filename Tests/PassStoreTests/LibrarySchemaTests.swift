import Foundation
import XCTest
@testable import PassStore
@testable import PassStoreSQLite
import Support

final class LibrarySchemaTests: XCTestCase {
    /// A shipped migration is history: users' libraries were made by it. If this fails, add a
    /// new migration instead of editing v1.
    func testShippedMigrationIsNeverEdited() {
        XCTAssertEqual(Digest.sha256Hex(Array(LibrarySchema.v1.utf8)),
                       "5f1a9ceb8359524b4cac41a53e5ab7e4350eac22e84f356f07febefde75fe196")
    }

    func testMigrationsRunInOrderUnderStableNames() {
        XCTAssertEqual(LibrarySchema.migrator.migrations, ["v1-passes-offers-changes", "v2-field-changes-web-service", "v3-unsigned-passes", "v4-share-links", "v5-chat-provenance", "v6-notices", "v7-notice-settings"])
        XCTAssertEqual(LibrarySchema.userVersion, 7)
    }
}
