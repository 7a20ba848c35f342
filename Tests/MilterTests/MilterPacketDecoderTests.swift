import NIOCore
import XCTest
@testable import Milter
@testable import PassStore

final class MilterPacketDecoderTests: XCTestCase {
    private func buffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

    func testEveryPrefixOfTwoPacketsYieldsOnlyTheWholeOnes() throws {
        let first = MilterSession.packet(.continue)                       // 5 bytes
        let second = MilterSession.bigEndian(4) + [0x4C] + [0x41, 0, 0]    // a header packet, 8 bytes
        let stream = first + second
        for cut in 0...stream.count {
            var b = buffer(Array(stream.prefix(cut)))
            var packets: [MilterPacket] = []
            while let p = try MilterPacketDecoder.next(from: &b, maxPacketBytes: 1000) { packets.append(p) }
            XCTAssertEqual(packets.count, cut >= stream.count ? 2 : (cut >= first.count ? 1 : 0), "cut at \(cut)")
            XCTAssertEqual(b.readableBytes, cut - (packets.count == 2 ? stream.count : packets.count == 1 ? first.count : 0))
        }
    }

    func testALengthOfZeroOrPastTheCapIsAProtocolError() {
        for length: UInt32 in [0, 1001, 0x8000_0000, 0xFFFF_FFFF] {
            var b = buffer(MilterSession.bigEndian(length) + [0x42])
            XCTAssertThrowsError(try MilterPacketDecoder.next(from: &b, maxPacketBytes: 1000), "length \(length)")
        }
        var ok = buffer(MilterSession.bigEndian(1000) + [0x42])
        XCTAssertNil(try MilterPacketDecoder.next(from: &ok, maxPacketBytes: 1000), "at the cap: waits for the rest")
    }

    func testNegotiationTakesOnlyWhatTheMTAOffersAndWeWant() throws {
        let session = MilterSession(limits: .init())
        var payload = MilterSession.bigEndian(6) + MilterSession.bigEndian(0x1FF) + MilterSession.bigEndian(0x0000_0087)
        guard case .send(let reply) = session.receive(MilterPacket(command: 0x4F, payload: buffer(payload))) else {
            return XCTFail("no answer to OPTNEG")
        }
        XCTAssertEqual(reply, MilterSession.bigEndian(13) + [0x4F] + MilterSession.bigEndian(6)
                       + MilterSession.bigEndian(0x11) + MilterSession.bigEndian(0x87))
        // A second negotiation, and an unknown command, end the session.
        payload = MilterSession.bigEndian(6) + MilterSession.bigEndian(1) + MilterSession.bigEndian(0)
        guard case .close = session.receive(MilterPacket(command: 0x4F, payload: buffer(payload))) else { return XCTFail() }
        guard case .close = session.receive(MilterPacket(command: 0x7A, payload: buffer([]))) else { return XCTFail() }
    }

    func testAMessageIsRebuiltAsHeaderBlockEmptyLineAndBody() throws {
        let session = MilterSession(limits: .init())
        _ = session.receive(MilterPacket(command: 0x4F, payload: buffer(MilterSession.bigEndian(6) + MilterSession.bigEndian(0x11) + MilterSession.bigEndian(0x1FFFFF))))
        XCTAssertTrue(session.leadingSpace)
        _ = session.receive(MilterPacket(command: 0x52, payload: buffer(Array("<Bob@Example.org>".utf8) + [0])))
        _ = session.receive(MilterPacket(command: 0x4C, payload: buffer(Array("Subject".utf8) + [0] + Array(" hi".utf8) + [0])))
        _ = session.receive(MilterPacket(command: 0x4C, payload: buffer(Array("X-PASSCONDUIT".utf8) + [0] + Array(" forged".utf8) + [0])))
        _ = session.receive(MilterPacket(command: 0x4E, payload: buffer([])))
        _ = session.receive(MilterPacket(command: 0x42, payload: buffer(Array("body\r\n".utf8))))
        guard case .endOfMessage(let message) = session.receive(MilterPacket(command: 0x45, payload: buffer([]))) else { return XCTFail() }
        XCTAssertEqual(try message.spool.contents(maxBytes: 1000).map { String(decoding: $0, as: UTF8.self) },
                       "Subject: hi\r\nX-PASSCONDUIT: forged\r\n\r\nbody\r\n")
        XCTAssertEqual(message.recipients, ["<Bob@Example.org>"])
        XCTAssertNil(session.message, "the next message starts afresh")
    }
}

