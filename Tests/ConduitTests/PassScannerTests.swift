import Foundation
import Support
import XCTest
@testable import Conduit
import WalletPass

final class PassScannerTests: XCTestCase {
    func testMessageWithTypedPassYieldsOneValidPassWithItsSource() throws {
        let scanner = try Samples.scanner()
        let found = scanner.scanMessage(try Samples.bytes("messages/type.eml"), source: PassSourceInfo(input: "type.eml", message: 1))
        XCTAssertEqual(found.count, 1)
        let pass = try XCTUnwrap(found.first)
        XCTAssertEqual(pass.verdict.status, .valid)
        XCTAssertEqual(pass.source.part, "2")
        XCTAssertEqual(pass.source.filename, "ticket.pkpass")
        XCTAssertEqual(pass.source.detectedBy, [.contentType, .fileExtension, .magic])
        XCTAssertEqual(pass.source.messageID, "<type-1@passconduit.example>")
        XCTAssertNil(pass.library, "no library, no state")
        XCTAssertEqual(pass.record?.id.serialNumber, "EVT-2026-0001")
        XCTAssertEqual(pass.record?.bytes, try Samples.bytes("passes/event-ticket.pkpass"))
    }

    func testContentDecidesOverTheLabel() throws {
        // bundle.eml labels a bundle correctly; relabel it as a single pass: content still says bundle.
        var text = String(decoding: try Samples.bytes("messages/bundle.eml"), as: UTF8.self)
        text = text.replacingOccurrences(of: "application/vnd.apple.pkpasses", with: "application/vnd.apple.pkpass")
        let found = try Samples.scanner().scanMessage(Array(text.utf8), source: PassSourceInfo(input: "x"))
        XCTAssertEqual(found.count, 3)
        XCTAssertEqual(found.first?.source.detectedBy, [.contentType, .fileExtension, .magic])
    }

    func testPNGAttachmentIsNotACandidate() throws {
        let found = try Samples.scanner().scanMessage(try Samples.bytes("messages/no-pass.eml"), source: PassSourceInfo(input: "x"))
        XCTAssertTrue(found.isEmpty)
    }

    func testZipThatIsNotAPassIsNotACandidate() throws {
        let zip = try FixtureFile.bytes("plain.zip")
        let body = Data(zip).base64EncodedString(options: .lineLength76Characters)
        let message = "Subject: zip\nContent-Type: application/zip\nContent-Transfer-Encoding: base64\n\n\(body)\n"
        XCTAssertTrue(try Samples.scanner().scanMessage(Array(message.utf8), source: PassSourceInfo(input: "x")).isEmpty)
    }

    func testNamedPassThatIsNotAZipIsAnInvalidCandidate() throws {
        let message = "Subject: x\nContent-Type: application/octet-stream; name=\"t.pkpass\"\n\nfail\n"
        let found = try Samples.scanner().scanMessage(Array(message.utf8), source: PassSourceInfo(input: "x"))
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.verdict.status, .invalid)
        XCTAssertEqual(found.first?.verdict.error?.code, .notAZip)
        XCTAssertEqual(found.first?.source.detectedBy, [.fileExtension])
        XCTAssertNil(found.first?.record)
    }

    func testContentKindOfBarePassesAndOtherZips() throws {
        let scanner = try Samples.scanner()
        XCTAssertEqual(scanner.contentKind(try Samples.bytes("passes/generic.pkpass")), .pass)
        XCTAssertEqual(scanner.contentKind(try Samples.bytes("passes/bundle.pkpasses")), .bundle)
        XCTAssertNil(scanner.contentKind(try FixtureFile.bytes("plain.zip")))
        XCTAssertNil(scanner.contentKind(try FixtureFile.bytes("icon.png")))
    }

    func testInputScannerReportsMissingAndBinaryInputsAndGoesOn() throws {
        let inputs = InputScanner(scanner: try Samples.scanner())
        var problems: [InputProblem] = []
        var found = 0
        for input in ["/nonexistent/x.eml", FixtureFile.url("icon.png").path, Samples.path("messages/two-passes.eml")] {
            inputs.scan(input) { event in
                if case .problem(let problem) = event { problems.append(problem) }
                if case .found = event { found += 1 }
            }
        }
        XCTAssertEqual(found, 2)
        XCTAssertEqual(problems.map(\.code), [.inputUnavailable, .inputUnusable])
        XCTAssertEqual(problems.first?.description, "/nonexistent/x.eml: no such file or folder")
    }

    func testMessageWithBinaryBodyIsMailNotABlob() {
        let message = Array("Content-Type: text/plain\nContent-Transfer-Encoding: binary\n\n".utf8) + [0, 1, 2, 0, 0xFF]
        XCTAssertTrue(InputScanner.startsLikeMail(message))
        XCTAssertTrue(InputScanner.looksBinary(message))
        XCTAssertFalse(InputScanner.startsLikeMail([0x7F, 0x45, 0x4C, 0x46, 0x02]))
        XCTAssertFalse(InputScanner.startsLikeMail(Array("GIF89a\u{0}\u{1}:".utf8)))
        XCTAssertTrue(InputScanner.startsLikeMail(Array("From ana@example.net Sat Nov 21 09:30:00 2026\n".utf8)))
    }

    func testEveryPrefixOfAMessageScansCleanly() throws {
        let scanner = try Samples.scanner()
        let message = try Samples.bytes("messages/two-passes.eml")
        var found = 0
        for cut in stride(from: 0, through: message.count, by: 211) {
            for pass in scanner.scanMessage(Array(message.prefix(cut)), source: PassSourceInfo(input: "cut")) {
                found += 1
                XCTAssertEqual(pass.source.part.map { ["2", "3"].contains($0) }, true)
            }
        }
        XCTAssertEqual(scanner.scanMessage(message, source: PassSourceInfo(input: "whole")).count, 2)
        XCTAssertGreaterThan(found, 0, "cuts inside the attachments still name the part")
    }

    func testMboxMessagesAreNumberedFromOne() throws {
        let inputs = InputScanner(scanner: try Samples.scanner())
        var messages: [Int?] = []
        inputs.scan(Samples.path("messages/inbox.mbox")) { event in
            if case .found(let pass) = event { messages.append(pass.source.message) }
        }
        XCTAssertEqual(messages, [2, 4, 4])
    }
}
