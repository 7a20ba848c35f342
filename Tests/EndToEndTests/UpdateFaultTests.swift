import Foundation
import PassStore
import PassStoreSQLite
import XCTest

/// `passconduit update` against a local HTTPS server (Python http.server + ssl, a test CA made
/// here): TLS trust through --ca-file, an unknown CA refused, hostile answers that must change
/// nothing, and 16 runs racing a delivery filter that applies the same update from mail.
final class UpdateFaultTests: XCTestCase {
    nonisolated(unsafe) static var server: UpdateKit.Server?
    nonisolated(unsafe) static var tls: (ca: String, cert: String, key: String)?
    nonisolated(unsafe) static var startError: (any Error)?
    static let type = "pass.org.passconduit.boarding"

    override class func setUp() {
        super.setUp()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pc-faults-\(UUID().uuidString.prefix(8))")
        do {
            let t = try UpdateKit.makeTLS(dir, name: "trusted")
            tls = t
            server = try UpdateKit.startFaultServer(dir, tls: (t.cert, t.key))
        } catch { startError = error }
    }

    override class func tearDown() {
        server?.stop()
        if let dir = server?.dir { try? FileManager.default.removeItem(at: dir) }
        super.tearDown()
    }

    func started() throws -> (server: UpdateKit.Server, ca: String) {
        if let e = Self.startError { throw e }
        return (try XCTUnwrap(Self.server), try XCTUnwrap(Self.tls?.ca))
    }

    let now = Date()

    func sha256(_ url: URL) throws -> String {
        String(decoding: try UpdateKit.run("/usr/bin/sha256sum", [url.path]), as: UTF8.self).split(separator: " ")[0].lowercased()
    }

