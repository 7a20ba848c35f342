import Foundation
import XCTest
@testable import PassStore

/// The library's behaviour through `PassLibraryBackend`, run against both backends (SQLite and
/// the tests' own PostgreSQL server): same answers, same error kinds, same change log.
final class BackendConformanceTests: XCTestCase {
    func testAddStoresTheMetadataAndExportIsByteIdentical() async {
        await forEachBackend { f in
            let library = try await f.open(clock: SteppingClock(start: 1_750_000_000))
            let record = try Fixture.sata()
            let stored = try await library.add(record)
            XCTAssertEqual(stored.id, record.id, "\(f.kind)")
            XCTAssertEqual(stored.sha256, "0fea1571c88a20dea147afa12bb0ddeaab7b41e037a672864cc01d54c74c03dd", "\(f.kind)")
            XCTAssertEqual(stored.byteCount, 27355, "\(f.kind)")
            XCTAssertEqual(stored.organizationName, "SATA", "\(f.kind)")
            XCTAssertEqual(stored.relevantDate, record.relevantDate, "\(f.kind)")
            XCTAssertNil(stored.expirationDate, "\(f.kind)")
            XCTAssertFalse(stored.voided, "\(f.kind)")
            XCTAssertEqual(stored.signerSubject, record.signerSubject, "\(f.kind)")
            XCTAssertEqual(stored.signingTime, record.signingTime, "\(f.kind)")
            XCTAssertEqual(stored.fields, record.fields, "\(f.kind)")
            XCTAssertEqual(stored.source, record.source, "\(f.kind)")
            XCTAssertEqual(stored.addedAt, Date(timeIntervalSince1970: 1_750_000_001), "\(f.kind)")
            XCTAssertEqual(stored.updatedAt, stored.addedAt, "\(f.kind)")
            XCTAssertEqual(stored.previousVersions, 0, "\(f.kind)")
            let exported = try await library.export(record.id)
            XCTAssertEqual(exported, record.bytes, "\(f.kind)")
            let again = try await library.pass(record.id)
            XCTAssertEqual(again, stored, "\(f.kind)")
            await assertSound(library, f.kind)
        }
    }

    func testRefusalsAreTheSameAndWriteNothing() async {
        await forEachBackend { f in
            let library = try await f.open { $0.maxPassBytes = 10_000 }
            await expectLibraryError(.refused, f.kind) { try await library.add(Synthetic.record("1", status: .invalid), allowUntrusted: true) }
            await expectLibraryError(.refused, f.kind) { try await library.add(Synthetic.record("1", status: .untrusted)) }
            await expectLibraryError(.refused, f.kind) { try await library.add(Synthetic.record("big", size: 10_001)) }
            await expectLibraryError(.refused, f.kind) { try await library.add(Synthetic.record("pass/a", "1")) }
            await expectLibraryError(.refused, f.kind) { try await library.add(Synthetic.record("pass.a", "")) }
            var nul = Synthetic.record("4")
            nul.id.serialNumber = "4\u{0}x"
            await expectLibraryError(.refused, f.kind) { try await library.add(nul) }
            let untrusted = try await library.add(Synthetic.record("5", status: .untrusted), allowUntrusted: true)
            XCTAssertEqual(untrusted.status, .untrusted, "\(f.kind)")
            let kinds = try await library.changes(after: 0).map(\.kind)
            XCTAssertEqual(kinds, [.add], "\(f.kind)")
        }
    }

    func testAddingTheSameBytesAgainLogsOnceAndOtherContentIsExists() async {
        await forEachBackend { f in
            let library = try await f.open()
            let first = try await library.add(try Fixture.sata())
            let second = try await library.add(try Fixture.sata())
            XCTAssertEqual(first, second, "\(f.kind)")
            try await library.add(Synthetic.record("1", version: 1))
            await expectLibraryError(.exists, f.kind) { try await library.add(Synthetic.record("1", version: 2)) }
            let kinds = try await library.changes(after: 0).map(\.kind)
            XCTAssertEqual(kinds, [.add, .add], "\(f.kind)")
        }
    }

