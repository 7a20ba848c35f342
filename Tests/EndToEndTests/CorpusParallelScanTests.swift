import Foundation
import XCTest

/// `scan --json` over real mail (the MIME corpus, with sample messages carrying passes mixed in)
/// stored as a Maildir and as one mbox: one core and two give the same NDJSON in the same order,
/// and the mapped mbox file gives what the same bytes streamed through stdin give.
final class CorpusParallelScanTests: XCTestCase {
    /// The checkout's copy of the MIME corpus (Tests/Corpus/mime; origins in its MANIFEST.md).
    static var corpus: URL { Run.root.appendingPathComponent("Tests/Corpus/mime") }

    /// The corpus's single messages in index order, without a saved envelope line or a byte order
    /// mark, and only those that start with a header field (what an mbox can hold unchanged);
    /// every 7th is followed by a sample message that carries passes.
    func messages() throws -> [[UInt8]] {
        let index = Self.corpus.appendingPathComponent("index.tsv")
        let text = try String(contentsOf: index, encoding: .utf8)
        let samples = ["type.eml", "two-passes.eml", "bundle.eml", "invalid.eml", "untrusted.eml", "quoted-printable.eml",
                       "rfc2231-name.eml", "forwarded.eml", "content-only.eml", "update.eml"]
        var out: [[UInt8]] = []
        for row in text.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 3, columns[2] == "message" else { continue }
            var bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(String(columns[0]))))
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            while bytes.starts(with: Array("From ".utf8)), let nl = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(...nl) }
            guard Self.startsWithHeaderField(bytes) else { continue }
            if bytes.last != 0x0A { bytes.append(0x0A) }
            out.append(bytes)
            if out.count % 7 == 0 {
                let sample = samples[(out.count / 7) % samples.count]
                out.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/" + sample)))))
            }
        }
        return out
    }

    static func startsWithHeaderField(_ bytes: [UInt8]) -> Bool {
        var name = 0
        for b in bytes.prefix(1000) {
            if b == UInt8(ascii: ":") { return name > 0 }
            if b == 0x20 || b == 0x09 { if name == 0 { return false } else { continue } }
            guard b > 0x20 && b < 0x7F else { return false }
            name += 1
        }
        return false
    }

    func testOneCoreAndTwoGiveTheSameNDJSONOnRealMail() throws {
        let sandbox = try Sandbox()
        let messages = try messages()
        XCTAssertGreaterThan(messages.count, 500, "the MIME corpus is missing at \(Self.corpus.path)")
        // The Maildir: one file per message, in name order.
        let maildir = sandbox.dir.appendingPathComponent("Maildir")
        for sub in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(at: maildir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        var mbox: [UInt8] = []
        for (n, message) in messages.enumerated() {
            let name = String(format: "%010d.M%dP1.test:2,S", 1_700_000_000 + n, n)
            try Data(message).write(to: maildir.appendingPathComponent("cur/" + name))
            // mboxrd: a From_ line, body lines starting (">"*)"From " get one more '>'.
            mbox += Array("From corpus@example.org Sat Nov 21 09:30:00 2026\n".utf8)
            var atLineStart = true
            var k = 0
            while k < message.count {
                if atLineStart {
                    var j = k
                    while j < message.count, message[j] == UInt8(ascii: ">") { j += 1 }
                    if message[j...].starts(with: Array("From ".utf8)) { mbox.append(UInt8(ascii: ">")) }
                }
                mbox.append(message[k])
                atLineStart = message[k] == 0x0A
                k += 1
            }
            mbox.append(0x0A)
        }
        let mboxURL = sandbox.dir.appendingPathComponent("corpus.mbox")
        try Data(mbox).write(to: mboxURL)

        var runs: [String: Run] = [:]
        for workers in ["1", "2"] {
            let run = try sandbox.run("scan", ["--json", maildir.path, mboxURL.path], environment: ["PASSCONDUIT_WORKERS": workers])
            XCTAssertEqual(run.status, 0, String(run.stderr.prefix(2000)))
            runs[workers] = run
        }
        let one = try XCTUnwrap(runs["1"]), two = try XCTUnwrap(runs["2"])
        XCTAssertEqual(one.stdout, two.stdout, "NDJSON differs between one core and two")
        XCTAssertEqual(one.stderr, two.stderr)
        let objects = one.objects
        func source(_ o: [String: Any]) -> [String: Any] { o["source"] as? [String: Any] ?? [:] }
        let fromMaildir = objects.filter { source($0)["input"] as? String == maildir.path }
        let fromMbox = objects.filter { source($0)["input"] as? String == mboxURL.path }
        XCTAssertGreaterThan(fromMaildir.count, 100, "the sample messages carry passes")
        // The two stores hold the same messages: the same passes at the same message numbers.
        XCTAssertEqual(fromMaildir.map { source($0)["message"] as? Int }, fromMbox.map { source($0)["message"] as? Int })
        XCTAssertEqual(fromMaildir.map { $0["sha256"] as? String }, fromMbox.map { $0["sha256"] as? String })
        let numbers = fromMbox.compactMap { source($0)["message"] as? Int }
        XCTAssertEqual(numbers, numbers.sorted(), "input order")

        // The mbox file is read through a mapping; the same bytes on stdin are streamed.
        let streamed = try sandbox.run("scan", ["--json", "-"], stdin: Data(mbox), environment: ["PASSCONDUIT_WORKERS": "2"])
        XCTAssertEqual(streamed.status, 0, String(streamed.stderr.prefix(2000)))
        let mappedLines = one.stdout.split(separator: "\n").filter { $0.contains("\"input\":\"\(mboxURL.path)\"") }
            .map { $0.replacingOccurrences(of: "\"input\":\"\(mboxURL.path)\"", with: "\"input\":\"-\"") }
        XCTAssertEqual(mappedLines, streamed.stdout.split(separator: "\n").map(String.init))
    }
}
