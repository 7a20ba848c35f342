import Foundation
import XCTest
@testable import Conduit
import MailMIME
import WalletPass
import TestRandom

/// A candidate part is decoded once (the sniffed prefix is not decoded again for the opening),
/// a zip that libmagic rules out costs only its prefix, and libmagic reads from memory.
final class DecodeOnceTests: XCTestCase {
    /// A scanner trusting the test CA with a small sniff window, so a 30 KB pass is larger than it.
    func scanner(counter: DecodeCounter, sniffer: MagicSniffer) throws -> PassScanner {
        var limits = Limits.default
        limits.sniffBytes = 4096
        var scanner = PassScanner(opener: PassOpener(trust: try TrustStore.load(directories: [Samples.path("ca/trust")])),
                                  library: nil, limits: limits, sniffer: sniffer)
        scanner.decodeCounter = counter
        return scanner
    }

    func message(attaching bytes: [UInt8], type: String, name: String, encoding: String) -> [UInt8] {
        let body: String
        switch encoding {
        case "base64": body = Data(bytes).base64EncodedString(options: .lineLength76Characters)
        default:
            let hex = Array("0123456789ABCDEF")
            var out = "", line = 0
            for b in bytes {
                if b >= 33 && b <= 126 && b != UInt8(ascii: "=") { out.append(Character(Unicode.Scalar(b))); line += 1 }
                else { out += "=" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 15)]); line += 3 }
                if line >= 72 { out += "=\n"; line = 0 }
            }
            body = out
        }
        return Array("""
        From: a@example.org
        Subject: attachment
        MIME-Version: 1.0
        Content-Type: multipart/mixed; boundary="b"

        --b
        Content-Type: text/plain

        hello
        --b
        Content-Type: \(type); name="\(name)"
        Content-Transfer-Encoding: \(encoding)

        \(body)
        --b--

        """.utf8)
    }

    func testACandidatePassIsDecodedOnceAndSniffedOnce() throws {
        for encoding in ["base64", "quoted-printable"] {
            let counter = DecodeCounter()
            let sniffer = try MagicSniffer()
            let pass = try Samples.bytes("passes/event-ticket.pkpass")
            XCTAssertGreaterThan(pass.count, 4096 * 4, "the pass is much larger than the sniff window")
            let bytes = message(attaching: pass, type: "application/octet-stream", name: "ticket.bin", encoding: encoding)
            let found = try scanner(counter: counter, sniffer: sniffer).scanMessage(bytes, source: PassSourceInfo(input: "x", message: 1))
            XCTAssertEqual(found.map(\.verdict.status), [.valid], encoding)
            XCTAssertEqual(found.first?.source.detectedBy, [.magic], encoding)
            XCTAssertEqual(found.first?.record?.bytes, pass, encoding)
            let raw = MIMEParser.parse(bytes).rawBody(of: try XCTUnwrap(MIMEParser.parse(bytes).parts.last))
            XCTAssertEqual(counter.partsDecoded, 1, encoding)
            // Before: the sniffed prefix (about twice the window's worth of input) and then the whole body again.
            XCTAssertEqual(counter.inputBytesRead, raw.count, "\(encoding): each encoded byte decoded once")
            XCTAssertEqual(sniffer.sniffCount, 1, encoding)
        }
    }

    func testALabelledPassGoesToTheCentralDirectoryWithoutAskingLibmagic() throws {
        // Labelled by type and name: decoded whole in any case, so libmagic's pre-filter would
        // spare nothing; the central directory alone adds `.magic`. (Before: one sniff.)
        for encoding in ["base64", "quoted-printable"] {
            let counter = DecodeCounter()
            let sniffer = try MagicSniffer(lazily: true)
            let pass = try Samples.bytes("passes/event-ticket.pkpass")
            let bytes = message(attaching: pass, type: "application/vnd.apple.pkpass", name: "ticket.pkpass", encoding: encoding)
            let found = try scanner(counter: counter, sniffer: sniffer).scanMessage(bytes, source: PassSourceInfo(input: "x", message: 1))
            XCTAssertEqual(found.map(\.verdict.status), [.valid], encoding)
            XCTAssertEqual(found.first?.source.detectedBy, [.contentType, .fileExtension, .magic], encoding)
            XCTAssertEqual(found.first?.record?.bytes, pass, encoding)
            XCTAssertEqual(counter.partsDecoded, 1, encoding)
            XCTAssertEqual(sniffer.sniffCount, 0, "\(encoding): libmagic was not asked about a labelled part")
            XCTAssertFalse(sniffer.isLoaded, "\(encoding): a lazy sniffer never asked loads nothing")
        }
    }

    func testALabelledZipThatIsNoPassHasNoMagicReason() throws {
        // Named .pkpass but a plain zip: the central directory finds no pass.json, so the label
        // alone makes it a candidate (and the opener says what is wrong), without libmagic.
        var zip = ZipWriter()
        try zip.add("readme.txt", Array("hello".utf8), compression: .store)
        let counter = DecodeCounter()
        let sniffer = try MagicSniffer()
        let bytes = message(attaching: try zip.archive(), type: "application/octet-stream", name: "t.pkpass", encoding: "base64")
        let found = try scanner(counter: counter, sniffer: sniffer).scanMessage(bytes, source: PassSourceInfo(input: "x", message: 1))
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.source.detectedBy, [.fileExtension])
        XCTAssertNotNil(found.first?.verdict.error)
        XCTAssertEqual(sniffer.sniffCount, 0)
        XCTAssertEqual(counter.partsDecoded, 1)
    }

    func testAZipThatLibmagicRulesOutCostsOnlyItsPrefix() throws {
        // An OpenDocument file: a zip whose first member is an uncompressed "mimetype".
        var zip = ZipWriter()
        try zip.add("mimetype", Array("application/vnd.oasis.opendocument.text".utf8), compression: .store)
        var rng = SeededGenerator(state: 0x0D7)
        try zip.add("content.xml", (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &rng) }, compression: .store)
        let counter = DecodeCounter()
        let sniffer = try MagicSniffer()
        let bytes = message(attaching: try zip.archive(), type: "application/octet-stream", name: "letter.odt", encoding: "base64")
        let found = try scanner(counter: counter, sniffer: sniffer).scanMessage(bytes, source: PassSourceInfo(input: "x", message: 1))
        XCTAssertTrue(found.isEmpty)
        XCTAssertEqual(sniffer.sniffCount, 1)
        XCTAssertEqual(counter.partsDecoded, 1)
        XCTAssertLessThan(counter.inputBytesRead, 4096 / 3 * 4 + 512, "only the sniff window was decoded, not 270 KB of base64")
    }

    /// Below the size where decoding costs less than libmagic, the central directory is read
    /// first and libmagic is asked only when it names a pass (issue 17); the decision is the one
    /// libmagic-first gives: an OpenDocument file holding a pass.json is still not a pass.
    func testASmallZipIsDecidedByTheSameChecksInTheCheaperOrder() throws {
        func odt(withPassJSON: Bool) throws -> [UInt8] {
            var zip = ZipWriter()
            try zip.add("mimetype", Array("application/vnd.oasis.opendocument.text".utf8), compression: .store)
            if withPassJSON { try zip.add("pass.json", Array("{}".utf8), compression: .store) }
            try zip.add("content.xml", Array(repeating: 0x41, count: 20_000), compression: .store)
            return try zip.archive()
        }
        for withPassJSON in [false, true] {
            let counter = DecodeCounter()
            let sniffer = try MagicSniffer()
            let bytes = message(attaching: try odt(withPassJSON: withPassJSON), type: "application/octet-stream", name: "letter.odt", encoding: "base64")
            let found = try scanner(counter: counter, sniffer: sniffer).scanMessage(bytes, source: PassSourceInfo(input: "x", message: 1))
            XCTAssertTrue(found.isEmpty, "libmagic calls it an OpenDocument text, whatever its members")
            XCTAssertEqual(sniffer.sniffCount, withPassJSON ? 1 : 0, "libmagic asked only about a zip naming a pass")
            let raw = MIMEParser.parse(bytes).rawBody(of: try XCTUnwrap(MIMEParser.parse(bytes).parts.last))
            XCTAssertEqual(counter.inputBytesRead, raw.count, "decoded whole: cheaper than libmagic at this size")
        }
        // The same in `contentKind`, for bytes in hand (a bare input file, a TNEF attachment).
        let sniffer = try MagicSniffer()
        let scanner = try scanner(counter: DecodeCounter(), sniffer: sniffer)
        XCTAssertNil(scanner.contentKind(try odt(withPassJSON: false)))
        XCTAssertEqual(sniffer.sniffCount, 0)
        XCTAssertNil(scanner.contentKind(try odt(withPassJSON: true)))
        XCTAssertEqual(sniffer.sniffCount, 1)
        XCTAssertEqual(scanner.contentKind(try Samples.bytes("passes/event-ticket.pkpass")), .pass)
        XCTAssertEqual(sniffer.sniffCount, 2)
    }

    func testALabelledPassThatDoesNotStartLikeAZipIsDecodedOnce() throws {
        let counter = DecodeCounter()
        let bytes = message(attaching: Array(repeating: 0x41, count: 10_000), type: "application/vnd.apple.pkpass",
                            name: "t.pkpass", encoding: "base64")
        let found = try scanner(counter: counter, sniffer: try MagicSniffer()).scanMessage(bytes, source: PassSourceInfo(input: "x"))
        XCTAssertEqual(found.first?.verdict.error?.code, .notAZip)
        XCTAssertEqual(counter.partsDecoded, 1)
        let raw = MIMEParser.parse(bytes).rawBody(of: try XCTUnwrap(MIMEParser.parse(bytes).parts.last))
        XCTAssertEqual(counter.inputBytesRead, raw.count)
    }
}
