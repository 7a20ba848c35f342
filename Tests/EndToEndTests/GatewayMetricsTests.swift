import Foundation
import XCTest

/// `milter --metrics HOST:PORT`: the daemon's counters in the Prometheus text format, read the
/// way Prometheus scrapes them (an HTTP GET), after real messages through miltertest.
final class GatewayMetricsTests: XCTestCase {
    var home: URL!
    var milter: MilterProcess?

    override func setUpWithError() throws {
        home = FilterRun.directory("gateway-metrics")
    }

    override func tearDown() {
        milter?.stop()
        try? FileManager.default.removeItem(at: home)
    }

    override class func tearDown() { FilterRun.cleanUp() }

    /// `GET url` with Python's urllib: the status and the body.
    func get(_ url: String) throws -> (status: Int, body: String) {
        let r = try MilterKit.run("/usr/bin/python3", ["-c", """
            import sys, urllib.request, urllib.error
            try:
                r = urllib.request.urlopen(sys.argv[1], timeout=30)
                print(r.status); print(r.headers.get("Content-Type")); sys.stdout.write(r.read().decode())
            except urllib.error.HTTPError as e:
                print(e.code); print(e.headers.get("Content-Type")); sys.stdout.write(e.read().decode())
            """, url])
        let lines = r.output.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
        guard lines.count == 3, let status = Int(lines[0]) else { throw NSError(domain: "GET", code: 1, userInfo: [NSLocalizedDescriptionKey: r.output]) }
        XCTAssertTrue(status != 200 || lines[1].hasPrefix("text/plain; version=0.0.4"), String(lines[1]))
        return (status, String(lines[2]))
    }

    func value(_ body: String, _ series: String) -> String? {
        body.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map { String($0.dropFirst(series.count + 1)) }
    }

    func testTheCountersFollowTheMessages() throws {
        let metricsPort = MilterKit.freePort()
        let libraries = home.appendingPathComponent("libraries")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        let sandbox = try Sandbox()
        XCTAssertEqual(try sandbox.run("library", ["create", "alice@example.org", "--library-map", libraries.path + "/%{local}@%{domain}.sqlite"], common: false).status, 0)
        milter = try MilterProcess(home: home, arguments: ["--library-map", libraries.path + "/%{local}@%{domain}.sqlite",
                                                           "--metrics", "127.0.0.1:\(metricsPort)"])
        XCTAssertTrue(MilterKit.waitUntil(30) { MilterKit.isListening(metricsPort) })
        let ticket = FilterMail.message(passes: [(name: "ticket.pkpass", bytes: try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true)
        XCTAssertTrue(try GatewayMilter.send(ticket, to: ["alice@example.org"], port: milter!.port, scratch: home).contains("reply=continue"))
        let plain = Array("From: a@example.net\r\nSubject: hi\r\n\r\nno pass\r\n".utf8)
        XCTAssertTrue(try GatewayMilter.send(plain, to: ["bob@example.org"], port: milter!.port, scratch: home).contains("reply=continue"))

        let (status, body) = try get("http://127.0.0.1:\(metricsPort)/metrics")
        XCTAssertEqual(status, 200, body)
        XCTAssertEqual(value(body, #"passconduit_milter_messages_total{result="headers"}"#), "1", body)
        XCTAssertEqual(value(body, #"passconduit_milter_messages_total{result="unchanged"}"#), "1", body)
        XCTAssertEqual(value(body, #"passconduit_milter_passes_total{verdict="new"}"#), "1", body)
        XCTAssertEqual(value(body, #"passconduit_milter_library_outcomes_total{action="offered"}"#), "1", body)
        XCTAssertEqual(value(body, "passconduit_milter_scan_seconds_count"), "2", body)
        XCTAssertEqual(value(body, "passconduit_milter_worker_restarts_total"), "0", body)
        XCTAssertFalse(body.contains("alice") || body.contains(libraries.path), "the metrics name no mailbox or library")
        XCTAssertEqual(try get("http://127.0.0.1:\(metricsPort)/other").status, 404)
    }

    func testLibraryErrorsAndWorkerRestartsAreCounted() throws {
        let metricsPort = MilterKit.freePort()
        milter = try MilterProcess(home: home, arguments: ["--library-map", "postgresql://postgres@/passconduit?host=/nonexistent-pc-pg",
                                                           "--metrics", "127.0.0.1:\(metricsPort)"])
        let ticket = FilterMail.message(passes: [(name: "ticket.pkpass", bytes: try FilterMail.samplePass("event-ticket.pkpass"))], crlf: true)
        XCTAssertTrue(try GatewayMilter.send(ticket, to: ["alice@example.org"], port: milter!.port, scratch: home).contains("reply=continue"))
        var body = try get("http://127.0.0.1:\(metricsPort)/metrics").body
        XCTAssertEqual(value(body, #"passconduit_milter_library_errors_total{code="library-unavailable"}"#), "1", body)
        milter?.stop()
        milter = try MilterProcess(home: home, arguments: ["--library", home.appendingPathComponent("library.sqlite").path,
                                                           "--metrics", "127.0.0.1:\(metricsPort)"],
                                   environment: ["PASSCONDUIT_FILTER_FAULT": "crash"])
        XCTAssertTrue(try GatewayMilter.send(ticket, to: ["alice@example.org"], port: milter!.port, scratch: home).contains("reply=continue"))
        body = try get("http://127.0.0.1:\(metricsPort)/metrics").body
        XCTAssertEqual(value(body, "passconduit_milter_worker_restarts_total"), "1", body)
        XCTAssertEqual(value(body, #"passconduit_milter_errors_total{code="scan-failed"}"#), "1", body)
    }
}
