import Foundation
import XCTest
@testable import Barcodes
@testable import Conduit
@testable import DeliveryFilter
import LibraryRoot
@testable import MailboxLogin
import MailMIME
@testable import Milter
@testable import passconduit
import PassRender
@testable import PassSend
import PassStore
@testable import PassStorePostgres
import PassUpdate
@testable import PassWeb
@testable import Support
import Updates
@testable import WalletPass

/// Issue 28 item 6: every error type says what happened in one shape (`Problem`: a code of the
/// closed set, a sentence, a detail), and every JSON writer of an error writes it with
/// `JSONOutput.problem(_:)`, in the bytes the hand-written mappings wrote before.
final class ProblemTests: XCTestCase {
    /// One value of every error type, every code of the types that have codes.
    static var everyError: [(String, any ProblemReporting)] {
        var errors: [(String, any ProblemReporting)] = []
        for code in PassError.Code.all {
            errors.append(("PassError \(code)", PassError(code: code, message: PassError.message(for: code), detail: "d")))
        }
        errors += [
            ("BarcodeError unsupportedFormat", BarcodeError.unsupportedFormat("X")),
            ("BarcodeError unknownEncoding", BarcodeError.unknownEncoding("X")),
            ("BarcodeError unrepresentable", BarcodeError.unrepresentable("€", offset: 1, encoding: "ISO-8859-1")),
            ("BarcodeError tooLong", BarcodeError.tooLong(.qr, bytes: 5000, limit: 2953)),
            ("BarcodeError encoderFailed", BarcodeError.encoderFailed(.qr, status: 5, text: "zint says no")),
            ("BarcodeError invalidMessage", BarcodeError.invalidMessage(.ean13, "ends in the check digit 2, but its first 12 digits make 1",
                                                                        detail: "check digit 2, expected 1")),
        ]
        for code in [FilterError.Code.inputFailed, .spoolFailed, .badArgument, .badConfig, .scanFailed, .libraryUnavailable,
                     .libraryFailed, .deadline, .outputFailed] {
            errors.append(("FilterError \(code.rawValue)", FilterError(code, detail: "d")))
        }
        for code in [MailboxError.Code.cannotOpen, .readFailed, .notAMaildir] {
            errors.append(("MailboxError \(code.rawValue)", MailboxError(code, path: "inbox", detail: "d")))
        }
        for kind in [LibraryError.Kind.notALibrary, .cannotCreate, .notFound, .ambiguousID, .refused, .io, .busy, .exists,
                     .newerSchema, .unavailable] {
            errors.append(("LibraryError \(kind.rawValue)", LibraryError(kind, "the library says no", path: "/lib.sqlite")))
        }
        for kind in [ConfigError.Kind.unreadable, .syntax, .unknownKey, .badValue] {
            errors.append(("ConfigError \(kind.rawValue)", ConfigError(kind, file: "config.toml", line: 3, key: "limits.x", message: "m")))
        }
        for code in [UpdateFailure.Code.badURL, .insecureURL, .tokenRefused, .passGone, .tryLater, .timeout, .unreachable,
                     .tooLarge, .redirectRefused, .badResponse] {
            errors.append(("UpdateFailure \(code.rawValue)", UpdateFailure(code, "The issuer's server did not answer.", detail: "d")))
        }
        for code in [Problem.Code.inputUnavailable, .inputReadFailed, .inputUnusable] {
            errors.append(("InputProblem \(code)", InputProblem(input: "inbox.mbox", message: "is empty", code: code)))
        }
        for status in [ExitStatus.usage, .dataError, .noInput, .unavailable, .cannotCreate, .ioError, .tempFailure,
                       .noPermission, .configError] {
            errors.append(("CLIError \(status)", CLIError("it failed", status: status)))
        }
        errors += [
            ("MagicError", MagicError(message: "libmagic could not start")),
            ("TrustStoreError", TrustStoreError(path: "trust", reason: "no such file or folder")),
            ("NativeLibraryError", NativeLibraryError(purpose: "barcodes", detail: "libzint.so.2.11: not found")),
            ("FileDescriptorIO.Errno", FileDescriptorIO.Errno(code: 28)),
            ("ZipWriter.Failure", ZipWriter.Failure(description: "a is in the archive twice")),
            ("RenderProblem image", RenderProblem.image("logo.png", "could not be decoded")),
            ("RenderProblem output", RenderProblem.output("the card would be too large to draw")),
            ("MilterProtocolError", MilterProtocolError(description: "packet length 0")),
            ("MailboxLoginError", MailboxLoginError("--auth must be imap:// or imaps://")),
            ("WebSetupError", WebSetupError("--listen takes host:port")),
            ("APIError", WebApp.APIError.notFound),
        ]
        errors += localErrors.map { ($0.0, $0.1) }
        return errors
    }

