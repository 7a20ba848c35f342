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
        // The mailbox server's URL is parsed once, by the IMAP client's address (IMAPWireTests).
        XCTAssertEqual(try SignInOption.parse("imaps://mail.example.org"), .mailbox(url: "imaps://mail.example.org"))
        XCTAssertEqual(try SignInOption.parse("imap://mail.example.org:1143"), .mailbox(url: "imap://mail.example.org:1143"))
        for bad in ["header:", "header:X User", "ldap://x", "pop3://x", "mail.example.org"] {
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

    /// Issue 37 item 6 (websec D6): names a sign-in proxy vouches for are taken only when they
    /// cannot stand for another person's library once lower-cased and normalised.
    func testProxyNamesThatCouldStandForAnotherAreRefused() throws {
        XCTAssertEqual(try WebApp.proxyUserName(" Karl@Example.org "), "karl@example.org")
        XCTAssertEqual(try WebApp.proxyUserName("jürgen@example.org"), "jürgen@example.org", "lower-case non-ASCII, stable: taken")
        XCTAssertNil(try WebApp.proxyUserName("  "))
        for name in ["\u{212A}arl@example.org",        // KELVIN SIGN: NFKC makes it K, then karl
                     "%{domain}@example.org",            // a placeholder of the library map
                     "ju\u{308}rgen@example.org",         // decomposed: NFKC composes it
                     "J\u{dc}rgen@example.org",           // a non-ASCII capital: folds to another name
                     "\u{FF4B}arl@example.org",          // FULLWIDTH k
                     "karl\u{200B}@example.org",          // ZERO WIDTH SPACE (format)
                     "karl\u{7}@example.org", "a/b@example.org", "a\\b@example.org", "karl @example.org",
                     String(repeating: "a", count: 321)] {
            XCTAssertThrowsError(try WebApp.proxyUserName(name), name.debugDescription) { error in
                XCTAssertEqual((error as? WebProblem)?.status.code, 403)
                XCTAssertEqual((error as? WebProblem)?.title, "User name refused")
            }
        }
    }

    func testOnlyPlainPathsReachTheRoutes() {
        XCTAssertEqual(WebApp.plainPath("/passes/abc.pkpass"), ["passes", "abc.pkpass"])
        for bad in ["/../x", "/passes/%2e%2e", "/a\\b", "/%00", "/passes/./x", "relative", "/\u{e9}"] {
            XCTAssertNil(WebApp.plainPath(bad), bad)
        }
    }
}

/// The session cookie read from `Cookie` headers as browsers write them (issue 30 item 5: on the
/// bytes, not with Foundation's trimming): the same answers as the reading it replaced.
final class WebCookieTests: XCTestCase {
    /// The reading before: pairs split at `;`, name and value at the first `=`, whitespace trimmed.
    static func reference(_ header: String, named name: String) -> String? {
        for pair in header.split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == name {
                return kv[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    func testCookieHeadersAsBrowsersWriteThem() {
        let cases: [(String, String?)] = [
            ("pcsid=abc", "abc"), ("a=1; pcsid=abc; b=2", "abc"), (" pcsid = abc ;", "abc"), ("pcsid=1; pcsid=2", "1"),
            ("pcsid=a=b", "a=b"), (";;pcsid=\t v \t;;", "v"), ("pcsid=", nil), ("pcsid", nil), ("=abc", nil), ("", nil),
            ("pcsidx=1; xpcsid=2", nil), ("pcsid=  ; pcsid=2", ""), ("pcsid==", "="), ("x=1;pcsid=ok", "ok"),
        ]
        for (header, expected) in cases {
            XCTAssertEqual(WebApp.asciiCookie(header, named: "pcsid"), expected, header)
            XCTAssertEqual(Self.reference(header, named: "pcsid"), expected, "reference: \(header)")
        }
    }

    func testSameAnswerAsBeforeOnRandomHeaders() {
        var random = SystemRandomNumberGenerator()
        let pieces = ["pcsid", "a", "b", "=", ";", " ", "\t", "pcs"]
        for _ in 0..<20_000 {
            let header = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            XCTAssertEqual(WebApp.asciiCookie(header, named: "pcsid"), Self.reference(header, named: "pcsid"), "“\(header)”")
            XCTAssertEqual(WebApp.asciiCookie(header, named: "a"), Self.reference(header, named: "a"), "“\(header)”")
        }
    }
}
