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

    /// Issue 37 item 4: the visitor's address goes to Dovecot with `ID` before the password, so
    /// its log names the visitor (what fail2ban reads) and its authentication penalty, kept per
    /// remote address, falls on the guesser only: wrong guesses from one visitor do not slow
    /// down the right password of another (they did when every sign-in came from the wallet's
    /// own address).
    func testTheVisitorsAddressReachesDovecotsLogAndOnlyTheGuesserIsPenalised() async throws {
        let dovecot = try server()
        let login = try IMAPLogin(url: "imap://127.0.0.1:\(dovecot.imapPort)")
        let guesser = try XCTUnwrap(IMAPClientAddress(address: "192.0.2.66", port: 40001))
        let visitor = try XCTUnwrap(IMAPClientAddress(address: "198.51.100.7", port: 5678))
        for guess in ["guess 1", "guess 2"] {
            let result = await login.check(user: "alice", password: guess, client: guesser)
            XCTAssertEqual(result, .rejected)
        }
        let started = Date()
        let result = await login.check(user: "bob", password: Self.users["bob"]!, client: visitor)
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(result, .accepted)
        // Dovecot's penalty after two failures from one address is 4 s (2 s after one).
        XCTAssertLessThan(took, 1.5, "bob waited for another visitor's penalty: \(dovecot.log.suffix(800))")
        let log = dovecot.log
        let bobLine = log.split(separator: "\n").first { $0.contains("Login: user=<bob>") && $0.contains("rip=198.51.100.7") }
        XCTAssertNotNil(bobLine, "Dovecot's log names the visitor: \(log.suffix(800))")
        XCTAssertTrue(log.split(separator: "\n").contains { $0.contains("auth failed") && $0.contains("user=<alice>") && $0.contains("rip=192.0.2.66") },
                      "the guesses are logged with the guesser's address: \(log.suffix(800))")
        XCTAssertNil(IMAPClientAddress(address: "1.2.3.4\" \"x", port: 1), "only an address reaches the command")
        XCTAssertNil(IMAPClientAddress(address: "evil.example", port: 1))
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