    func testContainsDecidesNewContainedUpdateStale() async {
        await forEachBackend { f in
            let library = try await f.open()
            let v1 = Synthetic.record("1", version: 1), v2 = Synthetic.record("1", version: 2)
            let new = try await library.contains(v1)
            XCTAssertEqual(new, .new, "\(f.kind)")
            try await library.add(v2)
            let contained = try await library.contains(v2)
            XCTAssertEqual(contained, .contained, "\(f.kind)")
            let stale = try await library.contains(v1)
            XCTAssertEqual(stale, .stale, "\(f.kind)")
            let update = try await library.contains(Synthetic.record("1", version: 3))
            XCTAssertEqual(update, .update, "\(f.kind)")
            let unsigned = try await library.contains(Synthetic.record("1", version: 0, withoutSigningTime: true))
            XCTAssertEqual(unsigned, .update, "\(f.kind)")
            let otherType = try await library.contains(Synthetic.record("pass.other", "1", version: 2))
            XCTAssertEqual(otherType, .new, "\(f.kind)")
        }
    }

    func testUnicodeIdentityAndTextRoundTrip() async {
        await forEachBackend { f in
            let library = try await f.open()
            var record = Synthetic.record("pass.example.ünï", "séríal/with slash 🎫")
            record.organizationName = "Café Zürich\u{0}"
            record.fields = [StoredField(key: "name", label: "Név", value: "Árvíztűrő tükörfúrógép \u{0} NUL")]
            let stored = try await library.add(record)
            XCTAssertEqual(stored.organizationName, "Café Zürich\u{FFFD}", "\(f.kind)")
            XCTAssertEqual(stored.fields, record.fields, "\(f.kind)")
            let resolved = try await library.resolve("pass.example.ünï/séríal/with slash 🎫")
            XCTAssertEqual(resolved, record.id, "\(f.kind)")
        }
    }

    func testReplaceLogsFieldChangesKeepsVersionsAndRevertWalksBack() async {
        await forEachBackend { f in
            let library = try await f.open { $0.keptVersions = 2 }
            let versions = (1...4).map { Synthetic.record("1", version: $0) }
            try await library.add(versions[0])
            for v in versions.dropFirst() {
                let changes = try await library.replace(with: v)
                XCTAssertEqual(changes.map(\.message), ["Gate changed to G\(v.signingTime.map { Int($0.timeIntervalSince1970 - 1_700_000_000) / 3600 } ?? 0)"], "\(f.kind)")
            }
            let same = try await library.replaceIfChanged(with: versions[3], allowUntrusted: false)
            XCTAssertNil(same, "\(f.kind)")
            let current = try await library.pass(versions[0].id)
            XCTAssertEqual(current?.previousVersions, 2, "\(f.kind)")
            XCTAssertEqual(current?.sha256, versions[3].sha256, "\(f.kind)")
            await expectLibraryError(.refused, f.kind) { try await library.replace(with: versions[0]) }
            await expectLibraryError(.refused, f.kind) { try await library.replace(with: Synthetic.record("1", version: 9, team: "OTHERTEAM")) }
            await expectLibraryError(.notFound, f.kind) { try await library.replace(with: Synthetic.record("absent")) }
            let back1 = try await library.revert(versions[0].id)
            XCTAssertEqual(back1.sha256, versions[2].sha256, "\(f.kind)")
            let back2 = try await library.revert(versions[0].id)
            XCTAssertEqual(back2.sha256, versions[1].sha256, "\(f.kind)")
            await expectLibraryError(.notFound, f.kind) { try await library.revert(versions[0].id) }
            let exported = try await library.export(versions[0].id)
            XCTAssertEqual(exported, versions[1].bytes, "\(f.kind)")
            let log = try await library.changes(after: 0)
            XCTAssertEqual(log.map(\.kind), [.add, .replace, .replace, .replace, .revert, .revert], "\(f.kind)")
            XCTAssertEqual(log.map(\.sequence), Array(1...6), "\(f.kind)")
            XCTAssertEqual(log[1].changes.map(\.newValue), ["G2"], "\(f.kind)")
            XCTAssertEqual(log[1].changes.map(\.oldValue), ["G1"], "\(f.kind)")
            await assertSound(library, f.kind)
        }
    }

