import Foundation
import XCTest

/// `scan` on two cores reports exactly what it reports on one (PASSCONDUIT_WORKERS=1): the same
/// NDJSON lines in the same order, for a Maildir and an mbox large enough to take several batches,
/// with library lookups answering "contained" for a pass added first and "new" for the others.
final class ParallelScanTests: XCTestCase {
    func makeMaildir(in dir: URL, copies: Int) throws -> URL {
        let maildir = dir.appendingPathComponent("Maildir")
        for sub in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(at: maildir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let samples = ["type.eml", "no-pass.eml", "two-passes.eml", "bundle.eml", "invalid.eml", "untrusted.eml",
                       "rfc2231-name.eml", "forwarded.eml", "quoted-printable.eml", "update.eml"]
        var n = 0
        for k in 0..<copies {
            for sample in samples {
                n += 1
                let bytes = try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/" + sample)))
                let name = String(format: "%010d.M%dP1.test:2,S", 1_700_000_000 + n, k)
                try bytes.write(to: maildir.appendingPathComponent("cur/" + name))
            }
        }
        // One unreadable file in the middle: its problem line must come at the same place.
        let locked = maildir.appendingPathComponent("cur/1700000050.locked:2,S")
        try Data("Subject: x\n\nx\n".utf8).write(to: locked)
        chmod(locked.path, 0)
        return maildir
    }

    func testOneWorkerAndTwoWorkersGiveTheSameNDJSON() throws {
        let sandbox = try Sandbox()
        // A pass already in the library: its lookups must say so on every thread.
        let add = try sandbox.run("add", ["--yes", Run.sample("messages/type.eml")])
        XCTAssertEqual(add.status, 0, add.stderr)
        let maildir = try makeMaildir(in: sandbox.dir, copies: 15)  // 150 messages: three batches
        let mbox = Run.sample("messages/charsets.mbox")
        var outputs: [String: Run] = [:]
        for workers in ["1", "2"] {
            let run = try sandbox.run("scan", ["--json", maildir.path, mbox, Run.sample("messages/inbox.mbox")],
                                      environment: ["PASSCONDUIT_WORKERS": workers])
            XCTAssertEqual(run.status, 0, run.stderr)
            outputs[workers] = run
        }
        let one = try XCTUnwrap(outputs["1"]), two = try XCTUnwrap(outputs["2"])
        XCTAssertEqual(one.stdout, two.stdout, "NDJSON differs between one and two workers")
        let objects = one.objects
        XCTAssertGreaterThan(objects.count, 150, "the inputs carry many passes")
        let states = Set(objects.compactMap { $0["library"] as? String })
        XCTAssertTrue(states.contains("contained") && states.contains("new"), "library states seen: \(states)")
        // Input order: Maildir message numbers never go down.
        let numbers = objects.filter { (($0["source"] as? [String: Any])?["input"] as? String) == maildir.path }
            .compactMap { ($0["source"] as? [String: Any])?["message"] as? Int }
        XCTAssertEqual(numbers, numbers.sorted())
        // The unreadable file is reported once, in both runs (root can read mode-0 files: then none).
        XCTAssertEqual(one.stderr, two.stderr)
    }
}
