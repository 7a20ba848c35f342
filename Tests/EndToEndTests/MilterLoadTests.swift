import Foundation
import XCTest

/// Issue 27's load test: many messages through a private Postfix with the milter (run as
/// `--user nobody`, as a gateway would), 1 in 50 with a pass of its own, 3 recipients each out of
/// four mailboxes: alice and carol have libraries, bob's is read-only to the milter (root's), dave
/// has none. What must hold: every delivered copy is the sent bytes plus our header fields (and
/// Postfix's trace fields), every recipient's library got exactly the offers sent to it, and the
/// log names every failure (bob's library, each time a pass was sent to him) and no other.
///
/// CI sends 1 000 messages (3 000 copies). `Benchmarks/milter/load.sh` runs the same test with
/// PASSCONDUIT_LOAD_MESSAGES=10000 and prints how long it took.
final class MilterLoadTests: XCTestCase {
    static let mailboxes = ["alice@example.org", "bob@example.org", "carol@example.net", "dave@example.net"]

    override class func tearDown() {
        FilterRun.cleanUp()
        Unprivileged.cleanUp()
    }

    /// Message `i` goes to every mailbox but one (they take turns); every 50th carries a pass.
    static func recipients(_ i: Int) -> [String] { mailboxes.enumerated().filter { $0.offset != i % 4 }.map(\.element) }
    static func hasPass(_ i: Int) -> Bool { i % 50 == 0 }

