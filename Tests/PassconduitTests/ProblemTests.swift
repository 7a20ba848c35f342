import Foundation
import XCTest
@testable import Barcodes
@testable import Conduit
@testable import DeliveryFilter
import MailboxLogin
import MailMIME
@testable import Milter
@testable import passconduit
import PassRender
import PassStore
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
        return errors
    }

    func testTheCodesAreAClosedSetOfDistinctStrings() {
        let raw = Problem.Code.all.map(\.rawValue)
        XCTAssertEqual(Set(raw).count, raw.count, "a code is listed twice")
        for code in Problem.Code.all {
            XCTAssertEqual(Problem.Code(rawValue: code.rawValue), code)
            XCTAssertFalse(code.rawValue.isEmpty)
            XCTAssertNil(code.rawValue.first { !($0.isLowercase || $0 == "-") }, code.rawValue)
        }
        XCTAssertNil(Problem.Code(rawValue: "no-such-code"))
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
