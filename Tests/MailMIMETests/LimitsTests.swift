import XCTest
@testable import MailMIME

/// The default limits as behaviour at their boundary (the size of each is the design's choice).
final class LimitsTests: XCTestCase {
    /// `levels` multiparts, each inside the one before, around a text part.
    func nested(_ levels: Int) -> MIMEMessage {
        var text = ""
        for i in 0..<levels { text += "Content-Type: multipart/mixed; boundary=b\(i)\n\n--b\(i)\n" }
        text += "Content-Type: text/plain\n\ninnermost\n"
        for i in (0..<levels).reversed() { text += "--b\(i)--\n" }
        return MIMEParser.parse(Array(text.utf8))
    }

    func testNestingUpToTheDefaultDepthIsParsedAndOneLevelMoreIsALeafWithTheDepthDefect() {
        let limit = MIMELimits.default.maxDepth
        // Multiparts down to the deepest level the parser takes apart: all of it is parsed
        let within = nested(limit)
        XCTAssertFalse(within.defectCodes.contains(.nestingTooDeep))
        XCTAssertEqual(within.parts.last.map { within.decodedText($0.path) }, "innermost")
        XCTAssertEqual(within.parts.map(\.depth).max(), limit)
        // One level more: the entity at the limit is a leaf holding the rest, and the message says so
        let beyond = nested(limit + 1)
        XCTAssertTrue(beyond.defectCodes.contains(.nestingTooDeep))
        XCTAssertEqual(beyond.parts.map(\.depth).max(), limit)
        let capped = beyond.parts.last!
        XCTAssertFalse(capped.isMultipart)
        XCTAssertTrue(String(decoding: beyond.rawBody(of: capped), as: UTF8.self).contains("innermost"))
    }
}