    func testManyMessagesArriveWholeAndEachLibraryGetsExactlyItsOffers() throws {
        XCTAssertTrue(Unprivileged.dropsPrivileges, "Postfix needs root: run the end-to-end tests as root (as CI does)")
        guard Unprivileged.dropsPrivileges else { return }
        let count = Int(ProcessInfo.processInfo.environment["PASSCONDUIT_LOAD_MESSAGES"] ?? "") ?? 1000
        let started = Date()
        let root = Unprivileged.root.appendingPathComponent("load-\(UUID().uuidString.prefix(8))")
        let libraries = root.appendingPathComponent("libraries")
        let messages = root.appendingPathComponent("messages")
        for folder in [root, libraries, messages] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            chmod(folder.path, 0o755)
        }
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = URL(fileURLWithPath: try Unprivileged.binary())
        let trust = try Unprivileged.sampleTrust()
        let template = libraries.path + "/%{local}@%{domain}/library.sqlite"
        func library(_ mailbox: String) -> String { libraries.path + "/\(mailbox)/library.sqlite" }
        // alice's and carol's libraries are the milter's user's; bob's is root's (read-only to it).
        for (mailbox, owner) in [("alice@example.org", ["--owner", "nobody:nogroup"]), ("bob@example.org", []),
                                 ("carol@example.net", ["--owner", "nobody:nogroup"])] {
            let made = try Sandbox().run("library", ["create", mailbox, "--library-map", template] + owner, common: false)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        chmod(libraries.appendingPathComponent("bob@example.org").path, 0o755)
        chmod(library("bob@example.org"), 0o644)

        // The messages: 4 KB of text each, every 50th with a pass of its own (serial LOAD-i).
        let passes = try Self.forgePasses((0..<count).filter(Self.hasPass), into: root.appendingPathComponent("passes"))
        var sent: [[UInt8]] = []
        var plan: [[String: Any]] = []
        let filler = String(repeating: "The quick brown fox jumps over the lazy dog, 0123456789.\r\n", count: 70)
        for i in 0..<count {
            var bytes: [UInt8]
            if let pass = passes[i] {
                bytes = FilterMail.message(passes: [(name: "ticket-\(i).pkpass", bytes: pass)], crlf: true,
                                           extraHeaders: ["X-Load-Number: \(i)"])
            } else {
                bytes = Array("""
                    From: sender@example.net\r\nTo: undisclosed-recipients:;\r\nSubject: load \(i)\r\n\
                    Date: Fri, 27 Nov 2026 12:00:00 +0000\r\nMessage-ID: <load-\(i)@test.invalid>\r\nX-Load-Number: \(i)\r\n\
                    MIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n\(filler)
                    """.utf8)
            }
            let url = messages.appendingPathComponent("\(i).eml")
            try Data(bytes).write(to: url)
            sent.append(bytes)
            plan.append(["path": url.path, "rcpts": Self.recipients(i)])
        }

        let home = root.appendingPathComponent("milter")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        chmod(home.path, 0o755)
        let milter = try MilterProcess(home: home, arguments: ["--user", "nobody", "--group", "nogroup", "--library-map", template],
                                       executable: binary, trust: trust)
        defer { milter.stop() }
        let postfix = try PostfixInstance(milter: "inet:127.0.0.1:\(milter.port)", extraMain: ["default_process_limit = 40"])
        defer { postfix.stop() }
        let sending = Date()
        let refused = try Self.send(plan, port: postfix.milterPort)
        XCTAssertEqual(refused, [], "Postfix refused messages: \(postfix.log.suffix(2000))")
        var delivered: [String: [URL]] = [:]
        for mailbox in Self.mailboxes {
            let expected = (0..<count).filter { Self.recipients($0).contains(mailbox) }.count
            delivered[mailbox] = postfix.waitForDeliveries(mailbox, count: expected, seconds: Double(count) / 10 + 120)
            XCTAssertEqual(delivered[mailbox]?.count, expected, "\(mailbox): \(postfix.log.suffix(2000))")
        }
        let deliveredIn = Date().timeIntervalSince(sending)

        // Every copy: the sent bytes (CRLF as LF, as virtual(8) stores them) plus Postfix's trace
        // fields and ours; ours are the verdict only (3 recipients: no library's state).
        let trace: Set<String> = ["return-path", "x-original-to", "delivered-to", "x-passconduit", "x-passconduit-pass"]
        var seen: [String: Set<Int>] = [:]
        for (mailbox, urls) in delivered {
            for url in urls {
                let bytes = [UInt8](try Data(contentsOf: url))
                let head = String(decoding: bytes.prefix(8192), as: UTF8.self)
                guard let line = head.split(separator: "\n").first(where: { $0.hasPrefix("X-Load-Number: ") }),
                      let i = Int(line.dropFirst(15)), i < count else { XCTFail("\(mailbox): a copy without its number: \(url.path)"); continue }
                XCTAssertTrue(seen[mailbox, default: []].insert(i).inserted, "\(mailbox) got message \(i) twice")
                let expected = sent[i].split(separator: 13, omittingEmptySubsequences: false).joined()
                let got = DeliveredMessage.removing(trace, firstOnly: ["received"], from: bytes)
                if got != Array(expected) {
                    XCTFail("\(mailbox): message \(i) changed beyond the header fields: \(got.count) vs \(expected.count) bytes")
                }
                let ours = DeliveredMessage.ownFields(bytes)
                if Self.hasPass(i) {
                    XCTAssertEqual(ours.first, "X-Passconduit: 1 pass (1 valid)", "\(mailbox) \(i)")
                    XCTAssertEqual(ours.count, 2, "\(mailbox) \(i): \(ours)")
                } else {
                    XCTAssertEqual(ours, [], "\(mailbox) \(i)")
                }
            }
        }

        // Each library holds exactly the passes sent to its mailbox; bob's none (it is read-only), dave has none.
        for mailbox in ["alice@example.org", "carol@example.net"] {
            let offers = try Sandbox().run("offers", ["--library", library(mailbox), "--trust", Run.sample("ca/trust"), "--json"], common: false)
            XCTAssertEqual(offers.status, 0, offers.stderr)
            // An offer's id is passTypeIdentifier/serialNumber.
            let serials = Set(offers.objects.compactMap { ($0["id"] as? String)?.split(separator: "/").last.map(String.init) })
            let expected = Set((0..<count).filter { Self.hasPass($0) && Self.recipients($0).contains(mailbox) }.map { "LOAD-\($0)" })
            XCTAssertEqual(serials, expected, "\(mailbox): \(offers.stdout.prefix(600))")
        }
        let bobOffers = try Sandbox().run("offers", ["--library", library("bob@example.org"), "--trust", Run.sample("ca/trust"), "--json"], common: false)
        XCTAssertEqual(bobOffers.objects.count, 0, bobOffers.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: library("dave@example.net")), "no library is made for dave")

