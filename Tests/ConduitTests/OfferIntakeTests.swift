import Foundation
import Support
import XCTest
@testable import Conduit
import PassStore
import PassStoreSQLite
import WalletPass

/// Issue 42 item 3: what `passconduit offer` and `POST /api/v1/offers` do with a pass handed over,
/// on a real library file and real sample passes, and the words chat provenance is shown in.
final class OfferIntakeTests: XCTestCase {
    let chat = PassSource(receivedAt: Date(timeIntervalSince1970: 1_796_674_500), network: "matrix", room: "!abc:example.org",
                          eventID: "$xyz", sender: "@alice:example.org")

    func found(_ sample: String) throws -> FoundPass {
        let trust = try TrustStore.load(directories: [Samples.path("ca/trust")])
        let bytes = try Samples.bytes("passes/" + sample)
        let verdict = PassOpener(trust: trust).open(bytes)
        let source = PassSourceInfo(input: sample)
        return FoundPass(source: source, verdict: verdict, library: nil,
                         record: PassRecordMapping.record(verdict: verdict, bytes: bytes, source: source, receivedAt: Date()))
    }

    func library() throws -> PassLibrary {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pc-offer-\(UUID().uuidString).sqlite").path
        addTeardownBlock { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        return try PassLibrary(path: path)
    }

    func testAPassIsOfferedOnceWithItsChatProvenanceAndNeverAdded() async throws {
        let library = try library()
        let ticket = try found("event-ticket.pkpass")
        let first = try await OfferIntake.stage(ticket, chat: chat, library: library)
        guard case .staged(let offer, replaced: false) = first else { return XCTFail("\(first)") }
        XCTAssertEqual(offer.source?.sender, "@alice:example.org")
        XCTAssertEqual(offer.source?.room, "!abc:example.org")
        XCTAssertEqual(offer.source?.eventID, "$xyz")
        XCTAssertEqual(offer.source?.network, "matrix")
        XCTAssertEqual(offer.source?.file, "event-ticket.pkpass")
        XCTAssertEqual(offer.source?.receivedAt, chat.receivedAt)
        let count = try await library.count()
        XCTAssertEqual(count, 0)
        let again = try await OfferIntake.stage(ticket, chat: chat, library: library)
        XCTAssertEqual(again, .alreadyOffered(offer, newer: false))
        let newer = try await OfferIntake.stage(try found("event-ticket-v2.pkpass"), chat: chat, library: library)
        guard case .staged(let replaced, replaced: true) = newer else { return XCTFail("\(newer)") }
        XCTAssertEqual(replaced.offerID, offer.offerID)
        let older = try await OfferIntake.stage(ticket, chat: chat, library: library)
        XCTAssertEqual(older, .alreadyOffered(replaced, newer: true))
        XCTAssertEqual(OfferIntake.line("T", older), "T: a newer version is already offered as #\(offer.offerID).")
        let pending = try await library.offers()
        XCTAssertEqual(pending.count, 1)
    }

    func testAPassInTheLibraryIsNotOfferedAndAnInvalidOneIsRefused() async throws {
        let library = try library()
        let card = try found("store-card.pkpass")
        _ = try await library.add(try XCTUnwrap(card.record))
        let held = try await OfferIntake.stage(card, chat: nil, library: library)
        XCTAssertEqual(held, .inLibrary)
        let bad = try await OfferIntake.stage(try found("bad-manifest-mismatch.pkpass"), chat: chat, library: library)
        guard case .refused(let code, let message) = bad else { return XCTFail("\(bad)") }
        XCTAssertEqual(code, .manifestMismatch)
        XCTAssertTrue(message.hasPrefix("Not offered: "), message)
        let unsigned = try await OfferIntake.stage(try found("bad-missing-signature.pkpass"), chat: chat, library: library)
        XCTAssertTrue(unsigned.isRefusal, "\(unsigned)")
        let none = try await library.offers()
        XCTAssertEqual(none.count, 0)
    }

    func testChatProvenanceInWords() {
        let utc = TimeZone(identifier: "UTC")!
        XCTAssertEqual(SourceText.chat(chat, timeZone: utc),
                       "Sent by @alice:example.org in room !abc:example.org (Matrix), event $xyz, Mon 7 Dec 2026, 20:15 UTC")
        XCTAssertNil(SourceText.chat(PassSource(messageID: "<m@x>", subject: "Ticket", receivedAt: chat.receivedAt)))
        XCTAssertEqual(SourceText.chat(PassSource(receivedAt: chat.receivedAt, network: "xmpp", sender: "bob@example.org"), timeZone: utc),
                       "Sent by bob@example.org (XMPP), Mon 7 Dec 2026, 20:15 UTC")
        XCTAssertEqual(SourceText.chatJSON(PassSource(file: "a.pkpass", receivedAt: chat.receivedAt)).count, 0, "mail and files keep their JSON")
    }
}
