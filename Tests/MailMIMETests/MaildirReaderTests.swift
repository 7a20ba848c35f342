import TestRandom
import XCTest
@testable import MailMIME
#if canImport(Glibc)
import Glibc
#endif

/// MaildirReader lists names as bytes, sorts ASCII names with memcmp and opens files relative to
/// their folder (issue 17); the order, the skipped entries and the paths must stay what they were.
final class MaildirReaderTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("maildir-\(UUID().uuidString)").path
        for sub in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true)
        }
    }

    override func tearDownWithError() throws {
        _ = try? FileManager.default.removeItem(atPath: root + ".moved")
        _ = try? FileManager.default.removeItem(atPath: root)
    }

    /// Writes a message whose Subject is `subject` as `sub/name`, `name` given as its bytes.
    private func write(_ sub: String, _ name: [UInt8], subject: String) throws {
        let path = PathBytes.join(root + "/" + sub, PathBytes.string(name))
        let fd = PathBytes.open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0, "create \(path)")
        let bytes = Array("Subject: \(subject)\n\nbody\n".utf8)
        XCTAssertEqual(Glibc.write(fd, bytes, bytes.count), bytes.count)
        close(fd)
    }

    private func write(_ sub: String, _ name: String, subject: String? = nil) throws {
        try write(sub, Array(name.utf8), subject: subject ?? name)
    }

    private func subjects(_ reader: inout MaildirReader) throws -> [String] {
        var out: [String] = []
        while let m = try reader.next() { out.append(MIMEParser.parse(m.bytes).subject ?? "?") }
        return out
    }

    /// ASCII names in byte order (what String's `<` gives them): upper case before lower, a
    /// name before its extensions, digits compared as characters.
    func testASCIINamesComeInByteOrder() throws {
        let names = ["b", "B", "a:2,S", "a", "a,2", "10", "9", "1700000000.M1P2.host:2,S", "1700000000.M1P2.host:2,", "~x"]
        for name in names.shuffled() { try write("cur", name) }
        try write("new", "0")
        var reader = try MaildirReader(path: root)
        XCTAssertEqual(try subjects(&reader), names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } + ["0"])
        XCTAssertEqual(names.sorted(), names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    /// Names sharing a long start and differing before, inside and after the 8 bytes compared
    /// as a number, some ending inside them: String's order (which is the bytes' for ASCII).
    func testManyNamesWithACommonStartComeInStringOrder() throws {
        var generator = SeededGenerator(state: 0x4d61_6964_6972)   // seeded: a failure is the same names again
        var names: Set = ["1700000000.M1", "1700000000.M12", "1700000000.M12345678", "1700000000.M12345678.host:2,S",
                          "1700000000.M12345678.host:2,RS", "1700000000.M12345678.host:2,", "1700000000.M12345679.host",
                          "1700000000.M1234567.host", "1700000000.M1:2,S"]
        while names.count < 600 {
            // Two letters: many names share the 8 bytes after the common start.
            let length = Int.random(in: 0...20, using: &generator)
            names.insert("1700000000.M" + String((0..<length).map { _ in ".0".randomElement(using: &generator)! }))
        }
        for name in names { try write("new", name) }
        var reader = try MaildirReader(path: root)
        XCTAssertEqual(try subjects(&reader), names.sorted())
    }

    /// A folder with a name that is not ASCII keeps String's order, which is not the bytes'
    /// order: "e" + U+0301 is "é" (after "f"), and a byte that is not UTF-8 (carried as
    /// U+10FFxx) comes after U+10000. Sorting these names as bytes gives another order.
    func testNamesThatAreNotASCIIKeepStringOrder() throws {
        let named: [(bytes: [UInt8], subject: String)] = [
            (Array("e\u{301}x".utf8), "decomposed"),
            (Array("f".utf8), "f"),
            (Array("a".utf8) + [0xE9], "latin1"),
            (Array("a\u{10000}".utf8), "linear-b"),
            (Array("a".utf8), "a"),
        ]
        for entry in named.shuffled() { try write("cur", entry.bytes, subject: entry.subject) }
        var reader = try MaildirReader(path: root)
        let expected = named.sorted { PathBytes.string($0.bytes) < PathBytes.string($1.bytes) }.map(\.subject)
        XCTAssertEqual(expected, ["a", "linear-b", "latin1", "f", "decomposed"])
        XCTAssertEqual(try subjects(&reader), expected)
        // The path is the carrier of the exact bytes, as PathBytes.join made it.
        XCTAssertEqual(reader.paths.map(PathBytes.bytes), expected.map { subject in
            Array((root + "/cur/").utf8) + named.first { $0.subject == subject }!.bytes
        })
    }

    /// Hidden means a first Character "." — ".\u{301}x" starts with the Character ".́", so it
    /// was read, and still is; "." names, symbolic links and folders are skipped.
    func testHiddenNamesSymlinksAndFoldersAreSkipped() throws {
        try write("cur", "1.host", subject: "plain")
        try write("cur", ".hidden")
        try write("cur", Array(".\u{301}x".utf8), subject: "dot-accent")
        XCTAssertEqual(symlink(root + "/cur/1.host", root + "/cur/2.link"), 0)
        XCTAssertEqual(symlink("/nonexistent", root + "/cur/3.dangling"), 0)
        try FileManager.default.createDirectory(atPath: root + "/cur/4.folder", withIntermediateDirectories: true)
        var reader = try MaildirReader(path: root)
        XCTAssertEqual(try subjects(&reader), ["dot-accent", "plain"])
    }

    /// A file removed between the listing and its reading is an error naming its path; the
    /// files after it are read.
    func testAFileGoneAfterTheListingIsNamedAndTheRestRead() throws {
        try write("cur", "1.host")
        try write("cur", "2.host")
        try write("new", "3.host")
        let reader = try MaildirReader(path: root)
        XCTAssertEqual(unlink(root + "/cur/1.host"), 0)
        XCTAssertThrowsError(try reader.readMessage(at: 0)) { error in
            XCTAssertEqual(error as? MailboxError, MailboxError(.cannotOpen, path: self.root + "/cur/1.host", detail: String(cString: strerror(ENOENT))))
        }
        XCTAssertEqual(try reader.readMessage(at: 1).path, root + "/cur/2.host")
        XCTAssertEqual(try reader.readMessage(at: 2).index, 3)
        XCTAssertEqual(reader.path(at: 2), root + "/new/3.host")
    }

    /// Files are opened in the folders that were listed (openat on their descriptors), so a
    /// Maildir moved while it is read is still read whole; by path its files were "not found".
    func testFilesAreOpenedInTheFoldersThatWereListed() throws {
        try write("cur", "1.host")
        try write("new", "2.host")
        var reader = try MaildirReader(path: root)
        XCTAssertEqual(rename(root, root + ".moved"), 0)
        XCTAssertEqual(try subjects(&reader), ["1.host", "2.host"])
        XCTAssertEqual(reader.path(at: 1), root + "/new/2.host")
    }
}