    func exportSHA(_ sandbox: Sandbox, _ id: String) throws -> String {
        let out = sandbox.dir.appendingPathComponent("export-\(UUID().uuidString.prefix(6)).pkpass")
        let r = try sandbox.run("export", [id, "--output", out.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try sha256(out)
    }

    /// A pass in `sandbox` whose web service is the fault server; returns its id and file.
    func addPass(_ sandbox: Sandbox, serial: String, url: String? = nil) throws -> (id: String, file: URL) {
        let (server, _) = try started()
        let file = try UpdateKit.pass(serial: serial, webServiceURL: url ?? "https://127.0.0.1:\(server.port)/",
                                      signed: now.addingTimeInterval(-7200), in: sandbox.dir)
        let r = try sandbox.run("add", ["--yes", file.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return ("\(Self.type)/\(serial)", file)
    }

    func testALibraryThatCannotHandOverAPassFailsTheRunInsteadOfSkippingThePass() throws {
        // Given a pass with a web service, in a library whose blob table another program damaged
        let sandbox = try Sandbox()
        _ = try addPass(sandbox, serial: "DAMAGED-1")
        let damage = try UpdateKit.run("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.execute('ALTER TABLE pass_blob RENAME TO pass_blob_elsewhere'); c.commit()
            """, sandbox.library])
        XCTAssertEqual(damage, Data())
        // When update runs
        let r = try sandbox.run("update", [])
        // Then it says the library failed (74, naming it) rather than "no web service to check"
        XCTAssertEqual(r.status, 74, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains(sandbox.library), r.stderr)
        XCTAssertFalse(r.stdout.contains("No pass in your library has a web service"), r.stdout)
    }

    func testTrustedCAThroughTheOptionIsAcceptedAndAnUnknownCARefused() throws {
        let (server, ca) = try started()
        let sandbox = try Sandbox()
        let serial = "ok-\(UUID().uuidString.prefix(8))"
        let (id, v1) = try addPass(sandbox, serial: serial)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: "https://127.0.0.1:\(server.port)/", gate: "B22",
                                    signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try FileManager.default.copyItem(at: v2, to: server.dir.appendingPathComponent(serial + ".pkpass"))

        // The system's trust store does not know the test CA: refused, try later, nothing changes.
        var r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 75, r.stdout + r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "failed", r.stdout)
        let error = r.outcome?["error"] as? [String: Any]
        XCTAssertEqual(error?["code"] as? String, "unreachable", r.stdout)
        XCTAssertTrue((error?["message"] as? String ?? "").contains("trusted secure connection"), r.stdout)
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(v1))

        // With the CA added (--ca-file): taken, then 304.
        r = try sandbox.run("update", ["--json", "--ca-file", ca, id])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "updated", r.stdout)
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(v2))
        r = try sandbox.run("update", ["--json", "--ca-file", ca, id])
        XCTAssertEqual(r.outcome?["http"] as? Int, 304, r.stdout)
    }

    func testHostileAnswersChangeNothingAndGetOneClearLine() throws {
        let (_, ca) = try started()
        let sandbox = try Sandbox()
        let faults = ["garbage", "truncated", "huge", "endless", "trickle", "reset", "elsewhere", "busy"]
        var ids: [String: String] = [:]
        var files: [String: URL] = [:]
        for fault in faults {
            let (id, file) = try addPass(sandbox, serial: "\(fault)-\(UUID().uuidString.prefix(6))")
            ids[fault] = id
            files[fault] = file
        }
        let started = Date()
        let r = try sandbox.run("update", ["--json", "--ca-file", ca] + faults.compactMap { ids[$0] })
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 65, r.stdout + r.stderr)   // refusals outrank try-later
        XCTAssertLessThan(seconds, 30, "the slow trickle must be cut at the 10 s request limit")
        var byID: [String: [String: Any]] = [:]
        for o in r.objects { byID[o["id"] as? String ?? ""] = o }
        func expect(_ fault: String, _ outcome: String, _ code: String, file: StaticString = #filePath, line: UInt = #line) {
            let o = byID[ids[fault] ?? ""]
            XCTAssertEqual(o?["outcome"] as? String, outcome, "\(fault): \(r.stdout)", file: file, line: line)
            XCTAssertEqual((o?["error"] as? [String: Any])?["code"] as? String, code, "\(fault): \(r.stdout)", file: file, line: line)
        }
        expect("garbage", "refused", "not-a-zip")
        expect("truncated", "failed", "unreachable")
        expect("huge", "refused", "too-large")
        expect("endless", "refused", "too-large")
        expect("trickle", "failed", "timeout")
        expect("reset", "failed", "unreachable")
        expect("elsewhere", "refused", "redirect-refused")
        expect("busy", "failed", "try-later")
        XCTAssertNotNil(byID[ids["busy"] ?? ""]?["retryAfter"] as? String, r.stdout)
        for fault in faults {
            XCTAssertEqual(try exportSHA(sandbox, ids[fault]!), try sha256(files[fault]!), fault)
        }
        let log = try sandbox.run("log")
        XCTAssertFalse(log.stdout.contains("replace"), log.stdout)
        XCTAssertEqual(try PassLibrary(path: sandbox.library).check(), [])
        // Nothing was asked of 127.0.0.2 (the redirect's other host): only the pass's own host.
        let requests = (try? String(contentsOf: try self.started().server.dir.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        XCTAssertEqual(requests.components(separatedBy: "elsewhere").count - 1, 1, requests)

        // Retry-After is honoured: the next run skips the busy pass and says until when.
        let show = try sandbox.run("show", [ids["busy"]!])
        XCTAssertTrue(show.stdout.contains("the issuer asked to wait until"), show.stdout)
        let full = try sandbox.run("update", ["--ca-file", ca] + faults.filter { $0 != "trickle" }.compactMap { ids[$0] })
        let lines = full.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, faults.count - 1, full.stdout)
        for line in lines {
            XCTAssertTrue(line.contains("refused — ") || line.contains("failed — ")
                          || line.contains("skipped — The issuer asked to wait until"), String(line))
        }
    }

    /// Issue 26 item 10: a refused connection read "broke off the connection before the answer
    /// was complete", and a file: URL "does not parse as an absolute URL". Each says what it is.
    func testARefusedConnectionAndAFileURLSayWhatTheyAre() throws {
        let sandbox = try Sandbox()
        // A port nothing listens on: bind one, note it, close it.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        close(probe)
        let closedPort = Int(UInt16(bigEndian: address.sin_port))
        let (refusedID, _) = try addPass(sandbox, serial: "refused-\(UUID().uuidString.prefix(6))", url: "https://127.0.0.1:\(closedPort)/")
        let refused = try sandbox.run("update", ["--json", refusedID])
        let refusedError = refused.outcome?["error"] as? [String: Any]
        XCTAssertEqual(refusedError?["code"] as? String, "unreachable", refused.stdout)
        XCTAssertTrue((refusedError?["message"] as? String ?? "").contains("refused the connection"), refused.stdout)
        XCTAssertFalse((refusedError?["message"] as? String ?? "").contains("broke off"), refused.stdout)

        let (fileID, _) = try addPass(sandbox, serial: "file-\(UUID().uuidString.prefix(6))", url: "file:///etc/passwd")
        let file = try sandbox.run("update", ["--json", fileID])
        let fileError = file.outcome?["error"] as? [String: Any]
        XCTAssertEqual(fileError?["message"] as? String, "The pass's update address is not a web address.", file.stdout)
        XCTAssertTrue((fileError?["detail"] as? String ?? "").contains("scheme “file” is neither https nor http"), file.stdout)
    }

    /// Issue 26 item 10: the issuer serving the very bytes stored, checked without the --trust
    /// folder the pass was added under, was "refused" (65); it is "unchanged".
    func testTheSameBytesAreUnchangedWithoutTheTrustFolder() throws {
        let (server, ca) = try started()
        let sandbox = try Sandbox()
        let serial = "ok-same\(UUID().uuidString.prefix(8))"
        let (id, v1) = try addPass(sandbox, serial: serial)
        try FileManager.default.copyItem(at: v1, to: server.dir.appendingPathComponent(serial + ".pkpass"))
        let r = try sandbox.run("update", ["--json", "--ca-file", ca, "--library", sandbox.library, id], common: false)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "unchanged", r.stdout)
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(v1))
    }

    /// Issue 26 item 10: an update that voids the pass reported only "Gate changed to C3.";
    /// the cancellation leads the text, the JSON and the log.
    func testAnUpdateThatVoidsThePassSaysSoFirst() throws {
        let (server, ca) = try started()
        let sandbox = try Sandbox()
        let serial = "ok-void\(UUID().uuidString.prefix(8))"
        let (id, _) = try addPass(sandbox, serial: serial)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: "https://127.0.0.1:\(server.port)/", gate: "C3",
                                    signed: now.addingTimeInterval(-3600), extra: ["voided": true], in: sandbox.dir)
        try FileManager.default.copyItem(at: v2, to: server.dir.appendingPathComponent(serial + ".pkpass"))
        let r = try sandbox.run("update", ["--json", "--ca-file", ca, id])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let changes = try XCTUnwrap(r.outcome?["changes"] as? [[String: Any]], r.stdout)
        XCTAssertEqual(changes.first?["key"] as? String, "voided", r.stdout)
        XCTAssertEqual(changes.first?["message"] as? String, "The issuer voided this pass.", r.stdout)
        let log = try sandbox.run("log")
        XCTAssertTrue(log.stdout.contains("The issuer voided this pass."), log.stdout)
        let show = try sandbox.run("show", ["--no-barcode", id])
        XCTAssertTrue(show.stdout.contains("The issuer voided this pass."), show.stdout)
    }

    func testPlainHTTPOnlyToLoopbackHosts() throws {
        let sandbox = try Sandbox()
        let (id, file) = try addPass(sandbox, serial: "ok-\(UUID().uuidString.prefix(6))", url: "http://passes.example.com/service/")
        let r = try sandbox.run("update", ["--json", id])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.outcome?["outcome"] as? String, "skipped", r.stdout)
        XCTAssertEqual((r.outcome?["error"] as? [String: Any])?["code"] as? String, "insecure-url", r.stdout)
        XCTAssertTrue(r.outcome?["http"] is NSNull)
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(file))
    }

    /// Sixteen `update` runs and a delivery filter carrying the same newer version, all at once:
    /// exactly one replace in the change log with its change message, the library checks clean.
    func testSixteenParallelRunsAndAMailedUpdateLoseAndDoubleNothing() throws {
        let (server, ca) = try started()
        let sandbox = try Sandbox()
        let serial = "ok-\(UUID().uuidString.prefix(8))"
        let (id, _) = try addPass(sandbox, serial: serial)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: "https://127.0.0.1:\(server.port)/", gate: "B22",
                                    signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        try FileManager.default.copyItem(at: v2, to: server.dir.appendingPathComponent(serial + ".pkpass"))
        let message = FilterMail.message(passes: [("boarding.pkpass", [UInt8](try Data(contentsOf: v2)))], subject: "Gate change")
        let messageFile = sandbox.dir.appendingPathComponent("gate.eml")
        try Data(message).write(to: messageFile)

        var processes: [Process] = []
        for i in 0..<17 {
            let p = Process()
            p.executableURL = Binary.url
            if i == 8 {
                p.arguments = ["filter", "--log", "none", "--deadline", "60", "--library", sandbox.library, "--trust", Run.sample("ca/trust")]
                p.standardInput = try FileHandle(forReadingFrom: messageFile)
            } else {
                p.arguments = ["update", "--json", "--library", sandbox.library, "--trust", Run.sample("ca/trust"), "--ca-file", ca, id]
                p.standardInput = FileHandle.nullDevice
            }
            p.environment = sandbox.environment
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            processes.append(p)
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        XCTAssertEqual(processes.map(\.terminationStatus), Array(repeating: 0, count: 17))

        let library = try PassLibrary(path: sandbox.library)
        XCTAssertEqual(try library.check(), [])
        let replaces = try library.changes(after: 0).filter { $0.kind == .replace }
        XCTAssertEqual(replaces.count, 1, "\(replaces)")
        XCTAssertEqual(replaces.first?.changes.compactMap(\.message), ["Gate changed to B22."])
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(v2))
    }

    /// Item 6: the delivery filter's update by mail records the same change entries.
    func testMailedUpdateRecordsTheChangeMessages() throws {
        let sandbox = try Sandbox()
        let serial = "mail-\(UUID().uuidString.prefix(8))"
        let (id, _) = try addPass(sandbox, serial: serial)
        let v2 = try UpdateKit.pass(serial: serial, webServiceURL: "https://127.0.0.1:1/", gate: "D4",
                                    signed: now.addingTimeInterval(-3600), in: sandbox.dir)
        let message = FilterMail.message(passes: [("boarding.pkpass", [UInt8](try Data(contentsOf: v2)))], subject: "Gate change")
        let r = try FilterRun.filter(message, arguments: ["--log", "none", "--deadline", "60", "--library", sandbox.library,
                                                          "--trust", Run.sample("ca/trust")], environment: sandbox.environment)
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(try exportSHA(sandbox, id), try sha256(v2))
        let log = try sandbox.run("log", ["--json"]).objects.last
        XCTAssertEqual(log?["kind"] as? String, "replace")
        let changes = log?["changes"] as? [[String: Any]]
        XCTAssertEqual(changes?.first?["message"] as? String, "Gate changed to D4.", "\(String(describing: log))")
        XCTAssertEqual(changes?.first?["old"] as? String, "A26")
    }
}
