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
    /// An upload is scanned in memory (`scan(bytes:name:)`): every kind of input gives the same
    /// passes and problems as the same bytes in a file without a telling name.
    func testBytesInMemoryScanAsTheSameFileDoes() throws {
        let inputs = InputScanner(scanner: try Samples.scanner(), workers: 1)
        func events(_ scan: ((ScanEvent) -> Void) -> Void) -> [String] {
            var out: [String] = []
            scan { event in
                switch event {
                case .found(let pass): out.append("found \(pass.verdict.sha256) \(pass.verdict.status) message \(pass.source.message.map(String.init) ?? "-")")
                case .problem(let problem): out.append("problem \(problem.code) \(problem.message)")
                case .progress(_, let messages, let bytes): out.append("progress \(messages) \(bytes)")
                }
            }
            return out
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-bytes-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var cases: [(String, [UInt8])] = try ["messages/two-passes.eml", "messages/two-passes-crlf.eml", "messages/inbox.mbox",
                                               "messages/bundle.eml", "messages/untrusted.eml", "messages/no-pass.eml"].map { ($0, try Samples.bytes($0)) }
        let message = try Samples.bytes("messages/two-passes.eml")
        cases += [("bom and blank lines", [0xEF, 0xBB, 0xBF, 0x0A, 0x0A] + message),
                  ("binary", try FixtureFile.bytes("icon.png")), ("plain zip", try FixtureFile.bytes("plain.zip")),
                  ("empty", [])]
        for (label, bytes) in cases {
            let file = folder.appendingPathComponent("upload")
            try Data(bytes).write(to: file)
            let fromFile = events { inputs.scan(file.path, emit: $0) }
            let fromMemory = events { inputs.scan(bytes: bytes[...], name: "upload", emit: $0) }
            XCTAssertFalse(fromFile.isEmpty, label)
            XCTAssertEqual(fromMemory, fromFile, label)
        }
        // A slice of a larger buffer (a multipart body) reads only its own bytes.
        let body = Array("--b\r\n\r\n".utf8) + message + Array("\r\n--b--\r\n".utf8)
        let slice = body[7..<(7 + message.count)]
        XCTAssertEqual(events { inputs.scan(bytes: slice, name: "upload", emit: $0) }.filter { $0.hasPrefix("found") }.count, 2)
    }
}