    func testRemoveDeletesThePassItsVersionsAndAllowsANewStart() async {
        await forEachBackend { f in
            let library = try await f.open()
            let v1 = Synthetic.record("1", version: 1), v2 = Synthetic.record("1", version: 2)
            try await library.add(v1)
            try await library.replace(with: v2)
            try await library.remove(v1.id)
            await expectLibraryError(.notFound, f.kind) { try await library.remove(v1.id) }
            await expectLibraryError(.notFound, f.kind) { try await library.export(v1.id) }
            let count = try await library.count()
            XCTAssertEqual(count, 0, "\(f.kind)")
            let again = try await library.add(v1)
            XCTAssertEqual(again.previousVersions, 0, "\(f.kind)")
            await assertSound(library, f.kind)
        }
    }

    func testPassesAreSortedByRelevantDateThenAddedTimeWithUndatedLast() async {
        await forEachBackend { f in
            let library = try await f.open()
            try await library.add(Synthetic.record("undated"))
            try await library.add(Synthetic.record("late", relevant: Date(timeIntervalSince1970: 2_000_000_000)))
            try await library.add(Synthetic.record("early", relevant: Date(timeIntervalSince1970: 1_000_000_000)))
            try await library.add(Synthetic.record("undated2"))
            let order = try await library.passes().map(\.id.serialNumber)
            XCTAssertEqual(order, ["early", "late", "undated", "undated2"], "\(f.kind)")
        }
    }

    func testResolveByPrefixIsUniqueLikeGitOrAmbiguousOrNotFound() async {
        await forEachBackend { f in
            let library = try await f.open()
            // Serials whose digests share a first hex digit, so a 4-digit prefix can collide.
            var records: [PassRecord] = []
            for n in 0..<40 { records.append(Synthetic.record("r\(n)")) }
            for r in records { try await library.add(r) }
            let one = records[7]
            let resolved = try await library.resolve(String(one.sha256.prefix(12)).uppercased())
            XCTAssertEqual(resolved, one.id, "\(f.kind)")
            await expectLibraryError(.notFound, f.kind) { try await library.resolve("abc") }
            await expectLibraryError(.notFound, f.kind) { try await library.resolve("pass.example.synthetic/none") }
            let byFirst = Dictionary(grouping: records, by: { $0.sha256.prefix(1) })
            if let shared = byFirst.first(where: { $0.value.count > 1 }) {
                // One hex digit is too short; the shared digit plus padding that every one of them
                // starts with does not exist, so find the longest common prefix of two.
                let a = shared.value[0].sha256, b = shared.value[1].sha256
                let common = String(zip(a, b).prefix(while: { $0.0 == $0.1 }).map(\.0))
                if common.count >= 4 {
                    await expectLibraryError(.ambiguousID, f.kind) { try await library.resolve(common) }
                }
            }
        }
    }

