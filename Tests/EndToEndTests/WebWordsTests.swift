import Foundation
import XCTest

/// Issue 41 item 4 (operator trial D9): no page a mailbox owner reads speaks the command line or
/// the program's insides. Every page a signed-in owner reaches — the list, each pass (with an
/// updated pass's history), its share and remove pages, offers (an untrusted one accepted), the
/// add form and an upload's verdicts, Settings with a calendar address, "Check for update", and
/// the error pages — is fetched from `serve --auth header:` and its visible text searched for a
/// command-line option, the program run as a command, and the internal words the trial found.
final class WebWordsTests: XCTestCase {
    override func tearDown() { FilterRun.cleanUp() }

    /// What a page shows a person: the text outside tags, scripts and style sheets.
    static func visibleText(_ html: String) -> String {
        var text = html
        for pattern in ["(?s)<script\\b.*?</script>", "(?s)<style\\b.*?</style>", "(?s)<!--.*?-->", "<[^>]*>"] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }

    /// The words no owner's page may show, each with why.
    static let forbidden: [(pattern: String, why: String)] = [
        ("(?<![\\w-])--[a-z][a-z-]+", "a command-line option"),
        ("passconduit (add|scan|serve|calendar|update|list|show|share|offer|offers|filter|library|export|send|render|remove|log)\\b",
         "the program run as a command"),
        ("(?i)this computer", "the wallet is a web service, not this computer"),
        ("(?i)\\bfile: offer\\b|\\boffer [0-9]+\\b", "an offer's number where its file name belongs"),
        ("\\bpass\\.[A-Za-z0-9.-]+/\\S+", "a pass type identifier and serial"),
        ("\\(HTTP [0-9]{3}\\)|\\[registered\\]|\\[registration failed\\]", "the update log's technical marks"),
        ("(?i)\\b(stderr|stdout|exit status|sqlite|postgresql://)", "the program's insides"),
        ("(?m)^\\s*(add|replace|remove|revert|offer|decline)\\s*$", "a bare history verb"),
    ]

    func testNoPageSpeaksTheCommandLineOrTheProgramsInsides() throws {
        let sandbox = try Sandbox()
        let template = sandbox.dir.path + "/%{local}@%{domain}.sqlite"
        let library = sandbox.dir.path + "/alice@example.org.sqlite"
        let trust = ["--trust", Run.sample("ca/trust")]
        func run(_ command: String, _ arguments: [String], stdin: Data? = nil) throws -> Run {
            let r = try sandbox.run(command, ["--library", library] + trust + arguments, stdin: stdin, common: false)
            XCTAssertTrue([0, 1].contains(r.status), "\(command) \(arguments): \(r.stderr)")
            return r
        }
        // Passes: one updated (its history says so), one kept though its signer is unknown (its
        // card says why it is not verified).
        _ = try run("add", ["--yes", Run.sample("passes/event-ticket.pkpass")])
        _ = try run("add", ["--yes", Run.sample("messages/update.eml")])
        _ = try run("add", ["--yes", "--allow-untrusted", Run.sample("messages/untrusted.eml")])
        // Two offers, as the delivery filter stages them.
        _ = try run("filter", [], stdin: try Data(contentsOf: URL(fileURLWithPath: Run.sample("messages/two-passes.eml"))))

        let server = try WebServeTests.Server(sandbox, ["--listen", "127.0.0.1:0", "--auth", "header:X-User", "--trusted-proxy", "127.0.0.1",
                                                        "--trusted-proxy", "::1", "--library-map", template] + trust, common: false)
        try server.started()
        let jar = sandbox.dir.appendingPathComponent("jar")
        let asAlice = ["-H", "X-User: alice@example.org"]
        var pages: [(String, WebServeTests.Reply)] = []
        func get(_ path: String) throws -> WebServeTests.Reply {
            let reply = try WebServeTests.curl(server.base + path, jar: jar, asAlice)
            pages.append(("GET " + path, reply))
            return reply
        }
        func post(_ path: String, _ fields: [String], form: Bool = false) throws -> WebServeTests.Reply {
            let token = WebServeTests.csrf(try WebServeTests.curl(server.base + "/settings", jar: jar, asAlice).text) ?? ""
            let flag = form ? "-F" : "-d"
            var extra = asAlice + ["-H", "Origin: " + server.base, flag, "csrf=" + token]
            for field in fields { extra += [flag, field] }
            let reply = try WebServeTests.curl(server.base + path, jar: jar, extra)
            pages.append(("POST " + path, reply))
            return reply
        }

        let list = try get("/")
        XCTAssertEqual(list.status, 200, list.text)
        let hashes = Array(Set(list.text.matches(of: /\/passes\/([0-9a-f]{32})"/).map { String($0.1) })).sorted()
        XCTAssertEqual(hashes.count, 2, list.text)
        for hash in hashes {
            XCTAssertEqual(try get("/passes/\(hash)").status, 200)
            _ = try get("/passes/\(hash)/share")
            _ = try post("/passes/\(hash)/update", [])
        }
        let offers = try get("/offers")
        let numbers = Array(Set(offers.text.matches(of: /\/offers\/([0-9]+)"/).map { String($0.1) })).sorted()
        XCTAssertGreaterThanOrEqual(numbers.count, 2, offers.text)
        for number in numbers { _ = try get("/offers/\(number)") }
        // Accepting every offer: the untrusted one is refused with the wallet's words.
        for number in numbers { _ = try post("/offers/\(number)/accept", []) }
        _ = try get("/add")
        let upload = try post("/add", ["file=@" + Run.sample("messages/untrusted.eml")], form: true)
        XCTAssertEqual(upload.status, 422, upload.text)
        _ = try get("/settings")
        _ = try post("/settings/calendar", ["action=make"])
        _ = try get("/passes/" + String(repeating: "0", count: 64))
        _ = try get("/no-such-page")
        if let first = hashes.first { _ = try post("/passes/\(first)/remove", []) }
        _ = try get("/")

        XCTAssertGreaterThan(pages.count, 15)
        for (request, reply) in pages {
            XCTAssertTrue(!reply.text.isEmpty || (300..<400).contains(reply.status), "\(request): \(reply.status), no page")
            let text = Self.visibleText(reply.text)
            for (pattern, why) in Self.forbidden {
                if let found = text.range(of: pattern, options: .regularExpression) {
                    XCTFail("\(request) (\(reply.status)) shows \(why): “\(text[found])” in: \(text.prefix(3000))")
                }
            }
        }
    }
}