    /// The small local error types (issue 28 item 6, its rest), each made the way its module makes
    /// it where that is reachable, with the code it must report.
    static var localErrors: [(String, any ProblemReporting, Problem.Code)] {
        struct Refused: Error {}
        var errors: [(String, any ProblemReporting, Problem.Code)] = [
            ("AddressRange.ParseError", parseError("10.0.0.0/40"), .badArgument),
            ("SendFailure", SendFailure(bindError: Refused(), host: "::1", port: 8080), .cannotListen),
            ("BindAddressProblem", bindProblem("[fe80::1"), .badArgument),
            ("LibraryAdmin.Problem", adminProblem("no at sign"), .usage),
            ("MilterPrivileges.Problem usage", privilegesProblem(user: "no-such-user-\(getpid())", euid: 0), .usage),
            ("MilterPrivileges.Problem not root", privilegesProblem(user: "nobody", euid: 1000), .noPermission),
            ("MilterServer.SocketSetupError", MilterServer.SocketSetupError(description: "cannot set the mode 660 of the socket /run/m.sock: Operation not permitted"), .cannotListen),
            ("WebServer.Failure", WebServer.Failure(description: "cannot listen on 127.0.0.1:80: Permission denied"), .cannotListen),
            ("IMAPFailure closed", IMAPFailure.closed, .mailServerFailed),
            ("IMAPFailure protocol", IMAPFailure.protocolError("no IMAP greeting"), .mailServerFailed),
            ("ZipDirectory.Failure notAZip", zipFailure([0x50, 0x4B]), .notAZip),
            // An end record alone, declaring 20 entries (little-endian) where 10 are allowed.
            ("ZipDirectory.Failure tooManyEntries", zipFailure([0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 20, 0, 20, 0] + [UInt8](repeating: 0, count: 10)), .tooLarge),
            ("JSONReader.Failure", jsonFailure(Array("{\"a\": [1,".utf8)), .badJSON),
            ("StringsFile.Lexer.Failure", StringsFile.Lexer.Failure(offset: 12, reason: "unterminated string"), .badStrings),
            ("InputScanner.ReadError", InputScanner.ReadError(code: EIO), .inputReadFailed),
            ("Deadline.Passed", Deadline.Passed(), .timeout),
            ("ConnectionClosed", ConnectionClosed(), .unavailable),
            ("FilterFault.Injected", FilterFault.FaultyScanner.Injected(), .scanFailed),
        ]
        let pages: [(WebProblem, Problem.Code)] = [
            (WebProblem(.notFound, route: "-", title: "Not found", "There is no such page."), .notFound),
            (WebProblem(.methodNotAllowed, route: "-", title: "Not allowed", "This wallet takes only GET and POST."), .methodNotAllowed),
            (WebProblem(.unauthorized, route: "-", title: "Sign in first", "Sign in."), .unauthorized),
            (WebProblem(.forbidden, route: "-", title: "Refused", "A page of another site tried to send this form."), .forbidden),
            (WebProblem(.misdirectedRequest, route: "-", title: "Wrong address", "This wallet answers only at 127.0.0.1."), .wrongHost),
            (WebProblem(.badRequest, route: "-", title: "Unreadable form", "The form arrived damaged."), .badRequest),
            (WebProblem(.internalServerError, route: "/add", title: "Not added", "The upload could not be read."), .internalError),
            (WebProblem(.conflict, route: "-", title: "Conflict", "Another 4xx."), .badRequest),
            (WebProblem(.serviceUnavailable, route: "-", title: "Later", "Another 5xx."), .internalError),
        ]
        for (page, code) in pages { errors.append(("WebProblem \(page.status.code)", page, code)) }
        return errors
    }

