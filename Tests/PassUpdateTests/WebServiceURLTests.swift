import Foundation
import XCTest
@testable import PassUpdate

final class WebServiceURLTests: XCTestCase {
    func testJoinsWithoutDoubleSlashAndEncodesEachPart() throws {
        let base = try WebServiceURL("http://127.0.0.1:8000/api/passes/")
        XCTAssertEqual(base.url(["passes", "pass.org.example", "S 1/2+3"]),
                       "http://127.0.0.1:8000/api/passes/v1/passes/pass.org.example/S%201%2F2%2B3")
        let bare = try WebServiceURL("https://passes.example.com")
        XCTAssertEqual(bare.url(["passes", "t", "s"]), "https://passes.example.com/v1/passes/t/s")
        let many = try WebServiceURL("https://passes.example.com//svc//")
        XCTAssertFalse(many.url(["log"]).contains("//v1"))
    }

    func testTagGoesBackExactlyWithPlusAndColonEscaped() throws {
        let base = try WebServiceURL("https://example.com/p/")
        XCTAssertEqual(base.url(["devices", "d", "registrations", "t"], query: [("passesUpdatedSince", "2026-11-23T19:45:45.518596+00:00")]),
                       "https://example.com/p/v1/devices/d/registrations/t?passesUpdatedSince=2026-11-23T19%3A45%3A45.518596%2B00%3A00")
    }

    func testPlainHTTPOnlyForLoopback() throws {
        for ok in ["http://localhost:1/", "http://127.0.0.1/x", "http://127.9.9.9", "http://[::1]:8080/", "https://example.com"] {
            XCTAssertNoThrow(try WebServiceURL(ok), ok)
        }
        for bad in ["http://example.com/", "http://10.0.0.1/", "http://127.0.0.1.example.com/", "ftp://example.com/",
                    "https://user:pw@example.com/", "not a url", ""] {
            XCTAssertThrowsError(try WebServiceURL(bad), bad)
        }
        XCTAssertEqual((try? WebServiceURL("http://example.com/")).map { _ in "" }, nil)
        do { _ = try WebServiceURL("http://example.com/") } catch { XCTAssertEqual(error.code, .insecureURL) }
    }

    func testRedirectsOnlyWithinTheOrigin() throws {
        let base = try WebServiceURL("https://example.com/p/")
        XCTAssertTrue(base.sameOrigin(URLComponents(string: "https://EXAMPLE.com:443/other")!))
        XCTAssertFalse(base.sameOrigin(URLComponents(string: "https://evil.example/p")!))
        XCTAssertFalse(base.sameOrigin(URLComponents(string: "http://example.com/p")!))
        XCTAssertFalse(base.sameOrigin(URLComponents(string: "https://example.com:8443/p")!))
    }

    func testProxyChosenLikeCurl() {
        let p = ProxySettings(environment: ["https_proxy": "http://proxy.local:3128", "HTTP_PROXY": "http://ignored:1",
                                            "no_proxy": "localhost,.internal.example, 10.1.2.3"])
        XCTAssertEqual(p.server(scheme: "https", host: "passes.example.com")?.host, "proxy.local")
        XCTAssertEqual(p.server(scheme: "https", host: "passes.example.com")?.port, 3128)
        XCTAssertNil(p.server(scheme: "http", host: "passes.example.com"), "curl ignores upper-case HTTP_PROXY")
        XCTAssertNil(p.server(scheme: "https", host: "a.internal.example"))
        XCTAssertNil(p.server(scheme: "https", host: "internal.example"))
        XCTAssertNil(p.server(scheme: "https", host: "10.1.2.3"))
        XCTAssertNil(p.server(scheme: "https", host: "localhost"))
        XCTAssertNil(ProxySettings(environment: ["HTTPS_PROXY": "p:1", "NO_PROXY": "*"]).server(scheme: "https", host: "x"))
        XCTAssertEqual(ProxySettings(environment: ["ALL_PROXY": "socks.local"]).server(scheme: "https", host: "x")?.port, 1080)
    }

    func testRetryAfterSecondsOrDateCappedAtAWeek() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        XCTAssertEqual(HTTPDate.retryAfter("120", now: now), now.addingTimeInterval(120))
        XCTAssertEqual(HTTPDate.retryAfter("99999999", now: now), now.addingTimeInterval(7 * 86_400))
        XCTAssertEqual(HTTPDate.retryAfter("Sun, 14 Feb 2027 08:00:00 GMT", now: now)?.timeIntervalSince1970, 1_800_000_000 + 7 * 86_400)
        XCTAssertNil(HTTPDate.retryAfter("soon", now: now))
        XCTAssertEqual(HTTPDate.parse("Wed, 25 Nov 2026 00:00:00 GMT")?.timeIntervalSince1970, 1_795_564_800)
    }
}
