import DovecotTestKit
import MailboxLogin
import NIOCore
import XCTest

/// The sign-in against a real Dovecot on loopback: plain (loopback only), STARTTLS and implicit
/// TLS, a wrong password and an unknown user, passwords that need quoting or a literal, a server
/// that is down, one that never speaks, one that offers no STARTTLS, and a certificate nobody trusts.
final class IMAPLoginTests: XCTestCase {
    nonisolated(unsafe) static var dovecot: DovecotIMAP?
    static let users = [
        "alice": "correct horse",
        // Quotes, a backslash and spaces need a quoted string; non-ASCII needs a literal (LOGIN)
        // or goes in SASL PLAIN's base64.
        "bob": #"p"q\r s"#,
        "carol": "pässwörd ✓",
    ]

    override class func setUp() {
        super.setUp()
        dovecot = try? DovecotIMAP(users: users)
    }

    override class func tearDown() {
        dovecot?.stop()
        dovecot = nil
        super.tearDown()
    }

    func server() throws -> DovecotIMAP {
        guard let dovecot = Self.dovecot else {
            _ = try DovecotIMAP(users: [:])  // throws the reason it could not start
            throw DovecotIMAP.DovecotMissing()
        }
        return dovecot
    }

    func testRightPasswordsAreAcceptedOverPlainLoopbackSTARTTLSAndTLS() async throws {
        let dovecot = try server()
        let plain = try IMAPLogin(url: "imap://127.0.0.1:\(dovecot.imapPort)")
        XCTAssertEqual(plain.server.security, .plainLoopback)
        let startTLS = try IMAPLogin(server: IMAPServerAddress(host: "localhost", port: dovecot.imapPort, security: .startTLS),
                                     caFile: dovecot.certificate)
        let implicitTLS = try IMAPLogin(url: "imaps://localhost:\(dovecot.imapsPort)", caFile: dovecot.certificate)
        for login in [plain, startTLS, implicitTLS] {
            for (user, password) in Self.users.sorted(by: { $0.key < $1.key }) {
                let result = await login.check(user: user, password: password)
                XCTAssertEqual(result, .accepted, "\(user) over \(login.server.security): \(dovecot.log.suffix(600))")
            }
        }
    }

    func testWrongPasswordAndUnknownUserAreTheSameRefusal() async throws {
        let dovecot = try server()
        let login = try IMAPLogin(url: "imap://127.0.0.1:\(dovecot.imapPort)")
        let wrong = await login.check(user: "alice", password: "correct horse!")
        let unknown = await login.check(user: "mallory", password: "correct horse")
        XCTAssertEqual(wrong, .rejected)
        XCTAssertEqual(unknown, .rejected)
        // Another user's password is no key either.
        let crossed = await login.check(user: "alice", password: Self.users["carol"]!)
        XCTAssertEqual(crossed, .rejected)
    }

    func testValuesThatCouldSmuggleACommandAreRefusedUnsent() async throws {
        let dovecot = try server()
        let login = try IMAPLogin(url: "imap://127.0.0.1:\(dovecot.imapPort)")
        let before = dovecot.log
        for (user, password) in [("alice\r\na2 LOGOUT", "x"), ("alice", "a\u{0}b"), ("", "x"), ("alice", ""),
                                 ("alice", String(repeating: "p", count: IMAPLogin.maximumLength + 1))] {
            let result = await login.check(user: user, password: password)
            XCTAssertEqual(result, .rejected, "\(user.debugDescription)")
        }
        // None of them reached the server: Dovecot logged no new connection.
        XCTAssertEqual(dovecot.log, before)
    }

    func testTLSWithAnUntrustedCertificateSendsNothingAndSaysWhy() async throws {
        let dovecot = try server()
        let login = try IMAPLogin(url: "imaps://localhost:\(dovecot.imapsPort)")  // system roots only
        let result = await login.check(user: "alice", password: "correct horse")
        guard case .unavailable(let sentence) = result else { return XCTFail("\(result)") }
        XCTAssertTrue(sentence.hasPrefix("The mail server imaps://localhost:\(dovecot.imapsPort) "), sentence)
        XCTAssertTrue(sentence.contains("certificate") || sentence.contains("TLS"), sentence)
        XCTAssertFalse(sentence.contains("correct horse"))
    }

    func testAServerWithoutSTARTTLSNeverGetsThePassword() async throws {
        let plainOnly = try DovecotIMAP(users: Self.users, tls: false)
        defer { plainOnly.stop() }
        let login = try IMAPLogin(server: IMAPServerAddress(host: "127.0.0.1", port: plainOnly.imapPort, security: .startTLS))
        let result = await login.check(user: "alice", password: "correct horse")
        XCTAssertEqual(result, .unavailable("The mail server imap://127.0.0.1:\(plainOnly.imapPort) does not offer STARTTLS, and a password is never sent to it in plain text."))
        XCTAssertFalse(plainOnly.log.contains("user=<alice>"), plainOnly.log)
    }

    func testADownServerIsUnavailableAtOnce() async throws {
        let port = DovecotIMAP.freePort()
        let login = try IMAPLogin(url: "imap://127.0.0.1:\(port)")
        let started = Date()
        let result = await login.check(user: "alice", password: "correct horse")
        XCTAssertEqual(result, .unavailable("The mail server imap://127.0.0.1:\(port) cannot be reached: connection refused."))
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testASilentServerIsUnavailableAfterTheDeadline() async throws {
        // A listener that accepts and never says a word (the kernel completes the handshake).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        XCTAssertEqual(withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }, 0)
        XCTAssertEqual(listen(fd, 4), 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let login = try IMAPLogin(url: "imap://127.0.0.1:\(port)", timeout: .seconds(1))
        let started = Date()
        let result = await login.check(user: "alice", password: "correct horse")
        XCTAssertEqual(result, .unavailable("The mail server imap://127.0.0.1:\(port) did not answer within 1 s."))
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }
}
