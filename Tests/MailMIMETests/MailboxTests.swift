import XCTest
@testable import MailMIME

final class MailboxTests: XCTestCase {
    func testTinyReadChunksSplitExactlyLikeOneBigRead() throws {
        let bytes = try fixtureBytes("mbox/content-length.mbox.txt")
        let whole = try pipeReader(bytes)
        for chunk in [1, 7, 64, 4096] {
            let pieces = try pipeReader(bytes, chunkSize: chunk)
            XCTAssertEqual(pieces.map(\.bytes), whole.map(\.bytes), "chunk \(chunk)")
            XCTAssertEqual(pieces.map(\.byteCount), whole.map(\.byteCount), "chunk \(chunk)")
        }
    }

    private func pipeReader(_ bytes: [UInt8], limits: MIMELimits = .default, mbox: Bool = true, chunkSize: Int = 4 << 20) throws -> [MailboxMessage] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mbox-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var out: [MailboxMessage] = []
        if mbox {
            var reader = MboxReader(fileDescriptor: fd, limits: limits, chunkSize: chunkSize)
            while let m = try reader.next() { out.append(m) }
        } else {
            var reader = SingleMessageReader(fileDescriptor: fd, limits: limits)
            while let m = try reader.next() { out.append(m) }
        }
        return out
    }

    func testMboxSplitsOnFromLinesAndUnquotesMboxrd() throws {
        try withBothLineEndings("""
        From a@example.com Sat Jan  1 00:00:00 2000
        Subject: one

        >From the start
        >>From quoted twice
        text

        From b@example.com Sat Jan  1 00:00:01 2000
        Subject: two

        body two
        """) { bytes, ending in
            let messages = try pipeReader(bytes)
            XCTAssertEqual(messages.count, 2, ending)
            let nl = ending == "LF" ? "\n" : "\r\n"
            XCTAssertEqual(String(decoding: messages[0].bytes, as: UTF8.self),
                           ["Subject: one", "", "From the start", ">From quoted twice", "text", ""].joined(separator: nl), ending)
            XCTAssertEqual(MIMEParser.parse(messages[1].bytes).subject, "two", ending)
            XCTAssertEqual(messages.map(\.index), [1, 2], ending)
        }
    }

    func testFromLineInBodyNotFollowedByAHeaderDoesNotSplit() throws {
        let bytes = try fixtureBytes("mbox/unmunged.mbox.txt")
        let messages = try pipeReader(bytes)
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(String(decoding: messages[0].bytes, as: UTF8.self).contains("From Russia with love"))
        let single = try pipeReader(try fixtureBytes("mbox/mailbox_01.mbox"))
        XCTAssertEqual(single.count, 1)
    }

    func testConsistentContentLengthWinsOverAFromLineInTheBody() throws {
        let body = "From me\nTo: you\nlooks like a header\n"
        let text = "From x Sat Jan  1 00:00:00 2000\nSubject: cl\nContent-Length: \(body.utf8.count)\n\n\(body)\nFrom y Sat Jan  1 00:00:00 2000\nSubject: next\n\nb\n"
        let messages = try pipeReader(Array(text.utf8))
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(String(decoding: messages[0].bytes, as: UTF8.self).hasSuffix(body))
        XCTAssertEqual(MIMEParser.parse(messages[1].bytes).subject, "next")
        // An inconsistent Content-Length is ignored.
        let lying = "From x Sat Jan  1 00:00:00 2000\nContent-Length: 5\n\nlonger body\n\nFrom y Sat Jan  1 00:00:00 2000\nSubject: n\n\nb\n"
        XCTAssertEqual(try pipeReader(Array(lying.utf8)).count, 2)
    }

    func testMimeKitContentLengthMboxSplitsLikeMimeKit() throws {
        let messages = try pipeReader(try fixtureBytes("mbox/content-length.mbox.txt"))
        let expected = try String(contentsOf: fixtureURL("mbox/content-length.unix-offsets.json"), encoding: .utf8)
        let count = expected.components(separatedBy: "\"mboxMarkerOffset\"").count - 1
        XCTAssertEqual(messages.count, count)
    }

    func testOversizeMessageIsSkippedWithItsTrueSize() throws {
        var limits = MIMELimits()
        limits.maxMessageBytes = 10_000
        let big = String(repeating: "0123456789012345678901234567890123456789012345678901234567890123456789012345\n", count: 2_000_000 / 77)
        let text = "From a Sat Jan  1 00:00:00 2000\nSubject: big\n\n\(big)\nFrom b Sat Jan  1 00:00:00 2000\nSubject: small\n\nok\n"
        let messages = try pipeReader(Array(text.utf8), limits: limits)
        XCTAssertEqual(messages.count, 2)
        XCTAssertTrue(messages[0].oversize)
        XCTAssertTrue(messages[0].bytes.isEmpty)
        XCTAssertEqual(messages[0].byteCount, "Subject: big\n\n".utf8.count + big.utf8.count)
        XCTAssertFalse(messages[1].oversize)
        XCTAssertEqual(MIMEParser.parse(messages[1].bytes).subject, "small")
    }

    func testSingleMessageReaderReadsAllAndFlagsOversize() throws {
        let text = Array("Subject: s\n\nbody".utf8)
        let one = try pipeReader(text, mbox: false)
        XCTAssertEqual(one.map(\.bytes), [text])
        var limits = MIMELimits()
        limits.maxMessageBytes = 5
        let over = try pipeReader(text, limits: limits, mbox: false)
        XCTAssertEqual(over.first?.oversize, true)
        XCTAssertEqual(over.first?.byteCount, text.count)
    }

    func testPrefixBytesComeBeforeTheRestOfTheDescriptor() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rest-\(UUID().uuidString)")
        try Data("ject: joined\n\nb".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let fd = open(url.path, O_RDONLY)
        defer { close(fd) }
        var reader = SingleMessageReader(fileDescriptor: fd, prefix: Array("Sub".utf8))
        XCTAssertEqual(MIMEParser.parse(try reader.next()!.bytes).subject, "joined")
    }

    func testFormatDetection() {
        XCTAssertEqual(MailboxFormat.detect(prefix: Array("From a b\n".utf8)[...]), .mbox)
        XCTAssertEqual(MailboxFormat.detect(prefix: ([0xEF, 0xBB, 0xBF] + Array("From a".utf8))[...]), .mbox)
        XCTAssertEqual(MailboxFormat.detect(prefix: Array("From: a\n".utf8)[...]), .message)
        XCTAssertEqual(MailboxFormat.detect(prefix: Array("Subject: x".utf8)[...]), .message)
    }

    func testMaildirReadsCurAndNewButNeverTmp() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("maildir-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for sub in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        try Data("Subject: cur\n\nc".utf8).write(to: root.appendingPathComponent("cur/1.host:2,S"))
        try Data("Subject: new\n\nn".utf8).write(to: root.appendingPathComponent("new/2.host"))
        try Data("Subject: tmp\n\nt".utf8).write(to: root.appendingPathComponent("tmp/3.host"))
        try Data("Subject: hidden\n\nh".utf8).write(to: root.appendingPathComponent("new/.hidden"))
        var reader = try MaildirReader(path: root.path)
        var subjects: [String?] = []
        while let m = try reader.next() {
            subjects.append(MIMEParser.parse(m.bytes).subject)
            XCTAssertNotNil(m.path)
        }
        XCTAssertEqual(subjects, ["cur", "new"])
        XCTAssertThrowsError(try MaildirReader(path: root.appendingPathComponent("cur").path)) { error in
            XCTAssertEqual((error as? MailboxError)?.code, .notAMaildir)
        }
    }
}