        // The log: one line per message; bob's library named as failed each time a pass went to
        // him, and no other failure.
        let lines = milter.messageLines
        XCTAssertEqual(lines.count, count, "one log line per message")
        let bobPasses = (0..<count).filter { Self.hasPass($0) && Self.recipients($0).contains("bob@example.org") }.count
        let bobFailures = lines.filter { $0.contains("library=\"\(library("bob@example.org"))\" library-error=") }
        XCTAssertEqual(bobFailures.count, bobPasses, bobFailures.prefix(3).joined(separator: "\n"))
        let otherErrors = lines.filter { $0.contains(" error=") || ($0.contains("library-error=") && !$0.contains("bob@example.org")) }
        XCTAssertEqual(otherErrors, [], otherErrors.prefix(3).joined(separator: "\n"))
        let total = Date().timeIntervalSince(started)
        print("milter load: \(count) messages, \(count * 3) copies delivered in \(String(format: "%.1f", deliveredIn)) s "
              + "(\(String(format: "%.0f", Double(count) / deliveredIn)) msg/s); whole test \(String(format: "%.1f", total)) s")
    }

    /// Signs one pass per number (serial LOAD-i) with the sample CA, in one Python process.
    static func forgePasses(_ numbers: [Int], into folder: URL) throws -> [Int: [UInt8]] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let script = """
            import json, subprocess, sys
            forge, src, ca, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
            for n in json.load(sys.stdin):
                subprocess.run([sys.executable, "-c", forge, src, f"{out}/{n}.pkpass", ca,
                                json.dumps({"serialNumber": f"LOAD-{n}"})], check=True)
            """
        let repo = FilterMail.repositoryRoot
        let r = try MilterKit.run("/usr/bin/python3", ["-c", script, FilterPassForge.script,
                                                       repo.appendingPathComponent("Samples/passes/event-ticket.pkpass").path,
                                                       repo.appendingPathComponent("Samples/ca").path, folder.path],
                                  environment: ["PATH": "/usr/bin:/bin"], stdin: try JSONSerialization.data(withJSONObject: numbers))
        XCTAssertEqual(r.status, 0, r.output)
        var out: [Int: [UInt8]] = [:]
        for n in numbers { out[n] = [UInt8](try Data(contentsOf: folder.appendingPathComponent("\(n).pkpass"))) }
        return out
    }

    /// Sends each message to its recipients through `port` over 4 SMTP sessions at once (Python's
    /// smtplib); returns the numbers Postfix refused.
    static func send(_ plan: [[String: Any]], port: Int) throws -> [Int] {
        let script = """
            import json, smtplib, sys, threading
            port = int(sys.argv[1])
            plan = json.load(sys.stdin)
            refused = []
            def worker(k):
                s = smtplib.SMTP("127.0.0.1", port, timeout=300)
                for i in range(k, len(plan), 4):
                    try:
                        s.sendmail("sender@example.net", plan[i]["rcpts"], open(plan[i]["path"], "rb").read())
                    except smtplib.SMTPException:
                        refused.append(i)
                        s.rset()
                s.quit()
            threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
            for t in threads: t.start()
            for t in threads: t.join()
            print(json.dumps(sorted(refused)))
            """
        let r = try MilterKit.run("/usr/bin/python3", ["-c", script, "\(port)"], stdin: try JSONSerialization.data(withJSONObject: plan))
        guard r.status == 0, let line = r.output.split(separator: "\n").last,
              let refused = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Int] else {
            throw NSError(domain: "MilterLoadTests.send", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.output])
        }
        return refused
    }
}
