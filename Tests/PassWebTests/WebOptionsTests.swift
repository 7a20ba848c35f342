import XCTest
@testable import PassWeb
import Support

/// `serve`'s addresses and forms as written by people and browsers: parsed exactly, refused with a sentence.
final class WebOptionsTests: XCTestCase {
    func testListenAddresses() throws {
        XCTAssertEqual(try ListenAddress.parse("127.0.0.1:8080"), .host("127.0.0.1", port: 8080))
        XCTAssertEqual(try ListenAddress.parse("[::1]:0"), .host("::1", port: 0))
        XCTAssertEqual(try ListenAddress.parse("unix:/run/pc.sock"), .unix(path: "/run/pc.sock"))
        XCTAssertTrue(try ListenAddress.parse("127.3.4.5:1").isLoopback)
        XCTAssertTrue(try ListenAddress.parse("localhost:1").isLoopback)
        XCTAssertFalse(try ListenAddress.parse("0.0.0.0:1").isLoopback)
        XCTAssertFalse(try ListenAddress.parse("127.example.org:1").isLoopback)
        for bad in ["8080", "::1:8080", "[::1", "host:99999", "host:-1", ":80", "unix:"] {
            XCTAssertThrowsError(try ListenAddress.parse(bad), bad)
        }
    }

    func testSignInOptions() throws {
        XCTAssertEqual(try SignInOption.parse("header:X-Forwarded-User"), .header(name: "X-Forwarded-User"))
        XCTAssertEqual(try SignInOption.parse("imaps://mail.example.org"),
                       .mailbox(.init(host: "mail.example.org", port: 993, security: .tls)))
        XCTAssertEqual(try SignInOption.parse("imap://mail.example.org:1143"),
                       .mailbox(.init(host: "mail.example.org", port: 1143, security: .startTLS)))
        XCTAssertEqual(try SignInOption.parse("imap://127.0.0.1"),
                       .mailbox(.init(host: "127.0.0.1", port: 143, security: .startTLSIfOffered)))
        for bad in ["header:", "header:X User", "imap://user:pw@host", "imap://host/INBOX", "ldap://x", "pop3://x", "imap://"] {
            XCTAssertThrowsError(try SignInOption.parse(bad), bad)
        }
    }

    func testTrustedProxyRanges() throws {
        let v4 = try AddressRange.parse("10.1.0.0/16")
        XCTAssertTrue(v4.contains("10.1.200.3"))
        XCTAssertTrue(v4.contains("::ffff:10.1.0.9"), "IPv4-mapped peers match")
        XCTAssertFalse(v4.contains("10.2.0.1"))
        XCTAssertFalse(v4.contains("not an address"))
        let one = try AddressRange.parse("::1")
        XCTAssertTrue(one.contains("::1"))
        XCTAssertFalse(one.contains("::2"))
        XCTAssertTrue(try AddressRange.parse("0.0.0.0/0").contains("192.0.2.1"))
        XCTAssertEqual(try AddressRange.parse("192.0.2.7/24").description, "192.0.2.7/24")
        for bad in ["proxy.example.org", "10.0.0.0/33", "::1/129", "10.0.0.0/x", ""] {
            XCTAssertThrowsError(try AddressRange.parse(bad), bad)
        }
    }

    func testFormsAndMultipartBodies() throws {
        XCTAssertEqual(WebForm.urlEncoded("csrf=ab&q=caf%C3%A9+bar&x"), ["csrf": "ab", "q": "café bar", "x": ""])
        XCTAssertNil(WebForm.urlEncoded("q=%ff")["q"], "not UTF-8: no value")
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntok\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pkpass\"\r\nContent-Type: application/octet-stream\r\n\r\nPK\u{3}\u{4}\r\n--XyZ--\r\n".utf8)
        let parts = try XCTUnwrap(WebForm.multipart(body, boundary: "XyZ"))
        XCTAssertEqual(parts.map(\.name), ["csrf", "file"])
        XCTAssertEqual(parts[1].filename, "a.pkpass")
        XCTAssertEqual(Array(parts[1].body), [0x50, 0x4B, 3, 4])
        XCTAssertEqual(WebForm.boundary("multipart/form-data; boundary=\"XyZ\""), "XyZ")
        // Every truncation is refused, never read past its end.
        for cut in 0..<(body.count - 4) { _ = WebForm.multipart(Array(body[..<cut]), boundary: "XyZ") }
        XCTAssertNil(WebForm.multipart(Array(body.prefix(40)), boundary: "XyZ"))
    }

    func testOnlyPlainPathsReachTheRoutes() {
        XCTAssertEqual(WebApp.plainPath("/passes/abc.pkpass"), ["passes", "abc.pkpass"])
        for bad in ["/../x", "/passes/%2e%2e", "/a\\b", "/%00", "/passes/./x", "relative", "/\u{e9}"] {
            XCTAssertNil(WebApp.plainPath(bad), bad)
        }
    }
}
