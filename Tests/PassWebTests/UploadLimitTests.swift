import Conduit
import Foundation
import PassStore
import PassStoreSQLite
import Support
import WalletPass
import XCTest
@testable import PassWeb

/// Issue 37 defect 7: uploads were unbounded in time and in number (a message of 150 heavy
/// passes took 33 s of CPU; 24 parallel uploads peaked at 1.33 GB). One upload's check stops at
/// its time limit and then changes nothing; places for uploads are counted per person and for
/// the whole server.
final class UploadLimitTests: XCTestCase {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Samples")

    /// A message with two different signed passes, each its own base64 part.
    func twoPassMessage() throws -> [UInt8] {
        var text = "From: a@example.org\r\nSubject: two passes\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
        for name in ["generic", "store-card"] {
            let bytes = try Data(contentsOf: Self.samples.appendingPathComponent("passes/\(name).pkpass"))
            text += "--b\r\nContent-Type: application/vnd.apple.pkpass\r\nContent-Disposition: attachment; filename=\(name).pkpass\r\n"
                + "Content-Transfer-Encoding: base64\r\n\r\n\(bytes.base64EncodedString(options: .lineLength76Characters))\r\n"
        }
        return Array((text + "--b--\r\n").utf8)
    }

    func library() throws -> PassLibrary {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("upload-limit-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return try PassLibrary(path: dir.appendingPathComponent("library.sqlite").path)
    }

    func testAnUploadPastItsTimeLimitStopsAndChangesNothing() throws {
        let setup = ConduitSetup(config: Config(), environment: [:])
        let opener = PassOpener(trust: try TrustStore.load(directories: [Self.samples.appendingPathComponent("ca/trust").path]))
        let message = try twoPassMessage()

        let late = try library()
        XCTAssertThrowsError(try WebUpload.add(bytes: message[...], name: "two.eml", setup: setup, opener: opener, library: late,
                                               seconds: 0, route: "/add")) { error in
            guard let problem = error as? WebProblem else { return XCTFail("\(error)") }
            XCTAssertEqual(problem.status, .unprocessableContent)
            XCTAssertEqual(problem.code, .deadline)
            XCTAssertTrue(problem.sentence.hasPrefix("Checking two.eml took longer than the 0 seconds this wallet gives one upload"), problem.sentence)
            XCTAssertTrue(problem.sentence.contains("Nothing was changed"), problem.sentence)
        }
        XCTAssertEqual(try late.passes().count, 0)
        XCTAssertEqual(try late.offers().count, 0)

        // The same bytes within the limit: both passes added, as before.
        let inTime = try library()
        let lines = try WebUpload.add(bytes: message[...], name: "two.eml", setup: setup, opener: opener, library: inTime,
                                      seconds: 30, route: "/add")
        XCTAssertEqual(lines.filter { $0.1 != nil }.count, 2, "\(lines)")
        XCTAssertEqual(try inTime.passes().count, 2)
    }

    func testPlacesArePerPersonAndForTheWholeServerAndComeBack() {
        let slots = UploadSlots(atOnce: 3, perPerson: 2)
        XCTAssertNoThrow(try slots.take(user: "alice@example.org"))
        XCTAssertNoThrow(try slots.take(user: "alice@example.org"))
        XCTAssertThrowsError(try slots.take(user: "alice@example.org")) { XCTAssertEqual($0 as? UploadSlots.Refusal, .person) }
        XCTAssertNoThrow(try slots.take(user: "bob@example.org"))
        XCTAssertThrowsError(try slots.take(user: "bob@example.org")) { XCTAssertEqual($0 as? UploadSlots.Refusal, .everyone) }
        XCTAssertThrowsError(try slots.take(user: "carol@example.org")) { XCTAssertEqual($0 as? UploadSlots.Refusal, .everyone) }
        XCTAssertEqual(slots.inFlight, 3)
        slots.release(user: "alice@example.org")
        XCTAssertNoThrow(try slots.take(user: "carol@example.org"))
        for user in ["alice@example.org", "bob@example.org", "carol@example.org"] { slots.release(user: user) }
        XCTAssertEqual(slots.inFlight, 0)
        XCTAssertNoThrow(try slots.take(user: "alice@example.org"))
        XCTAssertNoThrow(try slots.take(user: "alice@example.org"))

        // The sentences say nothing changed and when to come back.
        XCTAssertEqual(UploadSlots.answer(.person).retryAfter, 10)
        XCTAssertEqual(UploadSlots.answer(.everyone).retryAfter, 30)
        XCTAssertTrue(UploadSlots.answer(.everyone).sentence.contains("Nothing was changed"))
    }
}