    func testOffersStageAcceptDeclineAndNeverReuseIDs() async {
        await forEachBackend { f in
            let library = try await f.open()
            let v1 = Synthetic.record("1", version: 1), v2 = Synthetic.record("1", version: 2)
            let first = try await library.stageOffer(v1)
            let same = try await library.stageOffer(v1)
            XCTAssertEqual(first, same, "\(f.kind)")
            let newer = try await library.stageOffer(v2)
            XCTAssertEqual(newer.offerID, first.offerID, "\(f.kind)")
            XCTAssertEqual(newer.sha256, v2.sha256, "\(f.kind)")
            let older = try await library.stageOffer(v1)
            XCTAssertEqual(older.sha256, v2.sha256, "\(f.kind)")
            let bytes = try await library.offerBytes(newer.offerID)
            XCTAssertEqual(bytes, v2.bytes, "\(f.kind)")
            await expectLibraryError(.refused, f.kind) { try await library.acceptOffer(newer.offerID, record: v1) }
            let accepted = try await library.acceptOffer(newer.offerID, record: v2)
            XCTAssertEqual(accepted.sha256, v2.sha256, "\(f.kind)")
            let pending = try await library.offers()
            XCTAssertEqual(pending, [], "\(f.kind)")
            let other = try await library.stageOffer(Synthetic.record("2"))
            XCTAssertGreaterThan(other.offerID, first.offerID, "\(f.kind)")
            try await library.declineOffer(other.offerID)
            await expectLibraryError(.notFound, f.kind) { try await library.declineOffer(other.offerID) }
            await expectLibraryError(.notFound, f.kind) { try await library.offerBytes(other.offerID) }
            let third = try await library.stageOffer(Synthetic.record("3"))
            XCTAssertGreaterThan(third.offerID, other.offerID, "\(f.kind)")
            // An offer of an update to a stored pass, accepted, replaces it.
            let v3 = Synthetic.record("1", version: 3)
            let update = try await library.stageOffer(v3)
            let replaced = try await library.acceptOffer(update.offerID, record: v3)
            XCTAssertEqual(replaced.previousVersions, 1, "\(f.kind)")
            // Adding the exact bytes of a pending offer settles it.
            try await library.add(Synthetic.record("3"))
            let left = try await library.offers().map(\.offerID)
            XCTAssertEqual(left, [], "\(f.kind)")
            let kinds = try await library.changes(after: 0).map(\.kind)
            XCTAssertEqual(kinds, [.offer, .offer, .add, .offer, .decline, .offer, .offer, .replace, .add], "\(f.kind)")
            await assertSound(library, f.kind)
        }
    }

    func testChangesAfterHonoursTheLimitAndLastSequence() async {
        await forEachBackend { f in
            let library = try await f.open()
            let empty = try await library.lastSequence()
            XCTAssertEqual(empty, 0, "\(f.kind)")
            for n in 1...5 { try await library.add(Synthetic.record("\(n)")) }
            let later = try await library.changes(after: 2, limit: 2).map(\.sequence)
            XCTAssertEqual(later, [3, 4], "\(f.kind)")
            let last = try await library.lastSequence()
            XCTAssertEqual(last, 5, "\(f.kind)")
            // A failed write leaves no entry and uses no number.
            await expectLibraryError(.exists, f.kind) { try await library.add(Synthetic.record("1", version: 2)) }
            try await library.add(Synthetic.record("6"))
            let next = try await library.changes(after: 5).map(\.sequence)
            XCTAssertEqual(next, [6], "\(f.kind)")
        }
    }