    static func parseError(_ text: String) -> AddressRange.ParseError {
        do { _ = try AddressRange.parse(text, option: "--allow") } catch { return error }
        fatalError("\(text) parsed")
    }

    static func bindProblem(_ text: String) -> BindAddressProblem {
        guard case .failure(let problem) = BindAddress.parse(text) else { fatalError("\(text) parsed") }
        return problem
    }

    static func adminProblem(_ address: String) -> LibraryAdmin.Problem {
        do { _ = try LibraryAdmin.target(address, template: "/var/lib/passconduit/%{local}/library.sqlite") } catch let problem as LibraryAdmin.Problem {
            return problem
        } catch {}
        fatalError("\(address) is a mailbox")
    }

    static func privilegesProblem(user: String, euid: uid_t) -> MilterPrivileges.Problem {
        guard case .failure(let problem) = MilterPrivileges.resolve(user: user, group: nil, euid: euid) else { fatalError("\(user) resolved") }
        return problem
    }

    static func zipFailure(_ bytes: [UInt8]) -> ZipDirectory.Failure {
        guard case .failure(let failure) = ZipDirectory.read(bytes[...], maxEntries: 10) else { fatalError("a zip") }
        return failure
    }

    static func jsonFailure(_ bytes: [UInt8]) -> JSONReader.Failure {
        guard case .failure(let failure) = JSONReader.parse(bytes) else { fatalError("valid JSON") }
        return failure
    }

    func testTheCodesAreAClosedSetOfDistinctStrings() {
        let raw = Problem.Code.all.map(\.rawValue)
        XCTAssertEqual(Set(raw).count, raw.count, "a code is listed twice")
        for code in Problem.Code.all {
            XCTAssertEqual(Problem.Code(rawValue: code.rawValue), code)
            XCTAssertFalse(code.rawValue.isEmpty)
            XCTAssertNil(code.rawValue.first { !($0.isLowercase || $0.isASCII && $0.isNumber || $0 == "-") }, code.rawValue)
        }
        XCTAssertNil(Problem.Code(rawValue: "no-such-code"))
        // The hand-kept list lacked it (issue 39 item 7): "older-schema" read back as no code.
        XCTAssertEqual(Problem.Code(rawValue: "older-schema"), .olderSchema)
        XCTAssertTrue(Problem.Code.all.contains(.olderSchema))
    }

    func testEveryErrorTypeReportsACodeOfTheClosedSetAndASentence() {
        let all = Set(Problem.Code.all)
        for (name, error) in Self.everyError {
            let problem = error.problem
            XCTAssertTrue(all.contains(problem.code), "\(name): \(problem.code) is not in Problem.Code.all")
            XCTAssertFalse(problem.message.trimmingCharacters(in: .whitespaces).isEmpty, "\(name) has no sentence")
        }
    }

    /// The types that had codes keep their strings: the shared code is the same word.
    func testCodesKeepTheirStrings() {
        for code in PassError.Code.all { XCTAssertEqual(code.problemCode.rawValue, code.rawValue) }
        XCTAssertEqual(BarcodeError.unsupportedFormat("X").problem.code.rawValue, "unsupported-barcode-format")
        XCTAssertEqual(FilterError(.libraryUnavailable, detail: "").problem.code.rawValue, "library-unavailable")
        XCTAssertEqual(MailboxError(.notAMaildir, path: "m", detail: "").problem.code.rawValue, "not-a-maildir")
        for kind in [LibraryError.Kind.notALibrary, .cannotCreate, .notFound, .ambiguousID, .refused, .io, .busy, .exists,
                     .newerSchema, .unavailable] {
            XCTAssertEqual(kind.problemCode.rawValue, kind.rawValue)
        }
        for kind in [ConfigError.Kind.unreadable, .syntax, .unknownKey, .badValue] {
            XCTAssertEqual(kind.problemCode.rawValue, kind.rawValue)
        }
        for code in [UpdateFailure.Code.badURL, .insecureURL, .tokenRefused, .passGone, .tryLater, .timeout, .unreachable,
                     .tooLarge, .redirectRefused, .badResponse] {
            XCTAssertEqual(code.problemCode.rawValue, code.rawValue)
        }
    }

