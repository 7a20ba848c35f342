import Foundation
import XCTest

/// Subjects and pass file names in every charset mail uses (Samples/messages/charsets.mbox, made
/// by Samples/make-charset-messages.py from Python's codecs), through the built binary: `scan
/// --json` reports each exactly, and the delivery filter's own header lines stay printable ASCII
/// however hostile the decoded text is.
final class CharsetScanTests: XCTestCase {
    override class func tearDown() { FilterRun.cleanUp() }

    struct Expected: Decodable {
        var charset: String
        var variant: String
        var messageID: String
        var subject: String
        var filename: String
    }

    private func expected() throws -> [Expected] {
        struct File: Decodable { var messages: [Expected] }
        let url = Run.root.appendingPathComponent("Samples/messages/charsets.json")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).messages
    }

    func testScanJSONReportsEverySubjectAndFileNameExactly() throws {
        let sandbox = try Sandbox()
        let run = try sandbox.run("scan", ["--json", Run.sample("messages/charsets.mbox")])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stderr, "")
        let found = run.objects
        let wanted = try expected()
        XCTAssertEqual(found.count, wanted.count, "one pass per message")
        var covered = Set<String>()
        for (object, want) in zip(found, wanted) {
            let source = object["source"] as? [String: Any] ?? [:]
            let label = "\(want.charset) \(want.variant)"
            XCTAssertEqual(source["messageId"] as? String, "<\(want.messageID)>", label)
            XCTAssertEqual(source["subject"] as? String, want.subject, label)
            XCTAssertEqual(source["filename"] as? String, want.filename, label)
            XCTAssertEqual(object["status"] as? String, "valid", label)
            XCTAssertEqual((object["pass"] as? [String: Any])?["serialNumber"] as? String, "GEN-0001", label)
            covered.insert(want.charset.lowercased())
        }
        for charset in ["gb2312", "gbk", "gb18030", "big5", "big5-hkscs", "euc-kr", "iso-2022-kr", "euc-jp",
                        "iso-2022-jp", "shift_jis", "koi8-r", "koi8-u", "windows-1251", "tis-620", "windows-1258",
                        "iso-8859-1", "iso-8859-2", "iso-8859-5", "iso-8859-7", "iso-8859-16"] {
            XCTAssertTrue(covered.contains(charset), "no message in \(charset)")
        }
    }

    func testFilterHeaderLinesStayPrintableWhateverTheCharsetProduced() throws {
        // Subjects and names whose decoded text carries ESC, CR, LF, NUL, C1 and bidi controls:
        // a Latin-1 word with raw controls, ISO-2022-KR with a broken escape, UTF-8 with U+2028.
        let pass = try FilterMail.samplePass("generic.pkpass")
        let hostile = [
            "=?iso-8859-1?Q?tick=1B[31met=0D=0AX-Injected:_yes=00=85?=",
            "=?ISO-2022-KR?B?GyQpQw5FPj1CMUcPGyR4G1sybQ==?=",
            "=?utf-8?B?4oCo4oCuZXZpbOKArA0KQmNjOiB4?=",
        ]
        for subject in hostile {
            var message = FilterMail.message(passes: [(name: "pass.pkpass", bytes: pass)], subject: subject)
            // The pass's name in the same hostile charset as the subject.
            let name = "filename=\"pass.pkpass\""
            if let range = message.firstRange(of: Array(name.utf8)) {
                message.replaceSubrange(range, with: Array("filename=\"\(subject)\"".utf8))
            }
            let result = try FilterRun.filter(message, environment: FilterRun.environment(FilterRun.directory("home")))
            XCTAssertEqual(result.status, 0, String(decoding: result.stderr, as: UTF8.self))
            FilterPromise.assertIntact(input: message, output: result.stdout)
            let own = FilterPromise.ownHeaderLines(result.stdout)
            XCTAssertFalse(own.isEmpty, "the filter added its header lines for \(subject)")
            for line in own {
                for byte in line.utf8 {
                    XCTAssertTrue(byte == 0x09 || (byte >= 0x20 && byte < 0x7F), "byte \(byte) in \(line.debugDescription)")
                }
            }
            // The message's own headers are passed on unchanged: nothing was decoded into them.
            XCTAssertFalse(String(decoding: result.stdout, as: UTF8.self).contains("\nX-Injected"))
        }
    }
}