    func testAFollowerWakesAsSoonAsAnotherConnectionWrites() async {
        await forEachBackend { f in
            let follower = try await f.open()
            let writer = try await f.open()
            try await writer.add(Synthetic.record("0"))
            let start = Date()
            async let woke = follower.waitForChanges(after: 1, timeout: 20, limit: 100)
            try await Task.sleep(for: .milliseconds(300))
            try await writer.add(Synthetic.record("1"))
            let entries = try await woke
            let elapsed = Date().timeIntervalSince(start)
            XCTAssertEqual(entries.map(\.sequence), [2], "\(f.kind)")
            XCTAssertLessThan(elapsed, 5, "\(f.kind): the follower slept through the change")
            let quiet = Date()
            let none = try await follower.waitForChanges(after: 2, timeout: 0.3, limit: 100)
            XCTAssertEqual(none, [], "\(f.kind)")
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(quiet), 0.25, "\(f.kind)")
        }
    }

    func testTheChangeFeedGivesTheBacklogThenNewEntries() async {
        await forEachBackend { f in
            let library = try await f.open()
            try await library.add(Synthetic.record("1"))
            var feed = library.changeFeed(after: 0, wait: 0.5).makeAsyncIterator()
            let first = try await feed.next()
            try await library.add(Synthetic.record("2"))
            let second = try await feed.next()
            XCTAssertEqual(first?.sequence, 1, "\(f.kind)")
            XCTAssertEqual(second?.sequence, 2, "\(f.kind)")
            XCTAssertEqual(second?.passID.serialNumber, "2", "\(f.kind)")
        }
    }

    func testWebServiceMemoryRoundTrips() async {
        await forEachBackend { f in
            let library = try await f.open()
            let v1 = Synthetic.record("1", version: 1)
            try await library.add(v1)
            let checked = Date(timeIntervalSince1970: 1_760_000_000)
            try await library.saveWebServiceStates([
                WebServiceState(id: v1.id, sha256: v1.sha256, webServiceURL: "https://example.org/ws", authenticationToken: "tok",
                                lastModified: "Tue", etag: "\"e\"", checkedAt: checked, outcome: "unchanged", http: 304),
                WebServiceState(id: v1.id, sha256: Synthetic.record("1", version: 2).sha256, outcome: "stale"),
                WebServiceState(id: Synthetic.record("gone").id, sha256: v1.sha256, outcome: "gone"),
            ])
            let states = try await library.webServiceStates()
            XCTAssertEqual(states.count, 1, "\(f.kind)")
            XCTAssertEqual(states[v1.id]?.http, 304, "\(f.kind)")
            XCTAssertEqual(states[v1.id]?.checkedAt, checked, "\(f.kind)")
            let device = try await library.deviceLibraryIdentifier()
            let sameDevice = try await library.deviceLibraryIdentifier()
            XCTAssertEqual(device, sameDevice, "\(f.kind)")
            XCTAssertEqual(device.count, 32, "\(f.kind)")
            let registration = WebServiceRegistration(id: v1.id, webServiceURL: "https://example.org/ws", authenticationToken: "tok",
                                                      registeredAt: checked)
            try await library.saveRegistration(registration)
            let registrations = try await library.registrations()
            XCTAssertEqual(registrations, [registration], "\(f.kind)")
            try await library.deleteRegistration(v1.id)
            let none = try await library.registrations()
            XCTAssertEqual(none, [], "\(f.kind)")
            try await library.setUpdateTag("tag-1", webServiceURL: "https://example.org/ws", passTypeIdentifier: v1.id.passTypeIdentifier)
            let tag = try await library.updateTag(webServiceURL: "https://example.org/ws", passTypeIdentifier: v1.id.passTypeIdentifier)
            XCTAssertEqual(tag, "tag-1", "\(f.kind)")
            try await library.setUpdateTag(nil, webServiceURL: "https://example.org/ws", passTypeIdentifier: v1.id.passTypeIdentifier)
            let forgotten = try await library.updateTag(webServiceURL: "https://example.org/ws", passTypeIdentifier: v1.id.passTypeIdentifier)
            XCTAssertNil(forgotten, "\(f.kind)")
            try await library.remove(v1.id)
            let afterRemove = try await library.webServiceStates()
            XCTAssertEqual(afterRemove.count, 0, "\(f.kind)")
        }
    }

    func testErrorsNameTheLibraryLocation() async {
        await forEachBackend { f in
            let library = try await f.open()
            do {
                try await library.remove(PassID(passTypeIdentifier: "pass.example", serialNumber: "none"))
                XCTFail("\(f.kind): removing a pass that is not there must fail")
            } catch let error as LibraryError {
                XCTAssertEqual(error.kind, .notFound, "\(f.kind)")
                XCTAssertEqual(error.path, library.location, "\(f.kind)")
            }
        }
    }

    func testASnapshotRestoredIntoTheOtherBackendIsTheSameLibrary() async throws {
        let sqlite = BackendFactory(.sqlite), postgres = BackendFactory(.postgresql), back = BackendFactory(.sqlite)
        let source = try await sqlite.open()
        let v1 = Synthetic.record("1", version: 1)
        try await source.add(v1)
        for version in 2...3 { try await source.replace(with: Synthetic.record("1", version: version)) }
        try await source.stageOffer(Synthetic.record("2"))
        let declined = try await source.stageOffer(Synthetic.record("3"))
        try await source.declineOffer(declined.offerID)
        try await source.saveWebServiceStates([WebServiceState(id: v1.id, sha256: Synthetic.record("1", version: 3).sha256, etag: "e")])
        try await source.setUpdateTag("t", webServiceURL: "https://example.org", passTypeIdentifier: v1.id.passTypeIdentifier)
        _ = try await source.deviceLibraryIdentifier()
        // Notices (issue 43) travel with their claims and the library's own notice settings.
        let made = try await source.notices(since: Date(timeIntervalSince1970: 0), limit: 10)
        XCTAssertEqual(made.count, 2, "two replaces with a change message")
        let claimed = try await source.claimNotice(try XCTUnwrap(made.last?.id), channel: .mail)
        XCTAssertTrue(claimed)
        try await source.setNoticePreferences(NoticePreferences(enabled: false, boardingPassMinutes: 45))
        let snapshot = try await source.snapshot()
        XCTAssertEqual(snapshot.versions.count, 2)
        XCTAssertEqual(snapshot.notices.map { $0.sent.map(\.channel) }, [["mail"], []])
        XCTAssertEqual(snapshot.noticePreferences, NoticePreferences(enabled: false, boardingPassMinutes: 45))
        let server = try await postgres.open()
        try await server.restore(snapshot)
        let onServer = try await server.snapshot()
        XCTAssertEqual(onServer.differences(from: snapshot), [])
        let problems = try await server.check()
        XCTAssertEqual(problems, [])
        do {
            try await server.restore(snapshot)
            XCTFail("a second restore into a library that holds data must be refused")
        } catch let error as LibraryError {
            XCTAssertEqual(error.kind, .exists)
        }
        let home = try await back.open()
        try await home.restore(onServer)
        let atHome = try await home.snapshot()
        XCTAssertEqual(atHome.differences(from: snapshot), [])
        // Both continue the log and the offer numbers where the source stopped.
        let next = try await server.stageOffer(Synthetic.record("4"))
        XCTAssertEqual(next.offerID, 3)
        let nextHome = try await home.stageOffer(Synthetic.record("4"))
        XCTAssertEqual(nextHome.offerID, 3)
        let log = try await server.changes(after: 0).map(\.sequence)
        XCTAssertEqual(log, Array(1...(snapshot.changes.count + 1)).map(Int64.init))
        // A notice claimed at the source is claimed in both copies (never sent twice); the next
        // notice continues the numbers.
        for copy in [server, home] {
            let notices = try await copy.notices(since: Date(timeIntervalSince1970: 0), limit: 10)
            XCTAssertEqual(notices.map(\.sent), [[], ["mail"]])
            let again = try await copy.claimNotice(try XCTUnwrap(notices.last?.id), channel: .mail)
            XCTAssertFalse(again)
            let preferences = try await copy.noticePreferences()
            XCTAssertEqual(preferences, NoticePreferences(enabled: false, boardingPassMinutes: 45))
            try await copy.replace(with: Synthetic.record("1", version: 4))
            let newest = try await copy.notices(since: Date(timeIntervalSince1970: 0), limit: 1).first?.id
            XCTAssertEqual(newest, 3)
        }
        await sqlite.closeAll(); await postgres.closeAll(); await back.closeAll()
    }
}