    /// Every type's JSON is one object `{"code", "message", "detail"}` in that order, read back
    /// exactly by a JSON reader; `detail` only when there is one.
    func testEveryErrorTypeHasOneJSONForm() throws {
        for (name, error) in Self.everyError {
            let problem = error.problem
            let line = JSONOutput.problem(error).line
            XCTAssertEqual(line, JSONOutput.problem(problem).line, name)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], name)
            XCTAssertEqual(object["code"], problem.code.rawValue, name)
            XCTAssertEqual(object["message"], problem.message, name)
            XCTAssertEqual(object["detail"], problem.detail, name)
            XCTAssertTrue(line.hasPrefix(#"{"code":"#), name)
            XCTAssertLessThan(line.range(of: #","message":"#)!.lowerBound, line.range(of: #","detail":"#)?.lowerBound ?? line.endIndex, name)
            XCTAssertEqual(line.contains(#","detail":"#), problem.detail != nil, name)
        }
    }

    /// The bytes the hand-written mappings wrote before (scan/show/list `--json`, `update --json`,
    /// the web API's error bodies) are the bytes of the one writer.
    func testTheWritersWriteTheBytesTheyWroteBefore() {
        let pass = PassError(code: .manifestMismatch, message: PassError.message(for: .manifestMismatch),
                             detail: "manifest.json: \"x\"\nnext")
        XCTAssertEqual(JSONOutput.problem(pass).line,
                       #"{"code":"manifest-mismatch","message":"This pass was changed after it was issued, so it can't be trusted.","detail":"manifest.json: \"x\"\nnext"}"#)

        let outcome = UpdateOutcome(id: PassID(passTypeIdentifier: "pass.example", serialNumber: "1"), kind: .skipped,
                                    error: Problem(.retired, message: "It has expired.", detail: ""))
        XCTAssertEqual(UpdateOutcomeText.json(outcome).line,
                       #"{"schema":1,"id":"pass.example/1","outcome":"skipped","http":null,"error":{"code":"retired","message":"It has expired.","detail":""},"changes":[]}"#)

        XCTAssertEqual(WebApp.errorJSON(.invalidToken, "This API token is not known here.").line,
                       #"{"error":{"code":"invalid-token","message":"This API token is not known here."}}"#)
    }

    /// The command line alone turns what happened into an exit status: an input's code into the
    /// status `scan` and `add` end with when no pass is found, read errors first, then unusable
    /// data, then missing inputs.
    func testTheCommandLineMapsInputCodesToExitStatuses() {
        XCTAssertEqual(ExitStatus(Problem.Code.inputUnavailable), .noInput)
        XCTAssertEqual(ExitStatus(Problem.Code.inputReadFailed), .ioError)
        XCTAssertEqual(ExitStatus(Problem.Code.inputUnusable), .dataError)
        func problem(_ code: Problem.Code) -> InputProblem { InputProblem(input: "x", message: "m", code: code) }
        XCTAssertEqual(ScanOutcome.status(problems: []), .noPassFound)
        XCTAssertEqual(ScanOutcome.status(problems: [problem(.inputUnavailable)]), .noInput)
        XCTAssertEqual(ScanOutcome.status(problems: [problem(.inputUnavailable), problem(.inputUnusable)]), .dataError)
        XCTAssertEqual(ScanOutcome.status(problems: [problem(.inputUnusable), problem(.inputReadFailed), problem(.inputUnavailable)]), .ioError)
    }

    /// Each small local error type reports the code it stands for and, as its sentence, the words
    /// its callers print today (so a writer that takes the Problem writes what they wrote).
    func testEveryLocalErrorTypeReportsItsCodeAndItsSentence() throws {
        for (name, error, code) in Self.localErrors {
            XCTAssertEqual(error.problem.code, code, name)
        }
        let range = Self.parseError("10.0.0.0/40")
        XCTAssertEqual(range.problem.message, "--allow: “40” is not a prefix length for 10.0.0.0 (0 to 32)")
        XCTAssertEqual(range.problem.message, range.description)
        let bind = Self.bindProblem("[fe80::1")
        XCTAssertEqual(bind.problem.message, "“[fe80::1” is not an address: an IPv6 address in “[” lacks its “]”")
        let admin = Self.adminProblem("no at sign")
        XCTAssertEqual(admin.problem.message, admin.description)
        XCTAssertTrue(admin.problem.message.contains("is not a mailbox address"), admin.problem.message)
        let notRoot = Self.privilegesProblem(user: "nobody", euid: 1000)
        XCTAssertEqual(notRoot.problem.message, notRoot.sentence)
        struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }
        let send = SendFailure(bindError: Refused(), host: "::1", port: 0)
        XCTAssertEqual(send.problem.message, "cannot listen on [::1] (any free port): refused")
        XCTAssertNil(send.problem.detail)
        let read = InputScanner.ReadError(code: EIO).problem
        XCTAssertEqual(read.message, "cannot be read: Input/output error")
        XCTAssertEqual(read.detail, "errno 5")
        XCTAssertEqual(IMAPFailure.closed.problem.detail, "it closed the connection")
        XCTAssertEqual(IMAPFailure.protocolError("no IMAP greeting").problem.detail, "it sent no IMAP greeting")
        let page = WebProblem(.forbidden, route: "-", title: "Refused", "A page of another site tried to send this form. Nothing was changed.")
        XCTAssertEqual(page.problem, Problem(.forbidden, message: page.sentence, detail: "403 Refused"))
        // The pass's own sentences: what PassArchive and PassDocument make of these failures.
        let zip = Self.zipFailure([0x50, 0x4B]).problem
        XCTAssertEqual(zip, Problem(.notAZip, message: PassError.message(for: .notAZip), detail: "2 bytes are too few for a zip archive"))
        XCTAssertEqual(Self.jsonFailure(Array("{\"a\": [1,".utf8)).problem.message, PassError.message(for: .badJSON))
        let strings = StringsFile.parse(Array("\"a\" = \"b\";\n\"c\" = ".utf8))
        XCTAssertEqual(strings.entries, ["a": "b"])
        XCTAssertEqual(strings.problem, "missing value for \"c\" at character 17")
        XCTAssertEqual(StringsFile.Lexer.Failure(offset: 17, reason: "missing value for \"c\"").problem.detail, strings.problem)
        XCTAssertEqual(FilterFault.FaultyScanner.Injected().problem.message, FilterError.message(for: .scanFailed))
    }

    /// Every MIME defect the parser records says what happened in the common shape, with the code
    /// of the same string and a sentence of its own; a real message's defect carries its offset.
    func testEveryMIMEDefectReportsItsCodeAndASentence() {
        let codes: [MIMEDefect.Code] = [.missingHeaders, .missingHeaderBodySeparator, .headerTooLong, .unencoded8BitHeader,
                                        .duplicateContentHeader, .invalidContentType, .multipartWithoutBoundary, .boundaryNotFound,
                                        .missingCloseBoundary, .nestingTooDeep, .tooManyParts, .messageTooLarge,
                                        .unknownTransferEncoding, .encodedMessage, .invalidEncoding, .unknownCharset]
        let all = Set(Problem.Code.all)
        var sentences: Set<String> = []
        for code in codes {
            XCTAssertEqual(code.problemCode.rawValue, code.rawValue)
            XCTAssertTrue(all.contains(code.problemCode), code.rawValue)
            sentences.insert(MIMEDefect.message(for: code))
        }
        XCTAssertEqual(sentences.count, codes.count, "each defect has a sentence of its own")
        XCTAssertFalse(sentences.contains("The message breaks the mail format in a way that was worked around."), "a code fell to the default")

        let message = Array("Subject: caf\u{e9}\r\nContent-Type: text/plain\r\nContent-Type: text/html\r\n\r\nbody\r\n".utf8)
        let defects = MIMEParser.parse(message).defects
        guard let duplicate = defects.first(where: { $0.code == .duplicateContentHeader }) else {
            return XCTFail("no duplicate-content-header defect in \(defects)")
        }
        XCTAssertEqual(duplicate.problem.code, .duplicateContentHeader)
        XCTAssertEqual(duplicate.problem.message, "A part gives its type or encoding more than once; the first one was used.")
        XCTAssertEqual(duplicate.problem.detail, duplicate.detail.isEmpty ? "at byte \(duplicate.offset)" : "at byte \(duplicate.offset): \(duplicate.detail)")
    }

    /// The command line alone turns a problem into an exit status: `--user`/`--group` (64 for a
    /// wrong value, 77 for a daemon that may not change its user), the milter's start (75 when it
    /// cannot listen, 73 when its log cannot be written), and a milter scan worker's end
    /// (0 at a clean end, 65 for a malformed request, 74 when the milter went away).
    func testTheCommandLineMapsPrivilegeAndWorkerProblemsToExitStatuses() throws {
        XCTAssertEqual(ExitStatus(Self.privilegesProblem(user: "no-such-user-\(getpid())", euid: 0).problem.code), .usage)
        XCTAssertEqual(ExitStatus(Self.privilegesProblem(user: "nobody", euid: 1000).problem.code), .noPermission)
        // What MilterDaemon.run returns when it cannot start (GatewayTrustTests and
        // GatewayOperabilityTests run the binary into each).
        XCTAssertEqual(ExitStatus(Problem.Code.cannotListen), .tempFailure)
        XCTAssertEqual(ExitStatus(Problem.Code.cannotCreate), .cannotCreate)

        func serve(_ input: [UInt8], closeAfterWriting: Bool) throws -> Problem? {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
            defer { close(fds[0]) }
            XCTAssertEqual(input.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, input.count)
            if closeAfterWriting { close(fds[1]) } else { shutdown(fds[1], Int32(SHUT_WR)) }
            defer { if !closeAfterWriting { close(fds[1]) } }
            return ScanWorkerPool.serve(fd: fds[0], maxMessageBytes: 1000, alarmSeconds: 5) { _ in .success([]) }
        }
        XCTAssertNil(try serve([], closeAfterWriting: false))
        let malformed = try XCTUnwrap(try serve(Array("12x".utf8), closeAfterWriting: false))
        XCTAssertEqual(malformed.code, .badData)
        XCTAssertEqual(ExitStatus(malformed.code), .dataError)
        let tooLarge = try XCTUnwrap(try serve(Array("5000:".utf8), closeAfterWriting: false))
        XCTAssertEqual(ExitStatus(tooLarge.code), .dataError)
        // A whole request, then the milter is gone: the reply cannot be written.
        let gone = try XCTUnwrap(try serve(Array("3:abc".utf8), closeAfterWriting: true))
        XCTAssertEqual(gone.code, .outputFailed)
        XCTAssertEqual(ExitStatus(gone.code), .ioError)
    }

    /// The intake's refusals and the update run's outcomes carry codes of the closed set, with
    /// the strings they had.
    func testIntakeAndUpdateCodesAreInTheClosedSet() {
        let words = ["bad-json", "different-pass", "not-in-library", "other-team", "older-version", "invalid",
                     "untrusted-signer", "missing-signature", "missing-required-key", "no-web-service", "retired",
                     "try-later", "library", "library-refused"]
        for word in words { XCTAssertEqual(Problem.Code(rawValue: word)?.rawValue, word) }
        let refusal = Intake.Decision.refuse(code: .olderVersion, message: "m", detail: "")
        guard case .refuse(let code, _, _) = refusal else { return XCTFail() }
        XCTAssertEqual("\(code)", "older-version")
    }
}
