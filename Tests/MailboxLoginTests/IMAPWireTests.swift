import MailboxLogin
import XCTest

/// What the sign-in sends and how it reads answers, byte by byte: addresses, arguments, responses.
final class IMAPWireTests: XCTestCase {
    func testAddressesParseWithTheirDefaultsAndSecurity() throws {
        let cases: [(String, String, Int, IMAPServerAddress.Security)] = [
            ("imap://mail.example.org", "mail.example.org", 143, .startTLS),
            ("imap://Mail.Example.org:1143/", "mail.example.org", 1143, .startTLS),
            ("imaps://mail.example.org", "mail.example.org", 993, .implicitTLS),
            ("imap://127.0.0.1:1430", "127.0.0.1", 1430, .plainLoopback),
            ("imap://localhost", "localhost", 143, .plainLoopback),
            ("imap://[::1]:1430", "::1", 1430, .plainLoopback),
            ("imap://[2001:db8::1]", "2001:db8::1", 143, .startTLS),
            ("IMAPS://[::1]", "::1", 993, .implicitTLS),
        ]
        for (text, host, port, security) in cases {
            let address = try IMAPServerAddress(parsing: text)
            XCTAssertEqual(address.host, host, text)
            XCTAssertEqual(address.port, port, text)
            XCTAssertEqual(address.security, security, text)
        }
        XCTAssertEqual(try IMAPServerAddress(parsing: "imap://[::1]:1430").description, "imap://[::1]:1430")
    }

    func testAddressesThatCannotBeUsedAreRefusedWithASentence() {
        let cases: [(String, String)] = [
            ("mail.example.org", "is not an IMAP server"),
            ("http://mail.example.org", "is not an IMAP server"),
            ("imap://", "names no host"),
            ("imap://alice:secret@mail.example.org", "must not carry a user or password"),
            ("imap://mail.example.org/INBOX", "no path or query"),
            ("imap://mail.example.org:0", "port must be a number"),
            ("imap://mail.example.org:99999", "port must be a number"),
            ("imap://[::1", "closing"),
            ("imap://mail example.org", "host name is not valid"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try IMAPServerAddress(parsing: text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
                XCTAssertFalse("\(error)".contains("secret"), "\(text): \(error)")
            }
        }
    }

    func testArgumentsAreQuotedOrLiteralAndNeverCarryALineBreak() {
        XCTAssertEqual(IMAPArgument("alice"), .quoted(#""alice""#))
        XCTAssertEqual(IMAPArgument(#"p"q\r s"#), .quoted(#""p\"q\\r s""#))
        XCTAssertEqual(IMAPArgument("pässwörd"), .literal(Array("pässwörd".utf8)))
        XCTAssertNil(IMAPArgument("a\r\nb"))
        XCTAssertNil(IMAPArgument("a\u{0}b"))
        XCTAssertEqual(IMAPArgument.plainResponse(user: "alice", password: "pässwörd"),
                       "AGFsaWNlAHDDpHNzd8O2cmQ=")  // base64 of "\0alice\0pässwörd"
        XCTAssertNil(IMAPArgument.plainResponse(user: "al\nice", password: "x"))
        XCTAssertNil(IMAPArgument.plainResponse(user: "alice", password: "x\u{0}"))
    }

    func testResponsesParseTheirTagStatusCodeAndCapabilities() {
        func parse(_ text: String) -> IMAPResponse? { IMAPResponse.parse(Array(text.utf8)) }
        XCTAssertEqual(parse("* OK [CAPABILITY IMAP4rev1 SASL-IR STARTTLS AUTH=PLAIN] Dovecot ready."),
                       .untagged(status: .ok, capabilities: ["IMAP4REV1", "SASL-IR", "STARTTLS", "AUTH=PLAIN"]))
        XCTAssertEqual(parse("* CAPABILITY IMAP4rev1 LOGINDISABLED"), .untagged(status: nil, capabilities: ["IMAP4REV1", "LOGINDISABLED"]))
        XCTAssertEqual(parse("* BYE shutting down"), .untagged(status: .bye, capabilities: nil))
        XCTAssertEqual(parse("a1 NO [AUTHENTICATIONFAILED] Authentication failed."), .tagged(tag: "a1", status: .no, code: "AUTHENTICATIONFAILED"))
        XCTAssertEqual(parse("a1 NO [UNAVAILABLE] try later"), .tagged(tag: "a1", status: .no, code: "UNAVAILABLE"))
        XCTAssertEqual(parse("a1 ok Logged in"), .tagged(tag: "a1", status: .ok, code: nil))
        XCTAssertEqual(parse("+ "), .continuation)
        XCTAssertEqual(parse("+"), .continuation)
        XCTAssertNil(parse("a1 MAYBE"))
        XCTAssertNil(parse("garbage"))
        XCTAssertEqual(IMAPResponse.literalLength(atEndOf: Array("* 1 FETCH (BODY[] {42}".utf8)), 42)
        XCTAssertEqual(IMAPResponse.literalLength(atEndOf: Array("x {7+}".utf8)), 7)
        XCTAssertNil(IMAPResponse.literalLength(atEndOf: Array("x {9999999999}".utf8)))
        XCTAssertNil(IMAPResponse.literalLength(atEndOf: Array("x {}".utf8)))
    }
}
