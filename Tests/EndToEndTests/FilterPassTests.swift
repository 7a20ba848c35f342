import Foundation
import XCTest

/// The filter with real passes signed by the sample CA: headers, offers, hostile pass.json text,
/// many filters at once on one library.
final class FilterPassTests: XCTestCase {
    override class func tearDown() { FilterRun.cleanUp() }

    private func args(_ root: URL) -> [String] {
        // A generous deadline: these tests are about results, and CI machines are often busy.
        ["--log", "none", "--deadline", "60", "--library", root.appendingPathComponent("library.sqlite").path,
         "--trust", FilterMail.repositoryRoot.appendingPathComponent("Samples/ca/trust").path]
    }

    /// Offer rows in the library, read with Python's sqlite3 (independent of PassStore's code).
    private func offerCount(_ root: URL) throws -> Int {
        let r = try FilterRun.run(executable: URL(fileURLWithPath: "/usr/bin/python3"),
                                  arguments: ["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from offer').fetchone()[0])",
                                              root.appendingPathComponent("library.sqlite").path],
                                  input: [], environment: ["PATH": "/usr/bin:/bin"])
        return Int(String(decoding: r.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func testValidNewPassGetsHeadersAndAnOffer() throws {
        let root = FilterRun.directory("new-pass")
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true, fromLine: true)
        let r = try FilterRun.filter(message, arguments: args(root), environment: FilterRun.environment(root))
        XCTAssertEqual(r.status, 0, String(decoding: r.stderr, as: UTF8.self))
        XCTAssertEqual(r.stderr, [])
        FilterPromise.assertIntact(input: message, output: r.stdout)
        let text = String(decoding: r.stdout, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("From tickets@example.org Sat Nov 21 12:00:00 2026\r\nX-Passconduit: 1 pass (1 new)\r\nX-Passconduit-Pass: valid; new; action=offered;"), String(text.prefix(400)))
        XCTAssertEqual(FilterPromise.ownHeaderLines(r.stdout).count, 2)
        XCTAssertEqual(try offerCount(root), 1)
        // Filtering the output again gives the same bytes (the pass is still only offered).
        let again = try FilterRun.filter(r.stdout, arguments: args(root), environment: FilterRun.environment(root))
        XCTAssertEqual(again.stdout, r.stdout)
        XCTAssertEqual(try offerCount(root), 1)
    }

    func testHostileOrganizationNameYieldsOneCleanHeader() throws {
        let evil = try FilterPassForge.pass(edits: ["organizationName": "Evil\r\nBcc: x", "serialNumber": "EVIL-1",
                                                    "description": "\u{0}\u{1B}[2J"])
        let root = FilterRun.directory("evil")
        let message = FilterMail.message(passes: [("evil.pkpass", evil)])
        let r = try FilterRun.filter(message, arguments: args(root), environment: FilterRun.environment(root))
        XCTAssertEqual(r.status, 0)
        FilterPromise.assertIntact(input: message, output: r.stdout)
        let own = FilterPromise.ownHeaderLines(r.stdout)
        XCTAssertEqual(own.count, 2, "\(own)")
        XCTAssertTrue(own.last?.contains("valid; new;") ?? false, "\(own)")
        XCTAssertTrue(own.last?.contains("org=\"Evil Bcc: x\"") ?? false, "\(own)")
        let headerBlock = String(decoding: r.stdout, as: UTF8.self).components(separatedBy: "\n\n")[0]
        XCTAssertFalse(headerBlock.split(separator: "\n").contains { $0.hasPrefix("Bcc:") }, headerBlock)
    }

    func testLibraryLockedByAnotherProcessCostsTheScanNotTheMessage() throws {
        let root = FilterRun.directory("locked-library")
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))])
        // Another process holds the library's open lock and a write transaction for 20 s.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import fcntl, sqlite3, sys, time
            lock = open(sys.argv[1] + ".lock", "a"); fcntl.flock(lock, fcntl.LOCK_EX)
            db = sqlite3.connect(sys.argv[1]); db.execute("BEGIN EXCLUSIVE")
            print("held", flush=True); time.sleep(20)
            """, root.appendingPathComponent("library.sqlite").path]
        let ready = Pipe()
        holder.standardOutput = ready
        try holder.run()
        defer { holder.terminate(); holder.waitUntilExit() }
        _ = ready.fileHandleForReading.availableData   // "held"
        var a = args(root)
        a[a.firstIndex(of: "60")!] = "1"               // --deadline 1
        let r = try FilterRun.filter(message, arguments: a, environment: FilterRun.environment(root))
        XCTAssertEqual(r.status, 0)
        XCTAssertLessThan(r.seconds, 3, "the filter waited on the lock past its deadline")
        // --on-library-error accept (the default): the message is delivered with the headers of a
        // mailbox without a library (its pass still verified), and the log names the library.
        FilterPromise.assertIntact(input: message, output: r.stdout)
        XCTAssertEqual(FilterPromise.ownHeaderLines(r.stdout).first, "X-Passconduit: 1 pass (1 valid)")
        let closed = try FilterRun.filter(message, arguments: a + ["--fail-closed"], environment: FilterRun.environment(root))
        XCTAssertEqual(closed.status, 75)
        XCTAssertEqual(closed.stdout, [])
    }

    func testSixteenFiltersInParallelOnOneLibraryLoseNothing() throws {
        let root = FilterRun.directory("parallel")
        let env = FilterRun.environment(root)
        var messages: [[UInt8]] = []
        for i in 0..<16 {
            let pass = try FilterPassForge.pass(edits: ["serialNumber": "PAR-\(i)"])
            messages.append(FilterMail.message(passes: [("p\(i).pkpass", pass)], crlf: i % 2 == 1, subject: "parallel \(i)"))
        }
        let results = try FilterRun.parallel(messages, arguments: args(root), environment: env)
        for i in 0..<16 {
            let r = results[i]
            XCTAssertEqual(r.status, 0, "run \(i): \(String(decoding: r.stderr, as: UTF8.self))")
            FilterPromise.assertIntact(input: messages[i], output: r.stdout)
            XCTAssertTrue(FilterPromise.ownHeaderLines(r.stdout).first?.hasPrefix("X-Passconduit: 1 pass (1 new)") ?? false,
                          "run \(i): \(FilterPromise.ownHeaderLines(r.stdout))")
        }
        XCTAssertEqual(try offerCount(root), 16)
    }
}
