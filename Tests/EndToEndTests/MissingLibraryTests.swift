import Foundation
import XCTest

/// A system library that passconduit loads on first use (libcrypto, libzip, libmagic, SQLite,
/// cairo/pango, zint) and that is missing is an error with a sentence naming it, never an abort:
/// `PASSCONDUIT_LAZY_LIBRARY_DIR` makes the loader look in one folder only, an empty one or one
/// holding all but one of them.
final class MissingLibraryTests: XCTestCase {
    static let sonames = ["libcrypto.so.3", "libzip.so.4", "libmagic.so.1", "libsqlite3.so.0",
                          "libpangocairo-1.0.so.0", "libzint.so.2.11"]

    var sandbox: Sandbox!
    override func setUpWithError() throws { sandbox = try Sandbox() }
    override func tearDown() { sandbox = nil; FilterRun.cleanUp() }

    /// A folder with every lazily loaded library (links to the installed ones) except `missing`.
    func libraries(without missing: Set<String>) throws -> String {
        let folder = sandbox.dir.appendingPathComponent("libs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cache = try MilterKit.run("/sbin/ldconfig", ["-p"]).output
        for soname in Self.sonames where !missing.contains(soname) {
            let line = cache.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(soname + " ") }
            let path = try XCTUnwrap(line?.components(separatedBy: " => ").last, "\(soname) is not installed")
            try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent(soname).path, withDestinationPath: path)
        }
        return folder.path
    }

    func assertNoCrash(_ status: Int32, _ stderr: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan(status, 128, "killed by a signal: \(stderr)", file: file, line: line)
        XCTAssertFalse(stderr.contains("Fatal error"), stderr, file: file, line: line)
    }

    func testScanWithoutAnyLibraryNamesLibcryptoAndExits69() throws {
        let empty = try libraries(without: Set(Self.sonames))
        let run = try sandbox.run("scan", [Run.sample("messages/type.eml")], environment: ["PASSCONDUIT_LAZY_LIBRARY_DIR": empty])
        assertNoCrash(run.status, run.stderr)
        XCTAssertEqual(run.status, 69, run.stderr)
        XCTAssertTrue(run.stderr.contains("A system library passconduit needs for checking pass signatures is missing or unusable: cannot load libcrypto.so.3"), run.stderr)
        XCTAssertEqual(run.stdout, "")
    }

    func testAPassOpenedWithoutLibzipIsLibraryMissingNotACrash() throws {
        let folder = try libraries(without: ["libzip.so.4"])
        let run = try sandbox.run("scan", ["--json", Run.sample("passes/event-ticket.pkpass")],
                                  environment: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder])
        assertNoCrash(run.status, run.stderr)
        let object = try XCTUnwrap(run.objects.first, run.stdout + run.stderr)
        let error = try XCTUnwrap(object["error"] as? [String: Any], "\(object)")
        XCTAssertEqual(error["code"] as? String, "library-missing")
        XCTAssertTrue((error["detail"] as? String ?? "").hasPrefix("cannot load libzip.so.4: "), "\(error)")
        XCTAssertEqual(error["message"] as? String, "This pass can't be checked on this computer: a system library passconduit needs is missing.")
    }

    func testTheLibraryWithoutSQLiteIsUnavailableAndNothingIsCreated() throws {
        let folder = try libraries(without: ["libsqlite3.so.0"])
        // Without SQLite, adding creates no library file.
        let add = try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")], environment: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder])
        assertNoCrash(add.status, add.stderr)
        XCTAssertNotEqual(add.status, 0)
        XCTAssertTrue(add.stderr.contains("cannot load libsqlite3.so.0"), add.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sandbox.library), "a library file was created")
        // A library made with SQLite there is left as it is by a list without it.
        XCTAssertEqual(try sandbox.run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: sandbox.library))
        let list = try sandbox.run("list", environment: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder])
        assertNoCrash(list.status, list.stderr)
        XCTAssertNotEqual(list.status, 0)
        XCTAssertTrue(list.stderr.contains("cannot load libsqlite3.so.0"), list.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: sandbox.library)), before)
    }

    func testRenderWithoutCairoSaysWhyAndWritesNothing() throws {
        let folder = try libraries(without: ["libpangocairo-1.0.so.0"])
        let out = sandbox.dir.appendingPathComponent("card.png").path
        let run = try sandbox.run("render", [Run.sample("passes/event-ticket.pkpass"), "-o", out],
                                  environment: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder])
        assertNoCrash(run.status, run.stderr)
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains("drawing cards") && run.stderr.contains("libpangocairo-1.0.so.0"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testTheFilterPassesTheMessageAndLogsWhichLibrary() throws {
        // Without SQLite the library cannot be opened: that is the library-error policy's case.
        let empty = try libraries(without: ["libcrypto.so.3"])
        let home = FilterRun.directory("home")
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))])
        let result = try FilterRun.filter(message, arguments: ["--trust", Run.sample("ca/trust")],
                                          environment: FilterRun.environment(home, extra: ["PASSCONDUIT_LAZY_LIBRARY_DIR": empty]))
        XCTAssertFalse(result.signaled)
        XCTAssertEqual(result.status, 0)
        FilterPromise.assertIntact(input: message, output: result.stdout)
        let log = try String(contentsOf: home.appendingPathComponent("state/passconduit/filter.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("libcrypto.so.3"), log)
    }

    func testFilterCheckNamesEveryMissingLibrary() throws {
        let folder = try libraries(without: ["libmagic.so.1", "libsqlite3.so.0"])
        let home = FilterRun.directory("home")
        let result = try FilterRun.run(executable: Binary.url, arguments: ["filter", "--check"], input: [],
                                       environment: FilterRun.environment(home, extra: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder]))
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        XCTAssertFalse(result.signaled)
        XCTAssertEqual(result.status, 69, stderr)
        XCTAssertTrue(stderr.contains("cannot load libmagic.so.1"), stderr)
        XCTAssertTrue(stderr.contains("cannot load libsqlite3.so.0"), stderr)
        XCTAssertFalse(stderr.contains("libcrypto.so.3"), stderr)
        // With every library there, the same check is fine.
        let all = try libraries(without: [])
        let fine = try FilterRun.run(executable: Binary.url, arguments: ["filter", "--check"], input: [],
                                     environment: FilterRun.environment(home, extra: ["PASSCONDUIT_LAZY_LIBRARY_DIR": all]))
        XCTAssertEqual(fine.status, 0, String(decoding: fine.stderr, as: UTF8.self))
        // The milter's check, for a unit's ExecStartPre, names them too.
        let milter = try FilterRun.run(executable: Binary.url, arguments: ["milter", "--listen", "inet:1@127.0.0.1", "--check"], input: [],
                                       environment: FilterRun.environment(home, extra: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder]))
        let said = String(decoding: milter.stdout + milter.stderr, as: UTF8.self)
        XCTAssertEqual(milter.status, 69, said)
        XCTAssertTrue(said.contains("cannot load libmagic.so.1") && said.contains("cannot load libsqlite3.so.0"), said)
    }

    /// Issue 38 item 2: without libzip the filter delivered the message with `1 pass (1 invalid)` /
    /// `invalid; unknown; error=library-missing` — a good pass called bad — and its log did not
    /// say which library. The pass was never checked: it says so, and the log names the library
    /// and the Debian package to install.
    func testThePipeFilterSaysAPassItCouldNotOpenWasNotCheckedAndNamesTheLibrary() throws {
        let folder = try libraries(without: ["libzip.so.4"])
        let home = FilterRun.directory("home")
        let message = FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))])
        let result = try FilterRun.filter(message, arguments: ["--trust", Run.sample("ca/trust")],
                                          environment: FilterRun.environment(home, extra: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder]))
        XCTAssertFalse(result.signaled)
        XCTAssertEqual(result.status, 0)
        let out = String(decoding: result.stdout, as: UTF8.self)
        XCTAssertTrue(out.hasPrefix("X-Passconduit: 1 pass (1 not checked)\nX-Passconduit-Pass: unchecked; unknown; error=library-missing\n"), out)
        XCTAssertFalse(out.contains("invalid"), out)
        let log = try String(contentsOf: home.appendingPathComponent("state/passconduit/filter.log"), encoding: .utf8)
        XCTAssertTrue(log.contains(#"passes="1 pass (1 not checked)""#), log)
        XCTAssertTrue(log.contains(#"library-missing="libzip.so.4 (Debian package libzip4)""#), log)
    }

    /// The same for the milter, through its protocol: the header it inserts says `unchecked`, and
    /// its log names the library.
    func testTheMilterSaysAPassItCouldNotOpenWasNotCheckedAndNamesTheLibrary() throws {
        let folder = try libraries(without: ["libzip.so.4"])
        let home = FilterRun.directory("milter-nozip")
        defer { try? FileManager.default.removeItem(at: home) }
        let milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path],
                                       environment: ["PASSCONDUIT_LAZY_LIBRARY_DIR": folder])
        defer { milter.stop() }
        let c = try RawMilterClient(port: milter.port)
        try c.negotiate()
        try c.send(RawMilterClient.packet("M", Array("<tickets@example.org>".utf8) + [0]))
        XCTAssertEqual(try c.readReply(), UInt8(ascii: "c"), "MAIL is answered (RCPT is not, as negotiated)")
        try c.send(RawMilterClient.packet("R", Array("<alice@example.org>".utf8) + [0]))
        try RawMilterClient.sendMessage(c, FilterMail.message(passes: [("ticket.pkpass", try FilterMail.samplePass("event-ticket.pkpass"))]))
        let answer = c.readAnswer()
        XCTAssertEqual(answer.last, "c", "\(answer)")
        XCTAssertTrue(answer.contains { $0.hasPrefix("i X-Passconduit #") && $0.hasSuffix("1 pass (1 not checked)") }, "\(answer) \(milter.logLines.joined(separator: "\n"))")
        XCTAssertTrue(answer.contains { $0.hasPrefix("i X-Passconduit-Pass #") && $0.hasSuffix("unchecked; unknown; error=library-missing") }, "\(answer)")
        XCTAssertFalse(answer.joined().contains("invalid"), "\(answer)")
        XCTAssertTrue(MilterKit.waitUntil(10) { milter.messageLines.count == 1 }, milter.logLines.joined(separator: "\n"))
        let line = milter.messageLines.first ?? ""
        XCTAssertTrue(line.contains(#"library-missing="libzip.so.4 (Debian package libzip4)""#), line)
    }
}