final class MilterScanRequestTests: XCTestCase {
    func testLibrariesAndMessageSurviveTheTripAndEveryTruncationIsRefusedOrShorter() {
        let message = Array("Subject: x\r\n\r\nbody".utf8)
        let targets = [LibraryMap.Target("/l/a@x.org/library.sqlite"), LibraryMap.Target("/l/b\t@x.org/library.sqlite"),
                       LibraryMap.Target("postgresql:///pc?host=/run/pg", user: "alice@example.org")]
        let request = MilterScanRequest.encode(libraries: targets, message: message)
        let decoded = MilterScanRequest.decode(request)
        XCTAssertEqual(decoded?.libraries, targets)
        XCTAssertEqual(decoded?.message, message)
        XCTAssertEqual(MilterScanRequest.decode(MilterScanRequest.encode(libraries: [], message: message))?.libraries, [])
        for cut in 0..<(request.count - message.count) {
            XCTAssertNil(MilterScanRequest.decode(Array(request.prefix(cut))), "cut at \(cut)")
        }
        XCTAssertNil(MilterScanRequest.decode(Array("1001\n".utf8)))
    }
}

final class LibraryMapTests: XCTestCase {
    func testARecipientMapsToItsOwnLowerCasedLibraryAndHostileAddressesToNone() {
        let map = LibraryMap(rule: .template("/var/lib/pc/%{local}@%{domain}/library.sqlite"))
        XCTAssertEqual(map.path(for: "<Alice@Example.ORG>"), "/var/lib/pc/alice@example.org/library.sqlite")
        for hostile in ["<../../etc@example.org>", "<a/b@example.org>", "<@example.org>", "<alice@>", "<.x@example.org>",
                        "<a b@example.org>", "no-at-sign", "<a\u{0}@example.org>", "<a@exa\\mple.org>"] {
            XCTAssertNil(map.path(for: hostile), hostile)
        }
    }

    /// Issue 37 item 6: the placeholders are replaced in one pass, so an address's own text is
    /// never read for them (`%{domain}` as a local part expanded to the domain before).
    func testAnAddressHoldingAPlaceholderIsNotExpandedAgain() {
        let map = LibraryMap(rule: .template("/l/%{local}@%{domain}/library.sqlite"))
        XCTAssertEqual(map.path(for: "<%{domain}@example.org>"), "/l/%{domain}@example.org/library.sqlite")
        XCTAssertEqual(map.path(for: "<a@%{local}.org>"), "/l/a@%{local}.org/library.sqlite")
        XCTAssertEqual(LibraryMap(rule: .template("/%{domain}/%{local}/%{local}")).path(for: "x@y"), "/y/x/x")
    }

    func testOnlyExistingLibrariesAreUsedOnceEach() {
        let map = LibraryMap(rule: .template("/l/%{local}@%{domain}"))
        let found = map.libraries(for: ["<a@x.org>", "<b@x.org>", "<A@x.org>", "<c@x.org>"]) { $0 != "/l/b@x.org" }
        XCTAssertEqual(found, [.init("/l/a@x.org"), .init("/l/c@x.org")])
        XCTAssertEqual(LibraryMap(rule: .shared("/one")).libraries(for: ["<a@x.org>", "<b@x.org>"]) { _ in false }, [.init("/one")])
        XCTAssertEqual(LibraryMap(rule: .headersOnly).libraries(for: ["<a@x.org>"]), [])
    }

    func testAServerTemplateMakesTheRecipientTheUserAndNeverPutsItIntoTheURL() {
        let url = "postgresql:///pc?host=/run/pg&dbname=%{local}"
        let map = LibraryMap(rule: .template(url))
        let found = map.libraries(for: ["<Alice@Example.ORG>", "<alice@example.org>", "<x@y.org&host=evil>", "<../a@x.org>", "<bob@x.org>"]) { _ in
            XCTFail("a server location is not a file"); return false
        }
        XCTAssertEqual(found, [.init(url, user: "alice@example.org"), .init(url, user: "x@y.org&host=evil"), .init(url, user: "bob@x.org")])
        XCTAssertNil(map.path(for: "<alice@example.org>"))
        XCTAssertEqual(LibraryMap(rule: .template("postgres://h/db")).libraries(for: ["<a@x.org>"]), [.init("postgres://h/db", user: "a@x.org")])
    }
}
